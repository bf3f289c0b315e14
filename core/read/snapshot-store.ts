// The persisted snapshot of a space's runs (docs/contract.md §6, issue 10): what lets the first cockpit answer after a
// cold start come from one object read instead of a scan of the whole table.
//
// Design. Landers do not touch the snapshot: rewriting tens of MB per landed run would cost more than the
// table reads it saves. ONE scheduled writer, the compactor (functions/snapshot-compactor), brings it up to
// date with the table's `since` query, which reads only what changed, and writes:
//   1. objects into the slot the current manifest does not name (slots `a` and `b` alternate): the runs
//      (run-snapshot.ts, for /stats, /compare and exports), the issue records (for /issues and the facts
//      /stats adds) and the cockpit's columns body, ready to serve, all gzip. The columns come in parts,
//      each within what one read-API answer carries (a million runs are some 16 MB compressed; a Lambda
//      answer carries 4.4 MB), and every part names the snapshot;
//   2. then the manifest, one small object naming the slot's objects with their SHA-256 and the `asOf`,
//      written only if it is still the version the compactor read (S3's If-Match): should two compactions
//      ever overlap, the one that finishes second is dropped instead of putting back an older manifest,
//      so the manifest only ever moves on from the one its writer started from.
// A reader takes the manifest, then the objects it names, and checks each hash, so it uses a complete
// snapshot or none. Readers bring what they read up to date with the same `since` query (the cockpit
// itself does so from the columns body's `asOf`), so an answer is never older than the table, only
// cheaper. Nothing is ever deleted (no delete permission is needed): a reader still fetching a slot two
// compactions later, or one whose object an overlapping compaction rewrote, finds other bytes, fails the
// hash and falls back to the table. Anything missing, truncated, foreign or failing its hash is treated
// as absent: the reader rebuilds from the table, and the next compaction writes it anew.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Clock, IssueStore, ObjectStore, RunStore } from '../ports.ts';
import type { StoredIssue } from '#schema/issue.ts';
import { sha256Hex } from '#shared/sha256.ts';
import {
  SNAPSHOT_SLOTS,
  snapshotColumnsPartKey,
  snapshotIssuesKey,
  snapshotManifestKey,
  snapshotRunsKey,
  snapshotSpacePrefix,
  type SnapshotSlot,
} from '../storage-layout.ts';
import { LAMBDA_ANSWER_BYTES } from '../operations.ts';
import { asOfNow } from './as-of.ts';
import { randomUUID } from 'node:crypto';
import { RUN_PART_CONTENT_TYPE, runPart, runPartKey } from './run-dataset.ts';
import { COLUMNS_FORMAT, columnsToBytes, compactOf, encodeColumns, type CompactRun } from '#analytics/columns.ts';
import { snapshotRun, type SnapshotRun } from '#analytics/run-snapshot.ts';
import { CorruptSnapshotError, decodeSnapshot, encodeSnapshot, SNAPSHOT_FORMAT } from './snapshot-format.ts';

export const MANIFEST_FORMAT = 'replay-snapshot-manifest/3';
export const ISSUES_FORMAT = 'replay-issues-snapshot/1';
const PAGE = 1000;

interface ObjectRef {
  key: string;
  sha256: string;
  bytes: number;
}

export interface SnapshotManifest {
  format: typeof MANIFEST_FORMAT;
  /** The formats of the objects it names: a snapshot written by other code (before a deploy) is not used. */
  runsFormat: typeof SNAPSHOT_FORMAT;
  columnsFormat: typeof COLUMNS_FORMAT;
  space: string;
  slot: SnapshotSlot;
  asOf: string;
  count: number;
  runs: ObjectRef;
  /** The space's issue records as of `asOf` (a big space has tens of thousands: one object read instead of a query of them all). */
  issues: ObjectRef;
  /** The columns body's parts, in order; every part carries `snapshot` and the part count. */
  columns: ObjectRef[];
  /** Names this snapshot's columns parts to the cockpit (`?snapshot=`), so it never mixes parts of two snapshots. */
  snapshot: string;
  writtenAt: string;
  /** When the table was last read whole for this snapshot (absent in snapshots written before it was kept). */
  rebuiltAt?: string;
}

/**
 * How often the compactor reads the whole table instead of the delta. The delta misses a row whose write
 * took longer than the `asOf` safety margin (its `updatedAt` predates the snapshot), and rows a bulk loader
 * stamps with old times: a periodic full read puts them in.
 */
export const FULL_REBUILD_EVERY_MS = 24 * 60 * 60 * 1000;

/**
 * How the columns are cut: at most `runs` runs per part (parts arrive in parallel and are decoded one by
 * one), and at most `bytes` of gzip, so a part always fits one answer whatever its runs hold.
 */
