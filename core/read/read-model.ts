// What one read-API process (a warm Lambda, the local server) keeps of each space: the runs of the
// persisted snapshot (snapshot-store.ts), brought up to date on every request with the table's `since`
// query, which reads only what changed. The exports read it; none of the routes ever scans the table per
// request. The issue records are kept the same way, for `/issues` and the facts `/stats` adds. `/stats`
// and `/compare` need only the runs as a table: a process that holds no runs builds it from the persisted
// columns instead (a few binary parts, where the runs document of a million runs takes a cold process tens
// of seconds to decode, past what an API answer may take), kept current by the same delta.
//
// The columns endpoint goes further on a cold process: it serves the persisted columns body as it is (one
// object read, already gzip) without decoding a run, and the cockpit fetches the rest with `since` from
// the body's own `asOf`. Once this process holds the runs anyway (another route needed them), it encodes
// the body itself; that body may trail the runs by up to REENCODE_AFTER_MS, which its `asOf` also makes
// safe — a stale body only means a slightly larger first delta, never a missed row. A snapshot too big
// for one answer, or one with delta parts, is in parts (snapshot-store.ts); its first part (the last one
// written, which names the layout) is then what every process serves first, and the later parts are read
// by the snapshot's name, so a cockpit never combines parts of two snapshots.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ObjectStore, RunStore } from '../ports.ts';
import {
  COLUMNS_GZIP_MEDIA_TYPE,
  COLUMNS_MEDIA_TYPE,
  ColumnsFormatError,
  columnsFromBytes,
  columnsToBytes,
  compactOf,
  encodeColumns,
  type EngineReading,
} from '#analytics/columns.ts';
import type { SnapshotRun } from '#analytics/run-snapshot.ts';
import { RunTable } from '#analytics/run-table.ts';
import {
  applyChanges,
  applyIssueChanges,
  baseParts,
  inTaskOrder,
  loadSpaceIssues,
  loadSpaceRuns,
  persistedColumnsPart,
  readManifest,
  servedInOrder,
  type SnapshotDeps,
  type SnapshotManifest,
} from './snapshot-store.ts';
import type { StoredIssue } from '#schema/issue.ts';
import { jsonError, type HttpAnswer } from '../http.ts';

export const REENCODE_AFTER_MS = 10_000;
/** How long a process serves the persisted columns body before asking for the manifest again. */
export const PERSISTED_RECHECK_MS = 10_000;

interface Encoded {
  /** The body uncompressed, made when a client that does not take gzip first asks. */
  plain: Uint8Array | null;
  gzip: Uint8Array;
  at: number;
}

interface SpaceView {
  /** `inOrder` is the records in task order, kept until one changes (every cockpit polls them). */
  issues: { issues: Map<string, StoredIssue>; asOf: string; inOrder: StoredIssue[] | null } | null;
  issuesLoading: Promise<void> | null;
  issuesRefreshing: Promise<void> | null;
  runs: Map<string, SnapshotRun> | null;
  asOf: string | null;
  /** Bumped whenever a run changes: derived forms (the body, the table) are rebuilt only when it moved. */
  revision: number;
  loading: Promise<void> | null;
  refreshing: Promise<void> | null;
  encoded: (Encoded & { revision: number }) | null;
  persisted: Persisted | null;
  /** Built on first use by a route that needs it, then kept current run by run: a delta never rebuilds it. */
  table: { table: RunTable; runs: SnapshotRun[] } | null;
  /** The table alone, from the persisted columns (currentRunTable), current as of its own `asOf`. */
  columnsTable: { table: RunTable; asOf: string; refreshing: Promise<void> | null } | null;
  columnsTableLoading: Promise<void> | null;
}

/** The persisted snapshot's manifest and the parts of it this process has served. */
interface Persisted {
  manifest: SnapshotManifest;
  parts: Map<number, Encoded>;
  at: number;
}

const views = new WeakMap<RunStore, Map<string, SpaceView>>();

function viewOf(runs: RunStore, space: string): SpaceView {
  let bySpace = views.get(runs);
  if (!bySpace) views.set(runs, (bySpace = new Map()));
  let view = bySpace.get(space);
  if (!view) {
    view = {
      issues: null,
      issuesLoading: null,
      issuesRefreshing: null,
      runs: null,
      asOf: null,
      revision: 0,
      loading: null,
      refreshing: null,
      encoded: null,
      persisted: null,
      table: null,
      columnsTable: null,
      columnsTableLoading: null,
    };
    bySpace.set(space, view);
  }
  return view;
}

