// The persisted runs snapshot's rules, against in-memory ports with the table's and bucket's contracts: a cold
// read process answers from it without reading the whole table, rows that landed since are never missing, a
// snapshot that is missing, corrupt or of another format is rebuilt from the table rather than answered from,
// and one too big for an answer is served in parts. Its wiring over DynamoDB and S3 is
// test/adapters/run-snapshot.test.ts.
import { gunzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { COLUMNS_FORMAT, columnsFromBytes } from '#analytics/columns.ts';
import { answerRead } from '#core/read/read-api.ts';
import { type CompareBody, type IssuesBody } from '#analytics/contract.ts';
import {
  compactSpace,
  FULL_REBUILD_EVERY_MS,
  readManifest,
  SUPERSEDED_PART_GRACE_MS,
} from '#core/read/snapshot-store.ts';
import { runPartKey, runPartOf } from '#core/read/run-dataset.ts';
import { RunTable } from '#analytics/run-table.ts';
import {
  snapshotManifestKey as manifestKey,
  snapshotSpacePrefix as snapshotPrefix,
  spaceReadGrant,
} from '#core/storage-layout.ts';
import { parseConfig } from '#schema/config.ts';
import { runId } from '#schema/run.ts';
import { parquetReadObjects } from 'hyparquet';
import { RUN_DATASET_PREFIX } from '#core/storage-layout.ts';
import { grantedOnly } from '#adapters/local/granted-object-store.ts';
import { InMemoryObjectStore, InMemoryTable } from '../../../helpers/in-memory-ports.ts';
import { storedIssue } from '../../../helpers/records.ts';
import { snapshotWorld } from '../../../helpers/snapshot-world.ts';

// Each test has stores of its own, and its own space.
const SPACES = [
  'Granted',
  'Issues',
  'TableOnly',
  'Rebuilt',
  'Corrupt',
  'Outdated',
  'Missing',
  'Big',
  'Zipped',
  'Parts',
  'Replaced',
  'PartInput',
  'Dataset',
  'Superseded',
] as const;
const config = parseConfig({ spaces: Object.fromEntries(SPACES.map((s) => [s, { senders: ['mac-studio-1'] }])) });
let t: { store: InMemoryTable; data: InMemoryObjectStore };
beforeEach(() => {
  t = { store: new InMemoryTable(), data: new InMemoryObjectStore() };
});

const { run, coldProcess, stats, columnsOf, seededSpace } = snapshotWorld(config, () => t);
type Deps = ReturnType<typeof coldProcess>['deps'];

/** A columns answer through the route, as the cockpit asks for it. */
async function columnsRoute(deps: Deps, space: string, query = '') {
  const answer = await answerRead(deps, 'GET', `/api/spaces/${space}/columns`, query, { 'accept-encoding': 'gzip' });
  return {
    status: answer.status,
    body: answer.status === 200 ? columnsFromBytes(gunzipSync(answer.body as Buffer)) : null,
    error: answer.status === 200 ? null : (answer.body as { error: string; message: string }),
  };
}

describe('the persisted runs snapshot', () => {
  it('reads the whole table once a day, so a row the delta missed (stamped before the snapshot) gets in', async () => {
    const SPACE = 'Rebuilt';
    await seededSpace(SPACE, 5);
    const stampedEarlier = new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString();
    await t.store.putRun(run(SPACE, 'slow-writer', 'wrong', stampedEarlier), null);
    expect(await compactSpace(coldProcess().deps, SPACE)).toMatchObject({ written: false, runs: 5 });
    const aDayLater = {
      ...coldProcess().deps,
      clock: { now: () => new Date(Date.now() + FULL_REBUILD_EVERY_MS + 60_000) },
    };
    expect(await compactSpace(aDayLater, SPACE)).toMatchObject({ source: 'persisted', written: true, runs: 6 });
    expect((await readManifest(t.data, SPACE))!.rebuiltAt).toBeDefined();
  });

  it('writes a rebuild to the run dataset as parts of every run, then its seal; each later change set as one delta part, none when nothing changed', async () => {
    const SPACE = 'Dataset';
    const partsOf = async () => t.data.list(`${RUN_DATASET_PREFIX}space=${SPACE}/`);
    const rowsIn = async (key: string) => {
      const bytes = (await t.data.getBytes(key))!;
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      const rows = await parquetReadObjects({ file, columns: ['id', 'partKind'] });
      return rows.map((r) => `${r['partKind']} ${r['id']}`).sort();
    };
    await seededSpace(SPACE, 3);
    const rebuilt = await partsOf();
    expect(rebuilt.map((key) => runPartOf(key)?.kind).sort()).toEqual(['rebuild', 'sealed']);
    const [rebuild, seal] = [
      rebuilt.find((k) => k.includes('-rebuild-'))!,
      rebuilt.find((k) => k.includes('-sealed-'))!,
    ];
    expect(await rowsIn(rebuild)).toHaveLength(3);
    expect(await rowsIn(seal)).toEqual(['sealed null']);
    expect(runPartOf(rebuild)!.writtenAt).toEqual(runPartOf(seal)!.writtenAt);
    expect(rebuild).toMatch(
      new RegExp(`^${RUN_DATASET_PREFIX}space=${SPACE}/day=\\d{4}-\\d{2}-\\d{2}/\\d{13}-rebuild-[^/]+\\.parquet$`),
    );
    await compactSpace(coldProcess().deps, SPACE);
    expect(await partsOf()).toEqual(rebuilt);
    const later = run(SPACE, 'late', 'resolved', new Date(Date.now() + 1000).toISOString());
    await t.store.putRun(later, null);
    await compactSpace(coldProcess().deps, SPACE);
    const parts = await partsOf();
    expect(parts).toHaveLength(3);
    expect(await rowsIn(parts.find((k) => !rebuilt.includes(k))!)).toEqual([`delta ${later.id}`]);
  });

  it('deletes the dataset parts a sealed rebuild supersedes an hour after it began, keeping the deltas written since it began', async () => {
    const SPACE = 'Superseded';
    const partsOf = async () => (await t.data.list(`${RUN_DATASET_PREFIX}space=${SPACE}/`)).map((k) => runPartOf(k)!);
    const at = (ms: number) => ({ ...coldProcess().deps, clock: { now: () => new Date(ms) } });
    const start = Date.parse('2026-12-01T00:00:00.000Z');
    await t.store.putRun(run(SPACE, 'first', 'wrong', new Date(start).toISOString()), null);
    await compactSpace(at(start), SPACE);
    await t.store.putRun(run(SPACE, 'first', 'resolved', new Date(start + 60_000).toISOString()), 1);
    await compactSpace(at(start + 120_000), SPACE);
    const nextDay = start + FULL_REBUILD_EVERY_MS + 180_000;
    // A rebuild without its seal (cut off) supersedes nothing.
    await t.data.put(runPartKey(SPACE, new Date(nextDay - 60_000), 'rebuild', 'cut-off'), 'its runs');
    expect(await compactSpace(at(nextDay), SPACE)).toMatchObject({ kind: 'rebuilt' });
    // Landed while the rebuild ran, after its read of the table: the next compaction's delta holds it.
    await t.store.putRun(run(SPACE, 'during', 'resolved', new Date(nextDay + 1000).toISOString()), null);
    await compactSpace(at(nextDay + 300_000), SPACE);
    const kinds = (parts: { kind: string }[]) => parts.map((p) => p.kind).sort();
    expect(kinds(await partsOf())).toEqual(['delta', 'delta', 'rebuild', 'rebuild', 'rebuild', 'sealed', 'sealed']);
    // An hour after the second rebuild began, what was written before it goes; its parts and the later delta stay.
    await compactSpace(at(nextDay + SUPERSEDED_PART_GRACE_MS), SPACE);
    const left = await partsOf();
    expect(kinds(left)).toEqual(['delta', 'rebuild', 'sealed']);
    expect(left.every((p) => p.writtenAt.getTime() >= nextDay)).toBe(true);
  });

  it('gives a cold process /stats and /compare from its columns parts, never decoding its runs document; later rows come from the delta', async () => {
    const SPACE = 'TableOnly';
    // A second model on the first twenty tasks, resolving the even ones, for /compare to pair.
    await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        t.store.putRun(run(SPACE, `t${k}`, k % 2 ? 'wrong' : 'resolved', '2026-01-01T00:00:00.000Z', 'other'), null),
      ),
    );
    await seededSpace(SPACE, 30);
    const truth = await stats(coldProcess().deps, SPACE);
    const comparison = async (deps: Deps) =>
      (
        await answerRead(
          deps,
          'GET',
          `/api/spaces/${SPACE}/compare`,
          'aModel=qwen3%3A8b&aHarness=h1&bModel=other&bHarness=h1',
        )
      ).body as CompareBody;
    const truthCompared = await comparison(coldProcess().deps);
    expect(truthCompared).toMatchObject({ pairs: 20, bothResolved: 5, aOnly: 5, bOnly: 5 });
    // The runs document no longer checks out: a process that read it would have to read the whole table.
    const manifest = (await readManifest(t.data, SPACE))!;
    for (const part of manifest.parts) await t.data.put(part.runs.key, 'not the runs');
    const cold = coldProcess();
    expect(await stats(cold.deps, SPACE)).toEqual({ ...truth, asOf: expect.any(String) });
    expect(await comparison(cold.deps)).toEqual({ ...truthCompared, asOf: expect.any(String) });
    expect(cold.wholeReads()).toBe(0);

    await t.store.putRun(run(SPACE, 'late-1', 'resolved', new Date().toISOString()), null);
    await t.store.putRun(run(SPACE, 't12', 'resolved', new Date().toISOString()), 1);
    expect((await stats(cold.deps, SPACE)).groups).toEqual(
      expect.arrayContaining([expect.objectContaining({ model: 'qwen3:8b', runs: 31, n: 31, resolved: 12 })]),
    );
    expect(cold.wholeReads()).toBe(0);
  });

  it('that is corrupt is never answered from: readers read the table, and the next merge or rebuild writes it anew', async () => {
    const SPACE = 'Corrupt';
    await seededSpace(SPACE, 32);
    const manifest = (await readManifest(t.data, SPACE))!;
    const truth = await stats(coldProcess().deps, SPACE);
    // Same length, different bytes: the hash catches it. And a columns body that is not gzip at all.
    const part = manifest.parts[0]!;
    const bytes = Buffer.from((await t.data.getBytes(part.runs.key))!);
    bytes[bytes.length - 9]! ^= 0xff;
    await t.data.put(part.runs.key, bytes);
    await t.data.put(part.columns.key, 'not gzip');

    const cold = coldProcess();
    expect(await stats(cold.deps, SPACE)).toEqual({ ...truth, asOf: expect.any(String) });
    expect(cold.wholeReads()).toBe(1);
    const coldColumns = coldProcess();
    expect((await columnsOf(coldColumns.deps, SPACE)).count).toBe(32);
    expect(coldColumns.wholeReads()).toBe(1);

    // A delta compaction reads no part; a merge meets the bad one and reads the table instead.
    await Promise.all(
      Array.from({ length: 4 }, (_, k) => t.store.putRun(run(SPACE, `t${k}`, 'wrong', new Date().toISOString()), 1)),
    );
    expect(await compactSpace(coldProcess().deps, SPACE)).toMatchObject({
      source: 'corrupt',
      kind: 'rebuilt',
      written: true,
      runs: 32,
    });
    const healed = coldProcess();
    expect((await stats(healed.deps, SPACE)).groups).toEqual([
      expect.objectContaining({ runs: 32, n: 32, resolved: 6 }),
    ]);
    expect(healed.wholeReads()).toBe(0);
  });

  it('written in another format (by the code before a deploy) is rebuilt from the table, not served', async () => {
    const SPACE = 'Outdated';
    await seededSpace(SPACE, 15);
    const manifest = (await readManifest(t.data, SPACE))!;
    // Hashes all check out: only the formats say the objects are not what this code reads.
    await t.data.put(manifestKey(SPACE), JSON.stringify({ ...manifest, columnsFormat: 'replay-run-columns/1' }));
    const cold = coldProcess();
    expect((await columnsOf(cold.deps, SPACE)).count).toBe(15);
    expect(cold.wholeReads()).toBe(1);
    expect(await compactSpace(coldProcess().deps, SPACE)).toMatchObject({ source: 'corrupt', written: true });
    expect(await readManifest(t.data, SPACE)).toMatchObject({ columnsFormat: COLUMNS_FORMAT });
  });

  it('that is missing, or whose manifest is not JSON, is rebuilt from the table', async () => {
    const SPACE = 'Missing';
    await seededSpace(SPACE, 32);
    await t.data.put(manifestKey(SPACE), '{"format": ');
    const cold = coldProcess();
    expect((await columnsOf(cold.deps, SPACE)).count).toBe(32);
    expect(cold.wholeReads()).toBe(1);
    for (const key of await t.data.list(snapshotPrefix(SPACE))) await t.data.delete(key);
    const empty = coldProcess();
    expect((await stats(empty.deps, SPACE)).groups[0]).toMatchObject({ runs: 32 });
    expect(empty.wholeReads()).toBe(1);
    expect(await compactSpace(coldProcess().deps, SPACE)).toMatchObject({ source: 'missing', written: true });
  });

  it('becomes a 413 with a sentence, never a failed invocation, when an answer would not fit the transport', async () => {
    const SPACE = 'Big';
    await seededSpace(SPACE, 40);
    const { deps } = coldProcess();
    const limited = { ...deps, maxAnswerBytes: 300 };
    for (const [path, error] of [
      [`/api/spaces/${SPACE}/columns`, 'columns-too-large'],
      [`/api/spaces/${SPACE}/export.csv`, 'export-too-large'],
    ] as const) {
      const answer = await answerRead(limited, 'GET', path, '', { 'accept-encoding': 'gzip' });
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({
        error,
        message: expect.stringMatching(/MB compressed, more than one answer/),
      });
      expect((await answerRead(deps, 'GET', path, '', { 'accept-encoding': 'gzip' })).status).toBe(200);
    }
  });

  it('compresses a large JSON answer for a client that accepts gzip, and only then', async () => {
    const SPACE = 'Zipped';
    await seededSpace(SPACE, 40);
    const { deps } = coldProcess();
    const zipped = await answerRead(deps, 'GET', `/api/spaces/${SPACE}/runs`, 'limit=40', {
      'accept-encoding': 'gzip, br',
    });
    expect(zipped.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'accept-encoding' });
    expect((JSON.parse(gunzipSync(zipped.body as Buffer).toString()) as { runs: unknown[] }).runs).toHaveLength(40);
    const plain = await answerRead(deps, 'GET', `/api/spaces/${SPACE}/runs`, 'limit=40');
    expect(plain.headers?.['content-encoding']).toBeUndefined();
    expect((plain.body as { runs: unknown[] }).runs).toHaveLength(40);
    // A weight of zero refuses the coding, and a coding that merely contains the word is another one.
    for (const refusing of ['gzip;q=0, br', 'br, GZIP; q=0.0', 'x-gzip-not']) {
      const answer = await answerRead(deps, 'GET', `/api/spaces/${SPACE}/runs`, 'limit=40', {
        'accept-encoding': refusing,
      });
      expect([refusing, answer.headers?.['content-encoding']]).toEqual([refusing, undefined]);
    }
    const weighted = await answerRead(deps, 'GET', `/api/spaces/${SPACE}/runs`, 'limit=40', {
      'accept-encoding': 'br;q=1, gzip;q=0.5',
    });
    expect(weighted.headers?.['content-encoding']).toBe('gzip');
  });

  it('too big for one answer is written in parts, which together are every run, each within the limit', async () => {
    const SPACE = 'Parts';
    await seededSpace(SPACE, 25, { runs: 10, bytes: 1_000_000 });
    const manifest = (await readManifest(t.data, SPACE))!;
    expect(manifest.parts.map((p) => p.count)).toEqual([10, 10, 5]);

    // A cold process and one that already holds the runs (it answered /stats) both serve the first part.
    for (const warm of [false, true]) {
      const reader = coldProcess();
      if (warm) await stats(reader.deps, SPACE);
      const first = await columnsRoute(reader.deps, SPACE);
      // The first answer is the last part written, which names the layout: three parts, all of distinct runs.
      expect(first.body!.part).toEqual({ index: 0, count: 3, snapshot: manifest.snapshot, base: 3 });
      const rest = await Promise.all(
        [1, 2].map((part) =>
          columnsRoute(reader.deps, SPACE, `part=${part}&snapshot=${encodeURIComponent(manifest.snapshot)}`),
        ),
      );
      expect(rest.map((r) => r.body!.count)).toEqual([10, 10]);
      const table = RunTable.fromColumns([...rest.map((r) => r.body!), first.body!], first.body!.part.base);
      expect(table.size).toBe(25);
      const ids = Array.from({ length: 25 }, (_, k) => table.id(k)).sort();
      expect(ids).toEqual(
        Array.from({ length: 25 }, (_, k) =>
          runId({ model: 'qwen3:8b', taskId: `t${k}`, harnessVersion: 'h1' }),
        ).sort(),
      );
      expect(reader.wholeReads()).toBe(0);
    }

    // A byte limit cuts finer than the run limit, so every part fits whatever its runs hold. (Below some
    // 430 bytes not even one run fits: gzip's and the header's own bytes.)
    const small = manifest.parts[0]!.columns.bytes - 40;
    await compactSpace(
      { ...coldProcess().deps, clock: { now: () => new Date(Date.now() + FULL_REBUILD_EVERY_MS) } },
      SPACE,
      { runs: 10, bytes: small },
    );
    const finer = (await readManifest(t.data, SPACE))!;
    expect(finer.parts.length).toBeGreaterThan(3);
    expect(finer.parts.every((part) => part.columns.bytes <= small)).toBe(true);
  });

  it('answers 409 for a part of a snapshot that was replaced, so a cockpit never mixes two snapshots', async () => {
    const SPACE = 'Replaced';
    const limits = { runs: 5, bytes: 1_000_000 };
    await seededSpace(SPACE, 12, limits);
    const reader = coldProcess();
    const first = await columnsRoute(reader.deps, SPACE);
    const { snapshot } = first.body!.part;
    // A compaction later, the process that named the snapshot still serves its parts: none is written over.
    await t.store.putRun(run(SPACE, 'late', 'wrong', new Date().toISOString()), null);
    await compactSpace(coldProcess().deps, SPACE, limits);
    expect(
      (await columnsRoute(reader.deps, SPACE, `part=2&snapshot=${encodeURIComponent(snapshot!)}`)).body!.count,
    ).toBe(5);
    // A process that has read the newer manifest refuses the older snapshot's parts.
    const stale = await columnsRoute(coldProcess().deps, SPACE, `part=1&snapshot=${encodeURIComponent(snapshot!)}`);
    expect(stale).toMatchObject({
      status: 409,
      error: {
        error: 'snapshot-replaced',
        message: expect.stringMatching(/load the columns again from the first part/),
      },
    });
    const again = await columnsRoute(coldProcess().deps, SPACE);
    // Three base parts and the delta of one run, which is the first answer.
    expect(again.body!.part).toMatchObject({ index: 0, count: 4, base: 3 });
    expect(again.body!.count).toBe(1);
    expect(again.body!.part.snapshot).not.toBe(snapshot);
  });

  it('refuses a part request it cannot serve, with a sentence', async () => {
    const SPACE = 'PartInput';
    await seededSpace(SPACE, 6, { runs: 4, bytes: 1_000_000 });
    const { snapshot } = (await readManifest(t.data, SPACE))!;
    const { deps } = coldProcess();
    const cases: [string, number, string][] = [
      ['part=1', 400, 'bad-part'],
      [`snapshot=${encodeURIComponent(snapshot)}`, 400, 'bad-part'],
      [`part=0&snapshot=${encodeURIComponent(snapshot)}`, 400, 'bad-part'],
      [`part=one&snapshot=${encodeURIComponent(snapshot)}`, 400, 'bad-part'],
      [`part=-1&snapshot=${encodeURIComponent(snapshot)}`, 400, 'bad-part'],
      [`part=2&snapshot=${encodeURIComponent(snapshot)}`, 404, 'no-such-part'],
      ['part=1&snapshot=someone-else', 409, 'snapshot-replaced'],
    ];
    for (const [query, status, error] of cases)
      expect({ query, ...(await columnsRoute(deps, SPACE, query)) }).toMatchObject({ query, status, error: { error } });
    expect((await columnsRoute(deps, SPACE, `part=1&snapshot=${encodeURIComponent(snapshot)}`)).body!.count).toBe(4);
  });

  it('keeps the issue records: a cold process answers /issues from it and the records changed since, never listing them all', async () => {
    const SPACE = 'Issues';
    const at = new Date(Date.now() - 60_000).toISOString();
    for (const taskId of ['t0', 't1', 't2'])
      await t.store.putIssue(storedIssue({ taskId, tier: 'easy' }, { space: SPACE, updatedAt: at }));
    await seededSpace(SPACE, 3);
    await t.store.putIssue(
      storedIssue({ taskId: 't1', tier: 'hard' }, { space: SPACE, updatedAt: new Date().toISOString() }),
    );
    await t.store.putIssue(storedIssue({ taskId: 't3' }, { space: SPACE, updatedAt: new Date().toISOString() }));
    const truth = await t.store.listIssues(SPACE);
    expect(truth.map((i) => [i.taskId, i.tier])).toEqual([
      ['t0', 'easy'],
      ['t1', 'hard'],
      ['t2', 'easy'],
      ['t3', 'easy'],
    ]);

    const issuesOf = async (deps: Deps) =>
      (await answerRead(deps, 'GET', `/api/spaces/${SPACE}/issues`, '')).body as IssuesBody;
    const cold = coldProcess();
    expect(await issuesOf(cold.deps)).toEqual({ issues: truth });
    expect(cold.wholeIssueReads()).toBe(0);
    // The same process follows later changes.
    await t.store.putIssue(
      storedIssue({ taskId: 't0', tier: 'medium' }, { space: SPACE, updatedAt: new Date().toISOString() }),
    );
    expect((await issuesOf(cold.deps)).issues.find((i) => i.taskId === 't0')?.tier).toBe('medium');
    expect(cold.wholeIssueReads()).toBe(0);

    // A corrupt issues object is never answered from: the table is listed instead, and the next compaction heals it.
    const manifest = (await readManifest(t.data, SPACE))!;
    await t.data.put(manifest.issues.key, 'not gzip');
    const afterCorruption = coldProcess();
    expect(await issuesOf(afterCorruption.deps)).toEqual({ issues: await t.store.listIssues(SPACE) });
    expect(afterCorruption.wholeIssueReads()).toBe(1);
    expect(await compactSpace(coldProcess().deps, SPACE)).toMatchObject({
      source: 'corrupt',
      written: true,
      issues: 4,
    });
    const healed = coldProcess();
    expect((await issuesOf(healed.deps)).issues).toHaveLength(4);
    expect(healed.wholeIssueReads()).toBe(0);
  });

  it('is read by a read API only where its IAM grant lets it read (spaceReadGrant)', async () => {
    const SPACE = 'Granted';
    await t.store.putIssue(
      storedIssue({ taskId: 't0' }, { space: SPACE, updatedAt: new Date(Date.now() - 60_000).toISOString() }),
    );
    await seededSpace(SPACE, 12, { runs: 5, bytes: 1_000_000 });
    // As S3 answers a call outside the role's grant: refused, never a missing object.
    const granted = grantedOnly(t.data, spaceReadGrant(SPACE));
    const deps = { ...coldProcess().deps, objects: granted };
    const first = await columnsRoute(deps, SPACE);
    expect(first.body!.part).toMatchObject({ index: 0, count: 3 });
    expect(
      (await columnsRoute(deps, SPACE, `part=2&snapshot=${encodeURIComponent(first.body!.part.snapshot!)}`)).status,
    ).toBe(200);
    for (const path of ['issues', 'stats', 'export.csv'])
      expect({ path, status: (await answerRead(deps, 'GET', `/api/spaces/${SPACE}/${path}`, '')).status }).toEqual({
        path,
        status: 200,
      });
  });
});