export interface ColumnPartLimits {
  runs: number;
  bytes: number;
}
export const COLUMN_PART_LIMITS: ColumnPartLimits = { runs: 100_000, bytes: LAMBDA_ANSWER_BYTES };

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
  /** `persisted`: the snapshot object; otherwise why the table had to be read whole ('corrupt' includes written in another format). */
  source: 'persisted' | 'missing' | 'corrupt';
  /** When the table was last read whole for these runs; null when unknown. */
  rebuiltAt: string | null;
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

function parseManifest(bytes: Uint8Array, space: string): SnapshotManifest | null {
  try {
    const m = JSON.parse(new TextDecoder().decode(bytes)) as Partial<SnapshotManifest>;
    const ref = (r: Partial<ObjectRef> | undefined) =>
      !!r && typeof r.key === 'string' && r.key.startsWith(snapshotSpacePrefix(space)) && typeof r.sha256 === 'string';
    const current =
      m.format === MANIFEST_FORMAT && m.runsFormat === SNAPSHOT_FORMAT && m.columnsFormat === COLUMNS_FORMAT;
    const parts = Array.isArray(m.columns) && m.columns.length > 0 && m.columns.every(ref);
    if (
      current &&
      m.space === space &&
      typeof m.asOf === 'string' &&
      typeof m.snapshot === 'string' &&
      ref(m.runs) &&
      ref(m.issues) &&
      parts
    )
      return m as SnapshotManifest;
  } catch {
    // not JSON: treated as absent below
  }
  return null;
}

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

/** Part `index` of the columns the manifest names (gzip), ready to serve, or null when its bytes do not check out. */
export function persistedColumnsPart(
  objects: ObjectStore,
  manifest: SnapshotManifest,
  index: number,
): Promise<Uint8Array | null> {
  const ref = manifest.columns[index];
  return ref ? verifiedBytes(objects, ref) : Promise.resolve(null);
}