/** The space's runs, current as of the returned `asOf` (concurrent requests share one load and one delta). */
export async function currentRuns(
  deps: SnapshotDeps,
  space: string,
): Promise<{ runs: Map<string, SnapshotRun>; asOf: string; revision: number }> {
  const view = viewOf(deps.runs, space);
  if (!view.runs) {
    view.loading ??= loadSpaceRuns(deps, space)
      .then((loaded) => {
        view.runs = loaded.runs;
        view.asOf = loaded.asOf;
        view.revision++;
      })
      .finally(() => (view.loading = null));
    await view.loading;
  }
  const onRun = (run: SnapshotRun) => {
    view.revision++;
    if (!view.table) return;
    view.table.runs[view.table.table.upsert(compactOf(run)).index] = run;
  };
  view.refreshing ??= applyChanges(deps, space, view.runs!, view.asOf!, onRun)
    .then((asOf) => void (view.asOf = asOf))
    .finally(() => (view.refreshing = null));
  await view.refreshing;
  return { runs: view.runs!, asOf: view.asOf!, revision: view.revision };
}

/**
 * The space's issue records in task id order, current as of this request: a process that holds none takes
 * the persisted snapshot's (one object read, where listing them from the table takes a query of tens of
 * thousands of records in a big space), then each request adds those updated since.
 */
export async function currentIssues(deps: SnapshotDeps, space: string): Promise<StoredIssue[]> {
  const view = viewOf(deps.runs, space);
  if (!view.issues) {
    view.issuesLoading ??= loadSpaceIssues(deps, space)
      .then((loaded) => void (view.issues = { ...loaded, inOrder: null }))
      .finally(() => (view.issuesLoading = null));
    await view.issuesLoading;
  }
  const known = view.issues!;
  view.issuesRefreshing ??= applyIssueChanges(deps, space, known.issues, known.asOf, () => (known.inOrder = null))
    .then((asOf) => void (known.asOf = asOf))
    .finally(() => (view.issuesRefreshing = null));
  await view.issuesRefreshing;
  return (known.inOrder ??= inTaskOrder(known.issues.values()));
}

/** The runs as a columnar table, and the runs by table index. */
export async function currentTable(
  deps: SnapshotDeps,
  space: string,
): Promise<{ table: RunTable; runs: SnapshotRun[]; asOf: string }> {
  const { runs, asOf } = await currentRuns(deps, space);
  const view = viewOf(deps.runs, space);
  if (!view.table) {
    // Map order is insertion order and upsert appends new ids, so table index k is the k-th run.
    const ordered = [...runs.values()];
    view.table = { table: RunTable.fromRuns(ordered.map(compactOf)), runs: ordered };
  }
  return { table: view.table.table, runs: view.table.runs, asOf };
}

/**
 * The space's runs as a table, current as of the returned `asOf`: the table of currentTable when this
 * process holds the runs, else one read from the persisted columns parts and kept current with the delta.
 * Parts that are missing or do not check out leave it to currentTable (which rebuilds from the table).
 */
export async function currentRunTable(deps: SnapshotDeps, space: string): Promise<{ table: RunTable; asOf: string }> {
  const view = viewOf(deps.runs, space);
  if (!view.columnsTable && !view.table) {
    view.columnsTableLoading ??= tableOfPersistedColumns(deps.objects, space, view)
      .then((loaded) => void (view.columnsTable = loaded && { ...loaded, refreshing: null }))
      .finally(() => (view.columnsTableLoading = null));
    await view.columnsTableLoading;
  }
  const held = view.columnsTable;
  if (!held) return currentTable(deps, space);
  held.refreshing ??= applyChanges(deps, space, new Map(), held.asOf, (run) => void held.table.upsert(compactOf(run)))
    .then((asOf) => void (held.asOf = asOf))
    .finally(() => (held.refreshing = null));
  await held.refreshing;
  return { table: held.table, asOf: held.asOf };
}

/** The table of the persisted columns, read through the manifest and parts the columns route serves (each read once per process). */
async function tableOfPersistedColumns(
  objects: ObjectStore,
  space: string,
  view: SpaceView,
): Promise<{ table: RunTable; asOf: string } | null> {
  const persisted = await persistedOf(objects, space, view, Date.now);
  if (!persisted) return null;
  const { manifest } = persisted;
  const served = servedInOrder(manifest.parts.length);
  const parts = await Promise.all(served.map((k) => partOf(objects, persisted, k)));
  if (parts.some((part) => part === null)) return null;
  try {
    return {
      table: RunTable.fromColumns(
        parts.map((part) => columnsFromBytes(gunzipSync(part!.gzip))),
        baseParts(manifest),
      ),
      asOf: manifest.asOf,
    };
  } catch (e) {
    // Bytes that match the manifest yet do not read as columns (another format): the runs decide.
    if (e instanceof ColumnsFormatError || (e as { code?: string }).code === 'Z_DATA_ERROR') return null;
    throw e;
  }
}

/**
 * How a client takes the columns body (docs/contract.md §10): compressed as a representation of its own
 * (`application/vnd.replay.run-columns+gzip`, asked for with Accept), which a browser hands to the page
 * still compressed, so the page inflates it as it streams in; compressed in transit (Content-Encoding);
 * or plain.
 */
export type ColumnsCoding = 'gzip-media-type' | 'gzip' | 'identity';

/** A later part of a persisted snapshot's columns: `?part=` and `?snapshot=` as the first part named them. */
export interface ColumnsPartRequest {
  part: number;
  snapshot: string;
}

