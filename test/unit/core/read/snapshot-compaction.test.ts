// The bounded compactor (issue 40): a compaction adds a part of what changed, never rewriting the snapshot, so
// what it writes follows the change and not the table; readers and the columns route see each run once, as the
// newest part has it; a merge into the base and a fold of the deltas leave every figure as it was. Over
// in-memory ports; the wiring is test/adapters/run-snapshot.test.ts, the memory bound
// test/adapters/snapshot-compactor-memory.test.ts.
import { gunzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { parquetReadObjects } from 'hyparquet';
import { columnsFromBytes, compactOf, type CompactRun } from '#analytics/columns.ts';
import { RunTable } from '#analytics/run-table.ts';
import { answerRead } from '#core/read/read-api.ts';
import { runPartOf } from '#core/read/run-dataset.ts';
import {
  compactSpace,
  FULL_REBUILD_EVERY_MS,
  loadSpaceRuns,
  readManifest,
  type ColumnPartLimits,
  type MergePolicy,
  type TimeLeft,
} from '#core/read/snapshot-store.ts';
import { DATA_OBJECT_GRANTS, runDatasetSpacePrefix, snapshotRebuildKey } from '#core/storage-layout.ts';
import { snapshotRun } from '#analytics/run-snapshot.ts';
import { parseConfig } from '#schema/config.ts';
import { runId } from '#schema/run.ts';
import { InMemoryObjectStore, InMemoryTable } from '../../../helpers/in-memory-ports.ts';
import { grantedOnly } from '#adapters/local/granted-object-store.ts';
import { storedIssue } from '../../../helpers/records.ts';
import { snapshotWorld } from '../../../helpers/snapshot-world.ts';

const SPACE = 'S';
const config = parseConfig({ spaces: { [SPACE]: { senders: ['mac-studio-1'] } } });
const LIMITS: ColumnPartLimits = { runs: 100, bytes: 1_000_000 };

/** The data bucket, counting what is written under the snapshot's parts. */
class CountingObjects extends InMemoryObjectStore {
  partPuts = 0;
  partBytes = 0;
  override async put(key: string, body: string | Uint8Array, contentType?: string): Promise<void> {
    if (key.includes('/parts/')) {
      this.partPuts++;
      this.partBytes += Buffer.byteLength(body);
    }
    return super.put(key, body, contentType);
  }
}

let t: { store: InMemoryTable; data: CountingObjects };
beforeEach(() => {
  t = { store: new InMemoryTable(), data: new CountingObjects() };
});
const { run, coldProcess, stats, seededSpace } = snapshotWorld(config, () => t);

/**
 * The compactor's clock: each compaction ten minutes after the last (as the schedule runs it, well past the
 * `asOf` safety margin), each change a minute after the last compaction.
 */
let clock = Date.now();
const later = () => new Date(clock + 60_000).toISOString();

/** The table's revision of each run written again, by task. */
let revisions = new Map<string, number>();
beforeEach(() => {
  revisions = new Map();
});

/** Re-judges `count` of the first `among` seeded runs and lands `fresh` new ones. */
async function change(round: number, count: number, fresh: number, among: number) {
  for (let k = 0; k < count; k++) {
    const task = `t${(round * 7 + k * 13) % among}`;
    const revision = revisions.get(task) ?? 1;
    expect(await t.store.putRun(run(SPACE, task, (round + k) % 2 ? 'wrong' : 'resolved', later()), revision)).toBe(
      true,
    );
    revisions.set(task, revision + 1);
  }
  for (let k = 0; k < fresh; k++) await t.store.putRun(run(SPACE, `new-${round}-${k}`, 'resolved', later()), null);
}

const compact = (policy?: MergePolicy, timeLeft?: TimeLeft) => {
  clock += 10 * 60_000;
  return compactSpace(
    { ...coldProcess().deps, clock: { now: () => new Date(clock) } },
    SPACE,
    LIMITS,
    policy,
    timeLeft,
  );
};

/** Every run of the table, as the cockpit sees it, by id. */
async function truth(): Promise<Map<string, CompactRun>> {
  const page = await t.store.listRuns(SPACE, { limit: 100_000 });
  return new Map(page.items.map((row) => [row.id, compactOf(snapshotRun(row))]));
}

/** The table the cockpit builds from the columns route's parts, in the order they apply. */
async function cockpitTable(): Promise<RunTable> {
  const { deps } = coldProcess();
  const get = async (query: string) =>
    columnsFromBytes(
      gunzipSync(
        (await answerRead(deps, 'GET', `/api/spaces/${SPACE}/columns`, query, { 'accept-encoding': 'gzip' }))
          .body as Buffer,
      ),
    );
  const first = await get('');
  const rest = await Promise.all(
    Array.from({ length: first.part.count - 1 }, (_, k) =>
      get(`part=${k + 1}&snapshot=${encodeURIComponent(first.part.snapshot!)}`),
    ),
  );
  return RunTable.fromColumns([...rest, first], first.part.base);
}

function runsOf(table: RunTable): Map<string, CompactRun> {
  const runs = new Map<string, CompactRun>();
  for (let i = 0; i < table.size; i++) {
    expect(runs.has(table.id(i))).toBe(false);
    runs.set(table.id(i), table.compactAt(i));
  }
  return runs;
}

describe('the bounded compactor', () => {
  it('writes per compaction a part as big as the change, whatever the size of the table', async () => {
    const written = async (seeded: number, changed: number) => {
      t = { store: new InMemoryTable(), data: new CountingObjects() };
      revisions = new Map();
      await seededSpace(SPACE, seeded, LIMITS);
      const figures: { kind: string; puts: number; bytes: number }[] = [];
      for (let round = 0; round < 4; round++) {
        await change(round, changed, 0, seeded);
        const [puts, bytes] = [t.data.partPuts, t.data.partBytes];
        const result = await compact();
        figures.push({ kind: result.kind, puts: t.data.partPuts - puts, bytes: t.data.partBytes - bytes });
      }
      const base = (await readManifest(t.data, SPACE))!.parts.filter((p) => p.kind === 'base');
      return { figures, baseBytes: base.reduce((n, p) => n + p.runs.bytes + p.columns.bytes, 0) };
    };
    const small = await written(500, 5);
    const big = await written(2000, 5);
    const moreChanged = await written(2000, 50);
    for (const { figures } of [small, big, moreChanged])
      // A runs object and a columns body each time: the delta part; no base part is read or written.
      expect(figures).toEqual(figures.map((f) => ({ ...f, kind: 'delta', puts: 2 })));
    const mean = (f: { bytes: number }[]) => f.reduce((n, x) => n + x.bytes, 0) / f.length;
    // Four times the table, the same bytes (give or take gzip's); a small part of what the base holds.
    expect(Math.abs(mean(big.figures) / mean(small.figures) - 1)).toBeLessThan(0.05);
    expect(mean(big.figures)).toBeLessThan(big.baseBytes / 20);
    // Each more run changed adds about what a run takes in the base, at most twice that.
    const perChangedRun = (mean(moreChanged.figures) - mean(big.figures)) / 45;
    expect(perChangedRun).toBeGreaterThan(0);
    expect(perChangedRun).toBeLessThan((2 * big.baseBytes) / 2000);
  });

  it('shows every current run once, as the table has it, after many compactions, merges and folds', async () => {
    const seeded = 600;
    await seededSpace(SPACE, seeded, LIMITS);
    const kinds = new Set<string>();
    for (let round = 0; round < 40; round++) {
      await change(round, 3 + (round % 4), round % 3, seeded);
      const result = await compact({ mergeShare: 0.1, maxDeltaParts: 4 });
      kinds.add(result.kind);
      expect(result.written).toBe(true);
    }
    expect([...kinds].sort()).toEqual(['delta', 'folded', 'merged']);
    const expected = await truth();
    // The columns route's parts, applied in order, as the cockpit does.
    expect(runsOf(await cockpitTable())).toEqual(expected);
    // The runs a read process loads from the runs objects.
    const loaded = await loadSpaceRuns(coldProcess().deps, SPACE);
    expect(loaded.source).toBe('persisted');
    expect(new Map([...loaded.runs].map(([id, r]) => [id, compactOf(r)]))).toEqual(expected);
    const cold = coldProcess();
    const figures = await stats(cold.deps, SPACE);
    expect(figures.groups).toEqual([expect.objectContaining({ runs: expected.size, n: expected.size })]);
    expect(cold.wholeReads()).toBe(0);
  });

  it('merges the deltas into the base with every figure as it was, keeping the base parts no delta touched', async () => {
    await seededSpace(SPACE, 450, LIMITS);
    // No merge yet: the deltas stay below the share.
    const lax = { mergeShare: 1, maxDeltaParts: 100 };
    for (let round = 0; round < 3; round++) {
      await change(round, 5, 2, 100);
      expect(await compact(lax)).toMatchObject({ kind: 'delta' });
    }
    const before = (await readManifest(t.data, SPACE))!;
    expect(before.parts.map((p) => p.kind)).toEqual([
      'base',
      'base',
      'base',
      'base',
      'base',
      'delta',
      'delta',
      'delta',
    ]);
    const figuresBefore = await stats(coldProcess().deps, SPACE);
    const tableBefore = runsOf(await cockpitTable());

    // No run changed since, an issue record of another task did: the merge alone, forced by a share of zero.
    await t.store.putIssue(storedIssue({ taskId: 'elsewhere' }, { space: SPACE, updatedAt: later() }));
    expect(await compact({ mergeShare: 0, maxDeltaParts: 100 })).toMatchObject({ kind: 'merged', written: true });
    const after = (await readManifest(t.data, SPACE))!;
    expect(after.parts.every((p) => p.kind === 'base')).toBe(true);
    expect(after.count).toBe(tableBefore.size);
    expect({ ...(await stats(coldProcess().deps, SPACE)), asOf: null }).toEqual({ ...figuresBefore, asOf: null });
    expect(runsOf(await cockpitTable())).toEqual(tableBefore);
    // A base part holding none of the runs the deltas held is kept as it was; the others are written anew.
    const touched = new Set(
      [...revisions.keys()].map((taskId) => runId({ model: 'qwen3:8b', taskId, harnessVersion: 'h1' })),
    );
    const { deps } = coldProcess();
    for (const part of before.parts.filter((p) => p.kind === 'base')) {
      const runs = await loadSpaceRuns(deps, SPACE, { ...before, parts: [part] });
      const kept = after.parts.some((p) => p.columns.key === part.columns.key);
      expect({ part: part.columns.key, kept }).toEqual({
        part: part.columns.key,
        kept: ![...runs.runs.keys()].some((id) => touched.has(id)),
      });
    }
  });

  it('folds many small deltas into one, leaving the base as it is', async () => {
    await seededSpace(SPACE, 250, LIMITS);
    const policy = { mergeShare: 1, maxDeltaParts: 3 };
    const kinds: string[] = [];
    for (let round = 0; round < 5; round++) {
      await change(round, 2, 0, 250);
      kinds.push((await compact(policy)).kind);
    }
    expect(kinds).toEqual(['delta', 'delta', 'delta', 'folded', 'delta']);
    const manifest = (await readManifest(t.data, SPACE))!;
    expect(manifest.parts.map((p) => p.kind)).toEqual(['base', 'base', 'base', 'delta', 'delta']);
    expect(runsOf(await cockpitTable())).toEqual(await truth());
  });
});

describe("a rebuild cut short by its function's time", () => {
  /** A function with time for `pages` pages of the table (a thousand runs each), then none. */
  const timeFor = (pages: number): TimeLeft => {
    let left = pages;
    return () => (left-- > 0 ? Infinity : 0);
  };
  /** The run ids of the newest sealed rebuild's Parquet parts, as often as they hold them, and of the deltas after it. */
  async function datasetRows(): Promise<{ rebuild: string[]; after: string[] }> {
    const parts = (await t.data.list(runDatasetSpacePrefix(SPACE))).map((key) => ({ key, ...runPartOf(key)! }));
    const rebuilt = Math.max(...parts.filter((p) => p.kind === 'sealed').map((p) => p.writtenAt.getTime()));
    const idsIn = async (kept: typeof parts) => {
      const ids: string[] = [];
      for (const { key } of kept) {
        const bytes = (await t.data.getBytes(key))!;
        const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
        ids.push(...(await parquetReadObjects({ file, columns: ['id'] })).map((r) => r['id'] as string));
      }
      return ids;
    };
    return {
      rebuild: await idsIn(parts.filter((p) => p.kind === 'rebuild' && p.writtenAt.getTime() === rebuilt)),
      after: await idsIn(parts.filter((p) => p.kind === 'delta' && p.writtenAt.getTime() > rebuilt)),
    };
  }

  it('goes on where it stopped, the cockpit current meanwhile, every run once in the rebuild', async () => {
    await seededSpace(SPACE, 2500, LIMITS);
    const kept = await readManifest(t.data, SPACE);
    clock = Date.now() + FULL_REBUILD_EVERY_MS;
    // Time for a page of three: the rebuild keeps how far it got.
    expect(await compact(undefined, timeFor(1))).toMatchObject({ kind: 'rebuilding', written: false });
    expect(await t.data.getText(snapshotRebuildKey(SPACE))).not.toBeNull();
    // Runs judged again and landed meanwhile: the next compaction brings the snapshot up to date first.
    await change(0, 6, 3, 2500);
    expect(await compact(undefined, timeFor(1))).toMatchObject({ kind: 'rebuilding', changed: 9, written: true });
    expect(runsOf(await cockpitTable())).toEqual(await truth());
    await change(1, 4, 2, 2500);
    expect(await compact(undefined, timeFor(1))).toMatchObject({ kind: 'rebuilt' });
    expect(await t.data.getText(snapshotRebuildKey(SPACE))).toBeNull();
    const manifest = (await readManifest(t.data, SPACE))!;
    expect(manifest.rebuiltAt).not.toBe(kept!.rebuiltAt);
    expect(manifest.parts.every((p) => p.kind === 'base')).toBe(true);
    // Read with the table's changes since its `asOf`, as every reader does: the table's runs, each once.
    const expected = await truth();
    const cold = coldProcess();
    expect((await stats(cold.deps, SPACE)).groups).toEqual([
      expect.objectContaining({ runs: expected.size, n: expected.size }),
    ]);
    expect(cold.wholeReads()).toBe(0);
    // The rebuild's Parquet parts hold no run twice; with the deltas written while it ran, they hold every run.
    const { rebuild, after } = await datasetRows();
    expect(rebuild.length).toBe(new Set(rebuild).size);
    expect(new Set([...rebuild, ...after])).toEqual(new Set(expected.keys()));
    // The next compaction's delta holds what changed during the rebuild: the cockpit's parts are the table.
    expect(await compact()).toMatchObject({ kind: 'delta' });
    expect(runsOf(await cockpitTable())).toEqual(expected);
  });

  it('writes no run twice when it stops between writing a part and keeping how far it got', async () => {
    await seededSpace(SPACE, 2500, LIMITS);
    clock = Date.now() + FULL_REBUILD_EVERY_MS;
    // The function dies after the second page's parts are written, before the progress is: that page is read again.
    const put = t.data.put.bind(t.data);
    let progressPuts = 0;
    t.data.put = async (key, body, type) => {
      if (key === snapshotRebuildKey(SPACE) && ++progressPuts === 2) throw new Error('the function timed out');
      return put(key, body, type);
    };
    await expect(compact()).rejects.toThrow('the function timed out');
    t.data.put = put;
    expect(await compact()).toMatchObject({ kind: 'rebuilt', runs: 2500 });
    const { rebuild } = await datasetRows();
    expect(rebuild).toHaveLength(2500);
    expect(new Set(rebuild).size).toBe(2500);
    expect(runsOf(await cockpitTable())).toEqual(await truth());
  });

  it('touches only objects the compactor grant allows, from the first snapshot to deleting superseded parts', async () => {
    t.data = grantedOnly(t.data, DATA_OBJECT_GRANTS['snapshot-compactor']);
    await seededSpace(SPACE, 1500, LIMITS);
    clock = Date.now();
    await change(0, 5, 2, 1500);
    const kinds = [(await compact()).kind];
    clock += FULL_REBUILD_EVERY_MS;
    kinds.push((await compact(undefined, timeFor(1))).kind, (await compact(undefined, timeFor(1))).kind);
    const before = (await t.data.list(runDatasetSpacePrefix(SPACE))).length;
    clock += 2 * 3600_000;
    kinds.push((await compact()).kind);
    expect(kinds).toEqual(['delta', 'rebuilding', 'rebuilt', 'unchanged']);
    // The parts the rebuild superseded, deleted once it was sealed an hour before: its own are what is left.
    const after = (await t.data.list(runDatasetSpacePrefix(SPACE))).map((key) => runPartOf(key)!);
    const rebuilt = Math.max(...after.filter((p) => p.kind === 'sealed').map((p) => p.writtenAt.getTime()));
    expect(after.length).toBeLessThan(before);
    expect(new Set(after.map((p) => `${p.kind} ${p.writtenAt.getTime()}`))).toEqual(
      new Set([`rebuild ${rebuilt}`, `sealed ${rebuilt}`]),
    );
  });

  it('waits, writing nothing, when another space took the time', async () => {
    await seededSpace(SPACE, 1500, LIMITS);
    clock = Date.now() + FULL_REBUILD_EVERY_MS;
    const parts = (await t.data.list(runDatasetSpacePrefix(SPACE))).length;
    await change(0, 3, 0, 1500);
    // The snapshot is still brought up to date; the rebuild neither begins nor writes a part.
    expect(await compact(undefined, timeFor(0))).toMatchObject({ kind: 'rebuilding', changed: 3, written: true });
    expect(await t.data.getText(snapshotRebuildKey(SPACE))).toBeNull();
    expect((await t.data.list(runDatasetSpacePrefix(SPACE))).map((k) => runPartOf(k)!.kind)).toEqual([
      ...Array<string>(parts - 1).fill('rebuild'),
      'sealed',
      'delta',
    ]);
    expect(await compact(undefined, timeFor(2))).toMatchObject({ kind: 'rebuilt', runs: 1500 });
  });

  it('goes on from its seal, reading nothing again, when it failed before its manifest', async () => {
    await seededSpace(SPACE, 2500, LIMITS);
    clock = Date.now() + FULL_REBUILD_EVERY_MS;
    const putIfMatch = t.data.putIfMatch.bind(t.data);
    t.data.putIfMatch = () => Promise.reject(new Error('S3 answered 503'));
    await expect(compact()).rejects.toThrow('S3 answered 503');
    t.data.putIfMatch = putIfMatch;
    // With no time to read a page, only the manifest is left to write: the sealed parts stay whole.
    expect(await compact(undefined, timeFor(0))).toMatchObject({ kind: 'rebuilt', runs: 2500, written: true });
    const { rebuild } = await datasetRows();
    expect(rebuild).toHaveLength(2500);
    expect(new Set(rebuild).size).toBe(2500);
    expect(runsOf(await cockpitTable())).toEqual(await truth());
  });
});