/** The persisted runs, or every run read from the table when the snapshot is missing or unusable. Not yet brought up to date. */
export async function loadSpaceRuns(
  deps: SnapshotDeps,
  space: string,
  known?: SnapshotManifest | null,
): Promise<SpaceRuns> {
  const manifest = known === undefined ? await readManifest(deps.objects, space) : known;
  const document = manifest && (await verifiedJson(deps.objects, manifest.runs));
  if (document) {
    try {
      return { ...decodeSnapshot(document, space), source: 'persisted', rebuiltAt: manifest!.rebuiltAt ?? null };
    } catch (e) {
      if (!(e instanceof CorruptSnapshotError)) throw e;
    }
  }
  const existed = manifest !== null || (await deps.objects.list(snapshotSpacePrefix(space))).length > 0;
  const rebuiltAt = deps.clock.now().toISOString();
  const runs = new Map<string, SnapshotRun>();
  const asOf = await applyChanges(deps, space, runs, undefined);
  return { asOf, runs, source: existed ? 'corrupt' : 'missing', rebuiltAt };
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
  const next = asOfNow(deps.clock);
  let cursor: string | undefined;
  do {
    const page = await deps.runs.listRuns(space, { since, cursor, limit: PAGE });
    for (const row of page.items) {
      const run = snapshotRun(row);
      runs.set(row.id, run);
      onRun?.(run);
    }
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return next;
}

export interface CompactionResult {
  space: string;
  runs: number;
  changed: number;
  issues: number;
  issuesChanged: number;
  source: SpaceRuns['source'];
  written: boolean;
  /** Another compaction replaced the manifest after this one read it: this one's manifest was dropped. */
  superseded: boolean;
}

/** One compaction of one space: load, bring up to date, write the other slot if anything changed. */
export async function compactSpace(
  deps: SnapshotDeps,
  space: string,
  limits: ColumnPartLimits = COLUMN_PART_LIMITS,
): Promise<CompactionResult> {
  const previous = await readManifestVersion(deps.objects, space);
  const [loaded, loadedIssues] = await Promise.all([
    loadSpaceRuns(deps, space, previous.manifest),
    loadSpaceIssues(deps, space, previous.manifest),
  ]);
  const now = deps.clock.now();
  const rebuildDue = loaded.rebuiltAt === null || now.getTime() - Date.parse(loaded.rebuiltAt) >= FULL_REBUILD_EVERY_MS;
  const changedRuns: SnapshotRun[] = [];
  const runs = rebuildDue ? new Map<string, SnapshotRun>() : loaded.runs;
  const asOf = await applyChanges(deps, space, runs, rebuildDue ? undefined : loaded.asOf, (run) =>
    changedRuns.push(run),
  );
  const changed = changedRuns.length;
  // The change set also goes to the run dataset the engine reads (run-dataset.ts), as one part; a snapshot
  // loaded from the table (missing or unusable) has every run as its change set.
  const partRuns = loaded.source === 'persisted' ? changedRuns : [...runs.values()];
  if (partRuns.length > 0)
    await deps.objects.put(runPartKey(space, now, randomUUID()), runPart(partRuns, now), RUN_PART_CONTENT_TYPE);
  // Read after the runs, from an earlier instant than `asOf`: a record written meanwhile is read again next time.
  let issuesChanged = 0;
  const issues = rebuildDue ? new Map<string, StoredIssue>() : loadedIssues.issues;
  await applyIssueChanges(deps, space, issues, rebuildDue ? undefined : loadedIssues.asOf, () => issuesChanged++);
  const rebuiltAt = rebuildDue ? now.toISOString() : loaded.rebuiltAt!;
  // An unchanged persisted snapshot stays as it is: its asOf is older, which only lengthens the delta
  // readers fetch by what the table says changed since (nothing), never what they see.
  const persisted = loaded.source === 'persisted' && loadedIssues.source === 'persisted';
  const due = !persisted || changed > 0 || issuesChanged > 0 || rebuildDue;
  const manifest = due
    ? await writeSnapshot(deps.objects, space, asOf, { runs: runs.values(), issues: issues.values() }, deps.clock, {
        rebuiltAt,
        limits,
        previous,
      })
    : null;
  const source = loaded.source !== 'persisted' ? loaded.source : loadedIssues.source;
  const written = manifest !== null;
  return {
    space,
    runs: runs.size,
    changed,
    issues: issues.size,
    issuesChanged,
    source,
    written,
    superseded: due && !written,
  };
}

export interface SnapshotWriteOptions {
  /** When the table was last read whole for these records. */
  rebuiltAt?: string;
  limits?: ColumnPartLimits;
  /** The manifest the records were read against (default: read now); the new one replaces exactly that. */
  previous?: ManifestVersion;
}

/**
 * Writes the slot the previous manifest does not name, then the manifest that names it, only if the
 * previous one is still in place; null when another writer replaced it first (its snapshot stands).
 */
export async function writeSnapshot(
  objects: ObjectStore,
  space: string,
  asOf: string,
  records: { runs: Iterable<SnapshotRun>; issues: Iterable<StoredIssue> },
  clock: Clock,
  options: SnapshotWriteOptions = {},
): Promise<SnapshotManifest | null> {
  const { rebuiltAt, limits = COLUMN_PART_LIMITS } = options;
  const all = [...records.runs];
  const previous = options.previous ?? (await readManifestVersion(objects, space));
  const slot = SNAPSHOT_SLOTS.find((s) => s !== previous.manifest?.slot)!;
  const snapshot = `${asOf}/${slot}`;
  const put = async (key: string, body: Buffer): Promise<ObjectRef> => {
    await objects.put(key, body, 'application/gzip');
    return { key, sha256: sha256Hex(body), bytes: body.length };
  };
  const runsRef = await put(
    snapshotRunsKey(space, slot),
    gzipSync(JSON.stringify(encodeSnapshot(space, asOf, all)), { level: 6 }),
  );
  const issuesRef = await put(
    snapshotIssuesKey(space, slot),
    gzipSync(JSON.stringify({ format: ISSUES_FORMAT, space, asOf, issues: inTaskOrder(records.issues) }), { level: 6 }),
  );
  const columns: ObjectRef[] = [];
  for (const [index, body] of columnParts(all.map(compactOf), asOf, snapshot, limits).entries())
    columns.push(await put(snapshotColumnsPartKey(space, slot, index), body));
  const manifest: SnapshotManifest = {
    format: MANIFEST_FORMAT,
    runsFormat: SNAPSHOT_FORMAT,
    columnsFormat: COLUMNS_FORMAT,
    space,
    slot,
    asOf,
    count: all.length,
    runs: runsRef,
    issues: issuesRef,
    columns,
    snapshot,
    writtenAt: clock.now().toISOString(),
    ...(rebuiltAt ? { rebuiltAt } : {}),
  };
  const written = await objects.putIfMatch(
    snapshotManifestKey(space),
    JSON.stringify(manifest),
    previous.etag,
    'application/json',
  );
  return written ? manifest : null;
}

/**
 * The columns bodies (gzip) of the runs cut into parts of at most `limits.runs`. Every part is compressed
 * once as it is written; should one come out above `limits.bytes`, it is halved and the parts (whose
 * count every header carries) are encoded again. A space always has one part at least.
 */
function columnParts(runs: CompactRun[], asOf: string, snapshot: string, limits: ColumnPartLimits): Buffer[] {
  let cuts: CompactRun[][] = [];
  for (let start = 0; start < runs.length || start === 0; start += limits.runs)
    cuts.push(runs.slice(start, start + limits.runs));
  for (;;) {
    const bodies = cuts.map((cut, index) =>
      gzipSync(columnsToBytes(encodeColumns(cut, asOf, { index, count: cuts.length, snapshot })), { level: 6 }),
    );
    const halved = cuts.flatMap((cut, k) =>
      bodies[k]!.length > limits.bytes && cut.length > 1
        ? [cut.slice(0, Math.ceil(cut.length / 2)), cut.slice(Math.ceil(cut.length / 2))]
        : [cut],
    );
    // Nothing left to halve: done (a single run too big for an answer stays whole, and its part is refused with 413).
    if (halved.length === cuts.length) return bodies;
    cuts = halved;
  }
}