/**
 * `GET /api/spaces/{space}/columns`: every run of the space in the cockpit's columnar form, whole or, for
 * a snapshot in several parts, its first part; `part` asks for a later one.
 */
export async function columnsAnswer(
  deps: SnapshotDeps & { objects: ObjectStore },
  space: string,
  coding: ColumnsCoding,
  part: ColumnsPartRequest | null = null,
  nowMs: () => number = Date.now,
): Promise<HttpAnswer> {
  const view = viewOf(deps.runs, space);
  if (part) return servedPart(deps.objects, space, view, part, coding, nowMs);
  const persisted = await persistedOf(deps.objects, space, view, nowMs);
  // A process that holds no runs yet serves the snapshot as it is; one in parts is always served so,
  // since a whole body of that many runs would not fit one answer.
  let body =
    persisted && (!view.runs || persisted.manifest.parts.length > 1) ? await partOf(deps.objects, persisted, 0) : null;
  if (!body) {
    const { runs, asOf, revision } = await currentRuns(deps, space);
    const encoded = view.encoded;
    if (!encoded || (encoded.revision !== revision && nowMs() - encoded.at >= REENCODE_AFTER_MS)) {
      const plain = columnsToBytes(encodeColumns([...runs.values()].map(compactOf), asOf));
      view.encoded = { plain, gzip: gzipSync(plain, { level: 6 }), at: nowMs(), revision };
    }
    body = view.encoded!;
  }
  return columnsBody(body, coding);
}

async function servedPart(
  objects: ObjectStore,
  space: string,
  view: SpaceView,
  request: ColumnsPartRequest,
  coding: ColumnsCoding,
  nowMs: () => number,
): Promise<HttpAnswer> {
  let persisted = await persistedOf(objects, space, view, nowMs);
  // A snapshot newer than this process's copy of the manifest may be the one asked for.
  if (persisted?.manifest.snapshot !== request.snapshot)
    persisted = await persistedOf(objects, space, view, nowMs, true);
  const replaced = jsonError(
    409,
    'snapshot-replaced',
    `Snapshot ${request.snapshot} of space "${space}" was replaced by a newer one; load the columns again from the first part.`,
  );
  if (persisted?.manifest.snapshot !== request.snapshot) return replaced;
  const parts = persisted.manifest.parts.length;
  if (request.part >= parts)
    return jsonError(
      404,
      'no-such-part',
      `Snapshot ${request.snapshot} of space "${space}" has ${parts} part${parts === 1 ? '' : 's'}, numbered from 0.`,
    );
  const body = await partOf(objects, persisted, request.part);
  if (body) return columnsBody(body, coding);
  // Its slot was written over: the next first request must find the snapshot that did so.
  await persistedOf(objects, space, view, nowMs, true);
  return replaced;
}

/** The persisted snapshot's manifest as this process last read it, read again after PERSISTED_RECHECK_MS (or when `force`d). */
async function persistedOf(
  objects: ObjectStore,
  space: string,
  view: SpaceView,
  nowMs: () => number,
  force = false,
): Promise<Persisted | null> {
  if (force || !view.persisted || nowMs() - view.persisted.at >= PERSISTED_RECHECK_MS) {
    const manifest = await readManifest(objects, space);
    const same = manifest && view.persisted?.manifest.snapshot === manifest.snapshot;
    view.persisted = manifest && { manifest, parts: same ? view.persisted!.parts : new Map(), at: nowMs() };
  }
  return view.persisted;
}

/** One part's body, read and checked once per process; null when its bytes no longer match the manifest. */
async function partOf(objects: ObjectStore, persisted: Persisted, index: number): Promise<Encoded | null> {
  let part = persisted.parts.get(index);
  if (!part) {
    const gzip = await persistedColumnsPart(objects, persisted.manifest, index);
    if (!gzip) return null;
    persisted.parts.set(index, (part = { gzip, plain: null, at: persisted.at }));
  }
  return part;
}

/** The first answer for a space the page reads through the engine: an empty body saying so, no run in it. */
export function engineReadingAnswer(asOf: string, reading: EngineReading, coding: ColumnsCoding): HttpAnswer {
  const plain = columnsToBytes({ ...encodeColumns([], asOf), engine: reading });
  return columnsBody({ plain, gzip: gzipSync(plain), at: 0 }, coding);
}

function columnsBody(body: Encoded, coding: ColumnsCoding): HttpAnswer {
  if (coding === 'identity') body.plain ??= gunzipSync(body.gzip);
  return {
    status: 200,
    body: coding === 'identity' ? body.plain! : body.gzip,
    contentType: coding === 'gzip-media-type' ? COLUMNS_GZIP_MEDIA_TYPE : COLUMNS_MEDIA_TYPE,
    // Browsers may reuse it briefly: the cockpit fetches every later change through `since` anyway.
    headers: {
      'cache-control': 'private, max-age=5',
      vary: 'accept, accept-encoding',
      ...(coding === 'gzip' ? { 'content-encoding': 'gzip' } : {}),
    },
  };
}
