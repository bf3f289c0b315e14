// The persisted snapshot of a space's runs (docs/contract.md §6, issues 10 and 40): what lets the first cockpit
// answer after a cold start come from a few object reads instead of a scan of the whole table.
//
// Design. Landers do not touch the snapshot: rewriting tens of MB per landed run would cost more than the
// table reads it saves. ONE scheduled writer, the compactor (functions/snapshot-compactor), brings it up to
// date with the table's `since` query, which reads only what changed. A snapshot is a list of immutable parts,
// each a runs object (run-snapshot.ts, for /stats, /compare and exports) and the cockpit's columns body of the
// same runs, ready to serve, gzip, within what one read-API answer carries:
//   - base parts, whose runs are in no other base part, then
//   - delta parts, oldest first, whose runs supersede, by run id, the same runs in any part before them
//     (readers and the page keep a run as the last part holding it has it).
// A compaction writes only a delta part of what changed, so its time and memory follow the change, not the
// table. When the deltas hold more rows than MERGE_POLICY's share of the base, a merge rewrites the base
// parts one at a time without the rows the deltas supersede, and the deltas' runs as base parts (memory: one
// part and the ids the deltas hold; amortised, a merge costs a constant per changed row). Too many small
// deltas are folded into one the same way, leaving the base as it is. Once a day the table is read whole
// (streamed, one part in memory), for rows the delta cannot see; a rebuild the function's time cuts short keeps
// how far it got beside the manifest and the next compaction goes on, each first bringing the snapshot up to
// date, so a space of any size is rebuilt within the function's timeout, in as many runs as it takes. The last
// part of every snapshot is written by the compaction that writes its manifest and names the snapshot's layout
// in its header: it is the first answer of the columns route, so a cockpit learns the parts from it. Every
// compaction then writes the manifest, one small object naming the parts with their SHA-256, the issue records
// and the `asOf`, only if it is still the version the compactor read (S3's If-Match): should two compactions
// ever overlap, the one that finishes second is dropped instead of putting back an older manifest.
// A reader takes the manifest, then the objects it names, and checks each hash, so it uses a complete
// snapshot or none. Readers bring what they read up to date with the same `since` query (the cockpit
// itself does so from the columns body's `asOf`), so an answer is never older than the table, only
// cheaper. No part is written over (only a rebuild's progress is) and no reader deletes; parts no manifest
// names expire days after they were written, and every part a healthy compactor names is at most a day old
// (the daily rebuild writes them anew). Anything missing, truncated, foreign or failing its hash is treated as
// absent: the reader rebuilds from the table, and the compactor, should it meet one in a merge, rebuilds the
// snapshot from it.
import { gunzipSync, gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import type { Clock, IssueStore, ObjectStore, RunStore } from '../ports.ts';
import type { StoredIssue } from '#schema/issue.ts';
import { sha256Hex } from '#shared/sha256.ts';
import {
  runDatasetSpacePrefix,
  snapshotIssuesKey,
  snapshotManifestKey,
  snapshotPartKey,
  snapshotRebuildKey,
  snapshotSpacePrefix,
} from '../storage-layout.ts';
import { LAMBDA_ANSWER_BYTES } from '../operations.ts';
import { asOfNow } from './as-of.ts';
import { RUN_PART_CONTENT_TYPE, runPart, runPartKey, runPartOf, sealPart } from './run-dataset.ts';
import { COLUMNS_FORMAT, columnsToBytes, compactOf, encodeColumns, type ColumnsPart } from '#analytics/columns.ts';
import { snapshotRun, type SnapshotRun } from '#analytics/run-snapshot.ts';
import { CorruptSnapshotError, decodeSnapshot, encodeSnapshot, SNAPSHOT_FORMAT } from './snapshot-format.ts';

export const MANIFEST_FORMAT = 'replay-snapshot-manifest/4';
export const ISSUES_FORMAT = 'replay-issues-snapshot/1';
const PAGE = 1000;

export interface ObjectRef {
  key: string;
  sha256: string;
  bytes: number;
}

/** One immutable part of a snapshot: the same runs as the read side's runs object and as the cockpit's columns. */
export interface SnapshotPart {
  /** `base`: its runs are in no other base part; `delta`: its runs supersede, by run id, those of the parts before it. */
  kind: 'base' | 'delta';
  count: number;
  runs: ObjectRef;
  columns: ObjectRef;
}

export interface SnapshotManifest {
  format: typeof MANIFEST_FORMAT;
  /** The formats of the objects it names: a snapshot written by other code (before a deploy) is not used. */
  runsFormat: typeof SNAPSHOT_FORMAT;
  columnsFormat: typeof COLUMNS_FORMAT;
  space: string;
  asOf: string;
  /** The rows of its parts: the space's runs plus the rows delta parts repeat (exact when there are none). */
  count: number;
  /** The space's issue records as of `asOf` (a big space has tens of thousands: one object read instead of a query of them all). */
  issues: ObjectRef;
  /** Base parts, then delta parts oldest first; the last was written with this manifest and names the layout. */
  parts: SnapshotPart[];
  /** Names this snapshot's columns parts to the cockpit (`?snapshot=`), so it never mixes parts of two snapshots. */
  snapshot: string;
  writtenAt: string;
  /** When the table was last read whole for this snapshot. */
  rebuiltAt: string;
}

/**
 * How often the compactor reads the whole table instead of the delta. The delta misses a row whose write
 * took longer than the `asOf` safety margin (its `updatedAt` predates the snapshot), and rows a bulk loader
 * stamps with old times: a periodic full read puts them in.
 */
export const FULL_REBUILD_EVERY_MS = 24 * 60 * 60 * 1000;

/**
 * How the columns are cut: at most `runs` runs per part (parts arrive in parallel and are decoded one by
 * one; the compactor holds one at a time), and at most `bytes` of gzip, so a part always fits one answer
 * whatever its runs hold.
 */
export interface ColumnPartLimits {
  runs: number;
  bytes: number;
}
export const COLUMN_PART_LIMITS: ColumnPartLimits = { runs: 100_000, bytes: LAMBDA_ANSWER_BYTES };

/**
 * When deltas are merged: once their rows pass `mergeShare` of the base's (a merge reads and writes every
 * base part, so it comes once per that share of the table changed), or folded into one once there are more
 * than `maxDeltaParts` (each is one more request for a cockpit).
 */
export interface MergePolicy {
  mergeShare: number;
  maxDeltaParts: number;
}
export const MERGE_POLICY: MergePolicy = { mergeShare: 0.1, maxDeltaParts: 8 };

export interface SnapshotDeps {
  runs: RunStore;
  issues: IssueStore;
  objects: ObjectStore;
  clock: Clock;
}

/** A space's runs as of `asOf`, and where they came from. */
export interface SpaceRuns {
  asOf: string;
  runs: Map<string, SnapshotRun>;
  /** `persisted`: the snapshot objects; otherwise why the table had to be read whole ('corrupt' includes written in another format). */
  source: 'persisted' | 'missing' | 'corrupt';
}

export async function readManifest(objects: ObjectStore, space: string): Promise<SnapshotManifest | null> {
  return (await readManifestVersion(objects, space)).manifest;
}

/** The manifest (null when absent or unusable) and the ETag of the object read, null when there is none. */
export interface ManifestVersion {
  manifest: SnapshotManifest | null;
  etag: string | null;
}

export async function readManifestVersion(objects: ObjectStore, space: string): Promise<ManifestVersion> {
  const found = await objects.getWithEtag(snapshotManifestKey(space));
  return { manifest: found && parseManifest(found.bytes, space), etag: found?.etag ?? null };
}

/** An object a manifest names: its key, under the space's snapshot, and its hash. */
const isRef = (r: Partial<ObjectRef> | undefined, space: string) =>
  !!r && typeof r.key === 'string' && r.key.startsWith(snapshotSpacePrefix(space)) && typeof r.sha256 === 'string';

/** A part as a manifest names it: its kind, its run count and both objects. */
function isPart(part: unknown, space: string): part is SnapshotPart {
  const p = part as Partial<SnapshotPart> | null;
  return (
    !!p &&
    (p.kind === 'base' || p.kind === 'delta') &&
    Number.isInteger(p.count) &&
    isRef(p.runs, space) &&
    isRef(p.columns, space)
  );
}

function parseManifest(bytes: Uint8Array, space: string): SnapshotManifest | null {
  try {
    const m = JSON.parse(new TextDecoder().decode(bytes)) as Partial<SnapshotManifest>;
    const current =
      m.format === MANIFEST_FORMAT && m.runsFormat === SNAPSHOT_FORMAT && m.columnsFormat === COLUMNS_FORMAT;
    const parts =
      Array.isArray(m.parts) &&
      m.parts.length > 0 &&
      m.parts.every((p) => isPart(p, space)) &&
      // Base parts first: a delta supersedes only what comes before it.
      m.parts.every((p, k) => p.kind === 'delta' || k === 0 || m.parts![k - 1]!.kind === 'base');
    if (
      current &&
      m.space === space &&
      typeof m.asOf === 'string' &&
      typeof m.snapshot === 'string' &&
      typeof m.rebuiltAt === 'string' &&
      isRef(m.issues, space) &&
      parts
    )
      return m as SnapshotManifest;
  } catch {
    // not JSON: treated as absent below
  }
  return null;
}

/** How many base parts a manifest has: the parts before its first delta. */
export const baseParts = (manifest: SnapshotManifest): number => manifest.parts.filter((p) => p.kind === 'base').length;

/**
 * The part served as `index` (docs/contract.md §10): 0 is the snapshot's last part, written with its
 * manifest, whose header names the layout; 1 and on are the others in order.
 */
export const servedPart = (manifest: SnapshotManifest, index: number): SnapshotPart | undefined =>
  index === 0 ? manifest.parts.at(-1) : index < manifest.parts.length ? manifest.parts[index - 1] : undefined;

/** The order in which served parts apply: 1, 2, …, then 0, the newest. */
export const servedInOrder = (count: number): number[] => [...Array.from({ length: count - 1 }, (_, k) => k + 1), 0];

/** The object's bytes if they are exactly the ones the manifest names, else null. */
async function verifiedBytes(objects: ObjectStore, ref: ObjectRef): Promise<Uint8Array | null> {
  const bytes = await objects.getBytes(ref.key);
  return bytes && sha256Hex(bytes) === ref.sha256 ? bytes : null;
}

/** The JSON document the manifest names, or null when its bytes do not check out or are not gzip JSON. */
async function verifiedJson(objects: ObjectStore, ref: ObjectRef): Promise<unknown> {
  const gzip = await verifiedBytes(objects, ref);
  try {
    return gzip && (JSON.parse(gunzipSync(gzip).toString('utf8')) as unknown);
  } catch {
    return null;
  }
}

/** The runs of one part, or null when its object does not check out. */
async function partRuns(objects: ObjectStore, space: string, part: SnapshotPart): Promise<SnapshotRun[] | null> {
  const document = await verifiedJson(objects, part.runs);
  if (!document) return null;
  try {
    return [...decodeSnapshot(document, space).runs.values()];
  } catch (e) {
    if (e instanceof CorruptSnapshotError) return null;
    throw e;
  }
}

/** Served part `index` of the columns the manifest names (gzip), ready to serve, or null when its bytes do not check out. */
export function persistedColumnsPart(
  objects: ObjectStore,
  manifest: SnapshotManifest,
  index: number,
): Promise<Uint8Array | null> {
  const part = servedPart(manifest, index);
  return part ? verifiedBytes(objects, part.columns) : Promise.resolve(null);
}

/** The persisted runs, or every run read from the table when the snapshot is missing or unusable. Not yet brought up to date. */
export async function loadSpaceRuns(
  deps: SnapshotDeps,
  space: string,
  known?: SnapshotManifest | null,
): Promise<SpaceRuns> {
  const manifest = known === undefined ? await readManifest(deps.objects, space) : known;
  if (manifest) {
    // Parts in order: a run a later part holds replaces the earlier one.
    const runs = new Map<string, SnapshotRun>();
    let whole = true;
    for (const part of manifest.parts) {
      const held = await partRuns(deps.objects, space, part);
      if (!held) {
        whole = false;
        break;
      }
      for (const run of held) runs.set(run.id, run);
    }
    if (whole) return { asOf: manifest.asOf, runs, source: 'persisted' };
  }
  const existed = manifest !== null || (await deps.objects.list(snapshotSpacePrefix(space))).length > 0;
  const runs = new Map<string, SnapshotRun>();
  const asOf = await applyChanges(deps, space, runs, undefined);
  return { asOf, runs, source: existed ? 'corrupt' : 'missing' };
}

/** A space's issue records by task id as of `asOf`, and where they came from (as SpaceRuns). */
export interface SpaceIssues {
  asOf: string;
  issues: Map<string, StoredIssue>;
  source: SpaceRuns['source'];
}

/** The persisted issue records, or all of them read from the table when the snapshot has none that checks out. Not yet brought up to date. */
export async function loadSpaceIssues(
  deps: SnapshotDeps,
  space: string,
  known?: SnapshotManifest | null,
): Promise<SpaceIssues> {
  const manifest = known === undefined ? await readManifest(deps.objects, space) : known;
  const body = (manifest && (await verifiedJson(deps.objects, manifest.issues))) as {
    format?: unknown;
    space?: unknown;
    asOf?: unknown;
    issues?: unknown;
  } | null;
  if (
    body?.format === ISSUES_FORMAT &&
    body.space === space &&
    typeof body.asOf === 'string' &&
    Array.isArray(body.issues)
  ) {
    return {
      asOf: body.asOf,
      issues: new Map((body.issues as StoredIssue[]).map((issue) => [issue.taskId, issue])),
      source: 'persisted',
    };
  }
  const issues = new Map<string, StoredIssue>();
  const asOf = await applyIssueChanges(deps, space, issues, undefined);
  return { asOf, issues, source: manifest ? 'corrupt' : 'missing' };
}

/** Merges every issue record updated at or after `since` (all when undefined) into `issues`; returns the next `asOf` as applyChanges does. */
export async function applyIssueChanges(
  deps: SnapshotDeps,
  space: string,
  issues: Map<string, StoredIssue>,
  since: string | undefined,
  onIssue?: () => void,
): Promise<string> {
  const next = asOfNow(deps.clock);
  for (const issue of await deps.issues.listIssues(space, since)) {
    issues.set(issue.taskId, issue);
    onIssue?.();
  }
  return next;
}

/** Issue records in task id order, as the table lists them. */
export const inTaskOrder = (issues: Iterable<StoredIssue>): StoredIssue[] =>
  [...issues].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));

