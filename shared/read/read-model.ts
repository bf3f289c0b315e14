// What one read-API process (a warm Lambda, the local server) keeps of each space: the runs of the
// persisted snapshot (snapshot-store.ts), brought up to date on every request with the table's `since`
// query, which reads only what changed. `/stats`, `/compare` and the exports read it; none of them ever
// scans the table per request.
//
// The columns endpoint goes further on a cold process: it serves the persisted columns body as it is (one
// object read, already gzip) without decoding a run, and the cockpit fetches the rest with `since` from
// the body's own `asOf`. Once this process holds the runs anyway (another route needed them), it encodes
// the body itself; that body may trail the runs by up to REENCODE_AFTER_MS, which its `asOf` also makes
// safe — a stale body only means a slightly larger first delta, never a missed row.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { HttpAnswer } from '../http.ts';
import type { ObjectStore, RunStore } from '../ports.ts';
import { compactOf, encodeColumns } from '../cockpit/columns.ts';
import type { SnapshotRun } from '../cockpit/run-snapshot.ts';
import { RunTable } from '../cockpit/run-table.ts';
import { applyChanges, loadSpaceRuns, persistedColumns, type SnapshotDeps } from './snapshot-store.ts';

export const REENCODE_AFTER_MS = 10_000;
/** How long a process serves the persisted columns body before asking for the manifest again. */
export const PERSISTED_RECHECK_MS = 10_000;

interface Encoded {
  json: Buffer | null;
  gzip: Buffer;
  at: number;
}

interface SpaceView {
  runs: Map<string, SnapshotRun> | null;
  asOf: string | null;
  /** Bumped whenever a run changes: derived forms (the body, the table) are rebuilt only when it moved. */
  revision: number;
  loading: Promise<void> | null;
  refreshing: Promise<void> | null;
  encoded: (Encoded & { revision: number }) | null;
  persisted: (Encoded & { asOf: string }) | null;
  /** Built on first use by a route that needs it, then kept current run by run: a delta never rebuilds it. */
  table: { table: RunTable; runs: SnapshotRun[] } | null;
}

const views = new WeakMap<RunStore, Map<string, SpaceView>>();

function viewOf(runs: RunStore, space: string): SpaceView {
  let bySpace = views.get(runs);
  if (!bySpace) views.set(runs, (bySpace = new Map()));
  let view = bySpace.get(space);
  if (!view) bySpace.set(space, (view = { runs: null, asOf: null, revision: 0, loading: null, refreshing: null, encoded: null, persisted: null, table: null }));
  return view;
}

/** The space's runs, current as of the returned `asOf` (concurrent requests share one load and one delta). */
export async function currentRuns(deps: SnapshotDeps, space: string): Promise<{ runs: Map<string, SnapshotRun>; asOf: string; revision: number }> {
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

/** The runs as a columnar table, and the runs by table index. */
export async function currentTable(deps: SnapshotDeps, space: string): Promise<{ table: RunTable; runs: SnapshotRun[]; asOf: string }> {
  const { runs, asOf } = await currentRuns(deps, space);
  const view = viewOf(deps.runs, space);
  if (!view.table) {
    // Map order is insertion order and upsert appends new ids, so table index k is the k-th run.
    const ordered = [...runs.values()];
    view.table = { table: RunTable.fromRuns(ordered.map(compactOf)), runs: ordered };
  }
  return { table: view.table.table, runs: view.table.runs, asOf };
}

/** `GET /api/spaces/{space}/columns`: every run of the space in the cockpit's columnar form. */
export async function columnsAnswer(deps: SnapshotDeps & { objects: ObjectStore }, space: string, acceptsGzip: boolean, nowMs: () => number = Date.now): Promise<HttpAnswer> {
  const view = viewOf(deps.runs, space);
  let body: Encoded | null = null;
  if (!view.runs) {
    if (!view.persisted || nowMs() - view.persisted.at >= PERSISTED_RECHECK_MS) {
      const persisted = await persistedColumns(deps.objects, space);
      view.persisted = persisted && { gzip: persisted.gzip, json: null, asOf: persisted.asOf, at: nowMs() };
    }
    body = view.persisted;
  }
  if (!body) {
    const { runs, asOf, revision } = await currentRuns(deps, space);
    const encoded = view.encoded;
    if (!encoded || (encoded.revision !== revision && nowMs() - encoded.at >= REENCODE_AFTER_MS)) {
      const json = Buffer.from(JSON.stringify(encodeColumns([...runs.values()].map(compactOf), asOf)));
      view.encoded = { json, gzip: gzipSync(json, { level: 6 }), at: nowMs(), revision };
    }
    body = view.encoded!;
  }
  if (!acceptsGzip) body.json ??= gunzipSync(body.gzip);
  return {
    status: 200,
    body: acceptsGzip ? body.gzip : body.json!,
    contentType: 'application/json',
    // Browsers may reuse it briefly: the cockpit fetches every later change through `since` anyway.
    headers: { 'cache-control': 'private, max-age=5', vary: 'accept-encoding', ...(acceptsGzip ? { 'content-encoding': 'gzip' } : {}) },
  };
}
