// Serves `GET /api/spaces/{space}/columns`: every run of a space in the compact columnar form of
// columns.ts, gzip-compressed. Reading 100k rows from the table on every page load would take seconds,
// so each process (a warm Lambda, the local server) keeps a snapshot per space and per store and brings it
// up to date with the same `since` query the row API answers, which reads only what changed.
//
// The served body may trail the snapshot by up to REENCODE_AFTER_MS: encoding 100k runs costs a few
// hundred milliseconds, and the body's own `asOf` makes that safe — the cockpit asks the row API for
// everything since it, so a stale body only means a slightly larger first delta, never a missed row.
import { gzipSync } from 'node:zlib';
import type { HttpAnswer } from '../http.ts';
import type { RunStore } from '../ports.ts';
import { compactRun, encodeColumns, type CompactRun } from './columns.ts';

export const REENCODE_AFTER_MS = 10_000;
const PAGE = 1000;

interface Encoded {
  json: Buffer;
  gzip: Buffer;
  at: number;
}

interface Snapshot {
  runs: Map<string, CompactRun>;
  asOf: string | null;
  changedSinceEncoding: boolean;
  encoded: Encoded | null;
  /** A refresh in flight: concurrent requests share it instead of querying the table again. */
  refreshing: Promise<void> | null;
}

const snapshots = new WeakMap<RunStore, Map<string, Snapshot>>();

export async function columnsAnswer(
  runs: RunStore,
  space: string,
  asOfNow: () => string,
  acceptsGzip: boolean,
  nowMs: () => number = Date.now,
): Promise<HttpAnswer> {
  const snapshot = snapshotOf(runs, space);
  snapshot.refreshing ??= refresh(runs, space, snapshot, asOfNow()).finally(() => (snapshot.refreshing = null));
  await snapshot.refreshing;

  let encoded = snapshot.encoded;
  if (!encoded || (snapshot.changedSinceEncoding && nowMs() - encoded.at >= REENCODE_AFTER_MS)) {
    const json = Buffer.from(JSON.stringify(encodeColumns(snapshot.runs.values(), snapshot.asOf!)));
    encoded = snapshot.encoded = { json, gzip: gzipSync(json, { level: 6 }), at: nowMs() };
    snapshot.changedSinceEncoding = false;
  }
  return {
    status: 200,
    body: acceptsGzip ? encoded.gzip : encoded.json,
    contentType: 'application/json',
    // Browsers may reuse it briefly: the cockpit fetches every later change through `since` anyway.
    headers: { 'cache-control': 'private, max-age=5', vary: 'accept-encoding', ...(acceptsGzip ? { 'content-encoding': 'gzip' } : {}) },
  };
}

function snapshotOf(runs: RunStore, space: string): Snapshot {
  let bySpace = snapshots.get(runs);
  if (!bySpace) snapshots.set(runs, (bySpace = new Map()));
  let snapshot = bySpace.get(space);
  if (!snapshot) bySpace.set(space, (snapshot = { runs: new Map(), asOf: null, changedSinceEncoding: true, encoded: null, refreshing: null }));
  return snapshot;
}

/** Reads every row updated at or after the snapshot's asOf (all rows the first time) and merges them by id. */
async function refresh(runs: RunStore, space: string, snapshot: Snapshot, nextAsOf: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await runs.listRuns(space, { since: snapshot.asOf ?? undefined, cursor, limit: PAGE });
    for (const row of page.items) snapshot.runs.set(row.id, compactRun(row));
    if (page.items.length) snapshot.changedSinceEncoding = true;
    cursor = page.cursor ?? undefined;
  } while (cursor);
  snapshot.asOf = nextAsOf;
}