/**
 * Merges every row updated at or after `since` (every row when undefined) into `runs`; returns the next
 * `asOf`, taken before the query so that a row written during it is read again next time.
 */
export async function applyChanges(
  deps: SnapshotDeps,
  space: string,
  runs: Map<string, SnapshotRun>,
  since: string | undefined,
  onRun?: (run: SnapshotRun) => void,
): Promise<string> {
  return eachRun(deps, space, since, async (run) => {
    runs.set(run.id, run);
    onRun?.(run);
  });
}

/** Hands every row updated at or after `since` to `onRun`, page by page (awaited); returns the next `asOf` as applyChanges does. */
async function eachRun(
  deps: SnapshotDeps,
  space: string,
  since: string | undefined,
  onRun: (run: SnapshotRun) => Promise<void>,
): Promise<string> {
  const next = asOfNow(deps.clock);
  let cursor: string | undefined;
  do {
    const page = await deps.runs.listRuns(space, { since, cursor, limit: PAGE });
    for (const row of page.items) await onRun(snapshotRun(row));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return next;
}

export interface CompactionResult {
  space: string;
  /** The rows of the snapshot's parts (SnapshotManifest.count). */
  runs: number;
  changed: number;
  issues: number;
  issuesChanged: number;
  source: SpaceRuns['source'];
  /**
   * What the compaction did with the parts: read the table whole, added a delta, merged into the base, folded the
   * deltas, or read part of the table for a rebuild its time cut short (`rebuilding`: the next one goes on).
   */
  kind: 'rebuilt' | 'delta' | 'merged' | 'folded' | 'unchanged' | 'rebuilding';
  written: boolean;
  /** Another compaction replaced the manifest after this one read it: this one's manifest was dropped. */
  superseded: boolean;
}

/** A part the compactor had to read did not check out: the snapshot is rebuilt from the table. */
class UnusablePart extends Error {}

/**
 * A rebuild stops, keeping how far it got, once its function has less than this left: the parts of the runs it
 * holds (at most a part's worth) are written in that time.
 */
const REBUILD_STOP_MS = 60_000;

/** The compactor's time: how many milliseconds its function has left (none given: no limit, as in local mode). */
export type TimeLeft = () => number;

/**
 * One compaction of one space: bring the snapshot up to date by a delta, a merge or a fold, or from the table. A
 * rebuild (daily, or of a snapshot missing or unusable) reads the table in pages, and stops once `timeLeft` says
 * the function is nearly out of time, keeping how far it got; the next compaction goes on from there. Every
 * compaction first brings an existing snapshot up to date, rebuild or not, so the cockpit stays current while a
 * rebuild of a big space takes several runs.
 */
export async function compactSpace(
  deps: SnapshotDeps,
  space: string,
  limits: ColumnPartLimits = COLUMN_PART_LIMITS,
  policy: MergePolicy = MERGE_POLICY,
  timeLeft: TimeLeft = () => Infinity,
): Promise<CompactionResult> {
  await deleteSupersededRunParts(deps, space);
  let previous = await readManifestVersion(deps.objects, space);
  const manifest = previous.manifest;
  const now = deps.clock.now();
  const progress = await readRebuildProgress(deps.objects, space, now);
  const rebuildDue =
    !manifest || progress !== null || now.getTime() - Date.parse(manifest.rebuiltAt) >= FULL_REBUILD_EVERY_MS;
  let before: CompactionResult | null = null;
  let source: SpaceRuns['source'] = manifest ? 'persisted' : 'missing';
  if (manifest) {
    before = await compactChanges(deps, space, previous, limits, policy);
    if (before === null) source = 'corrupt';
    else if (!rebuildDue) return before;
    else if (before.written) previous = await readManifestVersion(deps.objects, space);
  } else if (progress) source = progress.source;
  else if ((await deps.objects.list(snapshotSpacePrefix(space))).length > 0) source = 'corrupt';
  return rebuildSpace(deps, space, previous, progress, { source, limits, before, timeLeft });
}

/** The snapshot brought up to date by a delta, a merge or a fold; null when a part it had to read did not check out. */
async function compactChanges(
  deps: SnapshotDeps,
  space: string,
  previous: ManifestVersion,
  limits: ColumnPartLimits,
  policy: MergePolicy,
): Promise<CompactionResult | null> {
  const manifest = previous.manifest!;
  const loadedIssues = await loadSpaceIssues(deps, space, manifest);
  const now = deps.clock.now();
  // Only what changed is held: a delta is as big as the change, whatever the table.
  const changes = new Map<string, SnapshotRun>();
  const asOf = await applyChanges(deps, space, changes, manifest.asOf);
  if (changes.size > 0)
    await deps.objects.put(
      runPartKey(space, now, 'delta', randomUUID()),
      runPart([...changes.values()], now, 'delta'),
      RUN_PART_CONTENT_TYPE,
    );
  // Read after the runs, from an earlier instant than `asOf`: a record written meanwhile is read again next time.
  let issuesChanged = 0;
  const issues = loadedIssues.issues;
  await applyIssueChanges(deps, space, issues, loadedIssues.asOf, () => issuesChanged++);
  const changed = changes.size;
  const result = { space, issues: issues.size, issuesChanged, changed };
  // An unchanged snapshot stays as it is: its asOf is older, which only lengthens the delta readers fetch by
  // what the table says changed since (nothing), never what they see.
  if (changed === 0 && issuesChanged === 0 && loadedIssues.source === 'persisted')
    return {
      ...result,
      runs: manifest.count,
      source: 'persisted',
      kind: 'unchanged',
      written: false,
      superseded: false,
    };
  let done: { parts: SnapshotPart[]; kind: CompactionResult['kind']; snapshot: string };
  try {
    const writer = new PartWriter(deps.objects, space, limits, now);
    done = { ...(await withChanges(writer, manifest, [...changes.values()], asOf, policy)), snapshot: writer.snapshot };
  } catch (e) {
    if (e instanceof UnusablePart) return null;
    throw e;
  }
  const snapshot = await putManifest(deps.objects, space, {
    asOf,
    done,
    issues: issues.values(),
    rebuiltAt: manifest.rebuiltAt,
    previous,
    clock: deps.clock,
  });
  return {
    ...result,
    runs: done.parts.reduce((n, p) => n + p.count, 0),
    source: loadedIssues.source,
    kind: done.kind,
    written: snapshot !== null,
    superseded: snapshot === null,
  };
}

/**
 * How far a rebuild got: the instant it began (its parts' `writtenAt`, and its Parquet parts' stamp), the `asOf`
 * taken before its first read, the table's cursor after the last page its written parts hold, those parts, and
 * how many Parquet parts it wrote (their names are numbered, so a part written again after a crash replaces
 * itself instead of repeating its runs); once every run is written, the snapshot's parts (`written`), so that
 * only the seal and the manifest are left.
 */
interface RebuildProgress {
  format: typeof REBUILD_FORMAT;
  space: string;
  startedAt: string;
  asOf: string;
  name: string;
  cursor: string | null;
  parts: SnapshotPart[];
  runs: number;
  datasetParts: number;
  written: { parts: SnapshotPart[]; snapshot: string } | null;
  source: SpaceRuns['source'];
}
const REBUILD_FORMAT = 'replay-snapshot-rebuild/2';

async function readRebuildProgress(objects: ObjectStore, space: string, now: Date): Promise<RebuildProgress | null> {
  const text = await objects.getText(snapshotRebuildKey(space));
  let p: Partial<RebuildProgress> | null;
  try {
    p = text === null ? null : (JSON.parse(text) as Partial<RebuildProgress> | null);
  } catch {
    return null;
  }
  const parts = (list: unknown) => Array.isArray(list) && list.every((part) => isPart(part, space));
  const whole =
    !!p &&
    p.format === REBUILD_FORMAT &&
    p.space === space &&
    typeof p.name === 'string' &&
    typeof p.asOf === 'string' &&
    (p.cursor === null || typeof p.cursor === 'string') &&
    Number.isInteger(p.runs) &&
    Number.isInteger(p.datasetParts) &&
    parts(p.parts) &&
    (p.written === null || (typeof p.written?.snapshot === 'string' && parts(p.written.parts))) &&
    ['persisted', 'missing', 'corrupt'].includes(p.source as string);
  // Anything else (another format, another space, a field missing) is a rebuild begun again, as is one begun
  // over a day ago: the parts it wrote first would expire before a manifest had named them a day.
  const fresh = whole && now.getTime() - Date.parse(p!.startedAt ?? '') < FULL_REBUILD_EVERY_MS;
  return fresh ? (p as RebuildProgress) : null;
}

/**
 * The table read whole into base parts, streamed (one part's runs held at a time), with the Parquet dataset's
 * part of each, and once every run is written, the dataset's seal of this rebuild and the manifest. Each time a
 * part's worth is held, its parts are written and the progress kept; out of time, it stops there.
 */
async function rebuildSpace(
  deps: SnapshotDeps,
  space: string,
  previous: ManifestVersion,
  saved: RebuildProgress | null,
  {
    source,
    limits,
    before,
    timeLeft,
  }: {
    source: SpaceRuns['source'];
    limits: ColumnPartLimits;
    before: CompactionResult | null;
    timeLeft: TimeLeft;
  },
): Promise<CompactionResult> {
  const progress: RebuildProgress = saved ?? {
    format: REBUILD_FORMAT,
    space,
    startedAt: deps.clock.now().toISOString(),
    asOf: asOfNow(deps.clock),
    name: randomUUID(),
    cursor: null,
    parts: [],
    runs: 0,
    datasetParts: 0,
    written: null,
    source,
  };
  const keepProgress = () => deps.objects.put(snapshotRebuildKey(space), JSON.stringify(progress), 'application/json');
  const startedAt = new Date(progress.startedAt);
  if (!progress.written) {
    const writer = new PartWriter(deps.objects, space, limits, startedAt, async (runs) => {
      const name = `${progress.name}-${progress.datasetParts}`;
      const part = runPart(runs, startedAt, 'rebuild');
      await deps.objects.put(runPartKey(space, startedAt, 'rebuild', name), part, RUN_PART_CONTENT_TYPE);
      progress.datasetParts++;
    });
    let held: SnapshotRun[] = [];
    let cursor = progress.cursor ?? undefined;
    const keep = async () => {
      progress.parts = [...progress.parts, ...(await writer.write(held, 'base'))];
      progress.cursor = cursor ?? null;
      held = [];
      await keepProgress();
    };
    do {
      // Out of time (another space's rebuild may have taken it), it stops, or waits for the next run to begin.
      if (timeLeft() < REBUILD_STOP_MS) {
        if (held.length > 0) await keep();
        const unchanged = { changed: 0, issues: 0, issuesChanged: 0, runs: 0, written: false, superseded: false };
        return { ...unchanged, ...before, space, source, kind: 'rebuilding' };
      }
      const page = await deps.runs.listRuns(space, { cursor, limit: PAGE });
      for (const row of page.items) held.push(snapshotRun(row));
      progress.runs += page.items.length;
      cursor = page.cursor ?? undefined;
      if (cursor && held.length > limits.runs - PAGE) await keep();
    } while (cursor);
    for (const run of held) await writer.add(run, 'base');
    // Kept before the seal: a run that fails after it goes on from here, never writing a sealed part again.
    progress.written = { parts: await writer.finish('base', progress.parts, progress.asOf), snapshot: writer.snapshot };
    await keepProgress();
  }
  const done = progress.written;
  await deps.objects.put(
    runPartKey(space, startedAt, 'sealed', `${progress.name}-seal`),
    sealPart(startedAt),
    RUN_PART_CONTENT_TYPE,
  );
  const issues = new Map<string, StoredIssue>();
  await applyIssueChanges(deps, space, issues, undefined);
  const snapshot = await putManifest(deps.objects, space, {
    asOf: progress.asOf,
    done,
    issues: issues.values(),
    rebuiltAt: progress.startedAt,
    previous,
    clock: deps.clock,
  });
  await deps.objects.delete(snapshotRebuildKey(space));
  return {
    space,
    changed: progress.runs,
    issues: issues.size,
    issuesChanged: 0,
    runs: done.parts.reduce((n, p) => n + p.count, 0),
    source,
    kind: 'rebuilt',
    written: snapshot !== null,
    superseded: snapshot === null,
  };
}

/**
 * How long after a rebuild began the parts it supersedes are deleted: no sooner than a compaction after the one
 * that wrote its seal (a rebuild may take several), and an hour on, so a query that began before the seal and
 * still reads the older parts (within the read function's 15 s; local mode's exports of millions of rows take
 * seconds) never loses a file it listed.
 */
export const SUPERSEDED_PART_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes the run dataset's parts of `space` written before the newest rebuild that began more than the grace
 * ago and is sealed: it holds every run as new as those parts have it, and the queries read nothing older than
 * it. Parts written after the rebuild began (a delta written while it ran, a later rebuild) are kept, and a
 * part whose key names no time (written before keys did) is left to the bucket's expiry. Answers how many
 * were deleted.
 */
export async function deleteSupersededRunParts(deps: SnapshotDeps, space: string): Promise<number> {
  const settled = deps.clock.now().getTime() - SUPERSEDED_PART_GRACE_MS;
  const parts = (await deps.objects.list(runDatasetSpacePrefix(space))).flatMap((key) => {
    const part = runPartOf(key);
    return part ? [{ key, at: part.writtenAt.getTime(), kind: part.kind }] : [];
  });
  const sealed = parts.filter((p) => p.kind === 'sealed' && p.at <= settled).map((p) => p.at);
  if (!sealed.length) return 0;
  const rebuilt = Math.max(...sealed);
  // Readers take only the rebuild's own rows at its instant (engine-queries.ts latestRunsSql): a delta stamped
  // the same is superseded too.
  const superseded = parts.filter((p) => p.at < rebuilt || (p.at === rebuilt && p.kind === 'delta'));
  for (const { key } of superseded) await deps.objects.delete(key);
  return superseded.length;
}

/** Writes the issue records, then the manifest naming them and the parts, only over `previous`; null when another writer replaced it first. */
async function putManifest(
  objects: ObjectStore,
  space: string,
  s: {
    asOf: string;
    done: { parts: SnapshotPart[]; snapshot: string };
    issues: Iterable<StoredIssue>;
    rebuiltAt: string;
    previous: ManifestVersion;
    clock: Clock;
  },
): Promise<SnapshotManifest | null> {
  const issues = { format: ISSUES_FORMAT, space, asOf: s.asOf, issues: inTaskOrder(s.issues) };
  const manifest: SnapshotManifest = {
    format: MANIFEST_FORMAT,
    runsFormat: SNAPSHOT_FORMAT,
    columnsFormat: COLUMNS_FORMAT,
    space,
    asOf: s.asOf,
    count: s.done.parts.reduce((n, p) => n + p.count, 0),
    issues: await putRef(
      objects,
      snapshotIssuesKey(space, randomUUID()),
      gzipSync(JSON.stringify(issues), { level: 6 }),
    ),
    parts: s.done.parts,
    snapshot: s.done.snapshot,
    writtenAt: s.clock.now().toISOString(),
    rebuiltAt: s.rebuiltAt,
  };
  const written = await objects.putIfMatch(
    snapshotManifestKey(space),
    JSON.stringify(manifest),
    s.previous.etag,
    'application/json',
  );
  return written ? manifest : null;
}

/**
 * Writes `records` as a snapshot of base parts as of `asOf` (benchmarks that prepare one), over the manifest
 * in place; null when another writer replaced it meanwhile.
 */
export async function writeSnapshot(
  objects: ObjectStore,
  space: string,
  asOf: string,
  records: { runs: Iterable<SnapshotRun>; issues: Iterable<StoredIssue> },
  clock: Clock,
  limits: ColumnPartLimits = COLUMN_PART_LIMITS,
): Promise<SnapshotManifest | null> {
  const previous = await readManifestVersion(objects, space);
  const writer = new PartWriter(objects, space, limits, clock.now());
  for (const run of records.runs) await writer.add(run, 'base');
  const done = { parts: await writer.finish('base', [], asOf), snapshot: writer.snapshot };
  return putManifest(objects, space, {
    asOf,
    done,
    issues: records.issues,
    rebuiltAt: clock.now().toISOString(),
    previous,
    clock,
  });
}

/** The parts after `changes`: a delta part of them, then a merge or fold when the policy calls for one. */
async function withChanges(
  writer: PartWriter,
  manifest: SnapshotManifest,
  changes: SnapshotRun[],
  asOf: string,
  policy: MergePolicy,
): Promise<{ parts: SnapshotPart[]; kind: CompactionResult['kind'] }> {
  const base = manifest.parts.filter((p) => p.kind === 'base');
  const deltas = manifest.parts.filter((p) => p.kind === 'delta');
  const baseRows = base.reduce((n, p) => n + p.count, 0);
  const deltaRows = deltas.reduce((n, p) => n + p.count, 0) + changes.length;
  const fewestDeltas = Math.ceil(deltaRows / writer.limits.runs);
  if (deltaRows > 0 && deltaRows > policy.mergeShare * baseRows)
    return { parts: await rewrite(writer, base, deltas, changes, asOf, 'base'), kind: 'merged' };
  if (deltas.length + 1 > Math.max(policy.maxDeltaParts, 2 * fewestDeltas))
    return { parts: await rewrite(writer, base, deltas, changes, asOf, 'delta'), kind: 'folded' };
  for (const run of changes) await writer.add(run, 'delta');
  return { parts: await writer.finish('delta', manifest.parts, asOf), kind: 'delta' };
}

/**
 * The runs of `changes` and `deltas` (the newest of each run) as parts of `kind`: after the base parts less
 * the runs they supersede when merging into the base (`kind` base), after the base parts as they are when
 * folding the deltas. One part in memory at a time, and the ids the deltas hold; a base part none of whose
 * runs is superseded is kept as it is.
 */
async function rewrite(
  writer: PartWriter,
  base: SnapshotPart[],
  deltas: SnapshotPart[],
  changes: SnapshotRun[],
  asOf: string,
  kind: SnapshotPart['kind'],
): Promise<SnapshotPart[]> {
  const seen = new Set<string>();
  const newest = async (runs: Iterable<SnapshotRun>) => {
    for (const run of runs) {
      if (seen.has(run.id)) continue;
      seen.add(run.id);
      await writer.add(run, kind);
    }
  };
  await newest(changes);
  for (const part of [...deltas].reverse()) await newest(await readPart(writer, part));
  if (kind === 'delta') return writer.finish(kind, base, asOf);
  const kept: SnapshotPart[] = [];
  for (const part of base) {
    // An empty part (the last part of a snapshot whose runs filled the others) is left out.
    if (part.count === 0) continue;
    const runs = await readPart(writer, part);
    const left = runs.filter((run) => !seen.has(run.id));
    if (left.length === runs.length) kept.push(part);
    else kept.push(...(await writer.write(left, 'base')));
  }
  return writer.finish(kind, kept, asOf);
}

async function readPart(writer: PartWriter, part: SnapshotPart): Promise<SnapshotRun[]> {
  const runs = await partRuns(writer.objects, writer.space, part);
  if (!runs) throw new UnusablePart(`part ${part.runs.key} does not check out`);
  return runs;
}

/**
 * Writes a compaction's parts: runs added one by one are held until a part is full, then written (with
 * `onPart`, the Parquet dataset's part of them); `finish` writes what is left as the snapshot's last part,
 * whose header names the layout and the snapshot's `asOf`. Every part gets a fresh key: nothing is written
 * over. A part other than the last carries, in its header, itself read alone (one part, as of when written).
 */
class PartWriter {
  private held: SnapshotRun[] = [];
  private readonly written: SnapshotPart[] = [];
  private readonly name = randomUUID();
  private serial = 0;
  private readonly writtenAt: string;
  /** The snapshot's name, unique to the compaction. */
  readonly snapshot: string;

  constructor(
    readonly objects: ObjectStore,
    readonly space: string,
    readonly limits: ColumnPartLimits,
    now: Date,
    private readonly onPart?: (runs: SnapshotRun[]) => Promise<void>,
  ) {
    this.writtenAt = now.toISOString();
    this.snapshot = `${this.writtenAt}/${this.name}`;
  }

  async add(run: SnapshotRun, kind: SnapshotPart['kind']): Promise<void> {
    this.held.push(run);
    if (this.held.length < this.limits.runs) return;
    const full = this.held;
    this.held = [];
    this.written.push(...(await this.write(full, kind)));
  }

  /** `runs` as parts of their own, beside the ones `add` fills. */
  async write(runs: SnapshotRun[], kind: SnapshotPart['kind']): Promise<SnapshotPart[]> {
    if (runs.length === 0) return [];
    await this.onPart?.(runs);
    const parts: SnapshotPart[] = [];
    for (const cut of this.cut(runs, this.writtenAt, () => alone(kind)))
      parts.push(await this.put(cut.runs, cut.body, kind, this.writtenAt));
    return parts;
  }

  /** The parts `before` (kept from the previous snapshot, or the base a merge kept), those `add` filled, and what is held still, last. */
  async finish(kind: SnapshotPart['kind'], before: SnapshotPart[], asOf: string): Promise<SnapshotPart[]> {
    const rest = this.held;
    this.held = [];
    if (rest.length > 0) await this.onPart?.(rest);
    const parts = [...before, ...this.written];
    const bases = parts.filter((p) => p.kind === 'base').length;
    const cuts = this.cut(rest, asOf, (k, n) =>
      k === n - 1
        ? { index: 0, count: parts.length + n, snapshot: this.snapshot, base: bases + (kind === 'base' ? n : 0) }
        : alone(kind),
    );
    for (const [k, cut] of cuts.entries())
      parts.push(await this.put(cut.runs, cut.body, kind, k === cuts.length - 1 ? asOf : this.writtenAt));
    return parts;
  }

  private async put(
    runs: SnapshotRun[],
    columns: Buffer,
    kind: SnapshotPart['kind'],
    asOf: string,
  ): Promise<SnapshotPart> {
    const name = `${this.name}-${this.serial++}`;
    const runsBody = gzipSync(JSON.stringify(encodeSnapshot(this.space, asOf, runs)), { level: 6 });
    return {
      kind,
      count: runs.length,
      runs: await putRef(this.objects, snapshotPartKey(this.space, name, 'runs'), runsBody),
      columns: await putRef(this.objects, snapshotPartKey(this.space, name, 'columns'), columns),
    };
  }

  /**
   * The runs cut into columns bodies (gzip) of at most `limits.runs` runs, each compressed once; one that
   * comes out above `limits.bytes` is halved and the cuts encoded again (their headers may name the count).
   * Always one cut at least.
   */
  private cut(
    runs: SnapshotRun[],
    asOf: string,
    partOf: (index: number, count: number) => ColumnsPart,
  ): { runs: SnapshotRun[]; body: Buffer }[] {
    let cuts: SnapshotRun[][] = [];
    for (let start = 0; start < runs.length || start === 0; start += this.limits.runs)
      cuts.push(runs.slice(start, start + this.limits.runs));
    for (;;) {
      const bodies = cuts.map((cut, k) =>
        gzipSync(columnsToBytes(encodeColumns(cut.map(compactOf), asOf, partOf(k, cuts.length))), { level: 6 }),
      );
      const halved = cuts.flatMap((cut, k) =>
        bodies[k]!.length > this.limits.bytes && cut.length > 1
          ? [cut.slice(0, Math.ceil(cut.length / 2)), cut.slice(Math.ceil(cut.length / 2))]
          : [cut],
      );
      // Nothing left to halve: done (a single run too big for an answer stays whole, and its part is refused with 413).
      if (halved.length === cuts.length) return cuts.map((cut, k) => ({ runs: cut, body: bodies[k]! }));
      cuts = halved;
    }
  }
}

/** A part's header when it is not a snapshot's last: itself, read alone. */
const alone = (kind: SnapshotPart['kind']): ColumnsPart => ({
  index: 0,
  count: 1,
  snapshot: null,
  base: kind === 'base' ? 1 : 0,
});

async function putRef(objects: ObjectStore, key: string, body: Buffer): Promise<ObjectRef> {
  await objects.put(key, body, 'application/gzip');
  return { key, sha256: sha256Hex(body), bytes: body.length };
}
