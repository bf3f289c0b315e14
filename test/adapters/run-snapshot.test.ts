// The persisted runs snapshot's wiring against the real emulators (dynalite, s3rver): written by the compactor
// to S3 and read by a cold process with the table's deltas, a delta part added by S3's conditional writes
// while the earlier parts stay as they are, and an export too large for an answer linked through a presigned S3 URL. Its rules are
// test/unit/core/read/run-snapshot.test.ts, over in-memory ports.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { answerRead } from '#core/read/read-api.ts';
import { DOWNLOAD_LINK_HEADER } from '#analytics/contract.ts';
import { S3LinkedDownloads } from '#adapters/aws/s3-linked-downloads.ts';
import { compactSpace, readManifest } from '#core/read/snapshot-store.ts';
import { snapshotManifestKey as manifestKey, snapshotSpacePrefix as snapshotPrefix } from '#core/storage-layout.ts';
import { parseConfig } from '#schema/config.ts';
import { sha256Hex } from '#shared/sha256.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { snapshotWorld } from '../helpers/snapshot-world.ts';

// Each test has its own space, so none depends on another's state.
const SPACES = ['Fresh', 'Recompacted', 'Linked'] as const;
const config = parseConfig({ spaces: Object.fromEntries(SPACES.map((s) => [s, { senders: ['mac-studio-1'] }])) });
let t: TestStores;

beforeAll(async () => {
  t = await startTestStores();
});
afterAll(async () => {
  await t.stop();
});

const { run, coldProcess, stats, columnsOf, seededSpace } = snapshotWorld(config, () => t);

describe('the persisted runs snapshot', () => {
  it('is written by the compactor and read by a cold process without reading the whole table; later rows come from the delta', async () => {
    const SPACE = 'Fresh';
    expect(await seededSpace(SPACE, 30)).toMatchObject({ runs: 30, source: 'missing', written: true });
    expect(await readManifest(t.data, SPACE)).toMatchObject({ count: 30 });

    // Rows land after the compaction: a cold reader still sees them, through `since`.
    await t.store.putRun(run(SPACE, 'late-1', 'resolved', new Date().toISOString()), null);
    const cold = coldProcess();
    const columns = await columnsOf(cold.deps, SPACE);
    expect(columns.count).toBe(30);
    expect(cold.wholeReads()).toBe(0);
    const since = await t.store.listRuns(SPACE, { since: columns.asOf, limit: 100 });
    expect(since.items.map((r) => r.taskId)).toContain('late-1');

    const body = await stats(cold.deps, SPACE);
    expect(body.groups).toEqual([expect.objectContaining({ model: 'qwen3:8b', runs: 31, n: 31, resolved: 11 })]);
    // The same process, one more landing and one changed verdict later.
    await t.store.putRun(run(SPACE, 'late-2', 'resolved', new Date().toISOString()), null);
    await t.store.putRun({ ...run(SPACE, 't0', 'wrong', new Date().toISOString()) }, 1);
    expect((await stats(cold.deps, SPACE)).groups).toEqual([
      expect.objectContaining({ runs: 32, n: 32, resolved: 11 }),
    ]);
    expect(cold.wholeReads()).toBe(0);
  });

  it('is written again only when something changed, by adding a part of the change; no part is ever written over', async () => {
    const SPACE = 'Recompacted';
    await seededSpace(SPACE, 30);
    const first = (await readManifest(t.data, SPACE))!;
    expect(await compactSpace(coldProcess().deps, SPACE)).toMatchObject({ source: 'persisted', written: false });
    // Each compaction minutes after the last, as scheduled: a delta holds the rows since, not those within
    // the previous one's `asOf` margin again.
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    const compactAt = (minutes: number) =>
      compactSpace({ ...coldProcess().deps, clock: { now: () => at(minutes) } }, SPACE);
    await t.store.putRun(run(SPACE, 'late-2', 'wrong', at(1).toISOString()), null);
    expect(await compactAt(5)).toMatchObject({
      source: 'persisted',
      kind: 'delta',
      written: true,
      changed: 1,
      runs: 31,
    });
    const second = (await readManifest(t.data, SPACE))!;
    await t.store.putRun(run(SPACE, 'late-3', 'wrong', at(6).toISOString()), null);
    await compactAt(10);
    const third = (await readManifest(t.data, SPACE))!;
    expect(third).toMatchObject({ count: 32 });
    // Each manifest names the earlier parts as they were, plus the change.
    expect(third.parts.map((p) => [p.kind, p.count])).toEqual([
      ['base', 30],
      ['delta', 1],
      ['delta', 1],
    ]);
    expect(third.parts.slice(0, 2)).toEqual(second.parts);
    expect(second.parts[0]).toEqual(first.parts[0]);
    // Every object any of the three names is still there, with the bytes it names.
    for (const ref of [first, second, third].flatMap((m) => [m.issues, ...m.parts.flatMap((p) => [p.runs, p.columns])]))
      expect(sha256Hex((await t.data.getBytes(ref.key))!)).toBe(ref.sha256);
    expect(await t.data.list(snapshotPrefix(SPACE))).toContain(manifestKey(SPACE));
    expect((await stats(coldProcess().deps, SPACE)).groups).toEqual([expect.objectContaining({ runs: 32, n: 32 })]);
  });

  it('links to an export too large for one answer: a 303 to object storage, or the link itself when asked', async () => {
    const SPACE = 'Linked';
    await seededSpace(SPACE, 40);
    const { deps } = coldProcess();
    // Room for a link's answer, not for the export.
    const limited = {
      ...deps,
      maxAnswerBytes: 800,
      downloads: new S3LinkedDownloads(t.emulators.s3, t.emulators.names.dataBucket),
    };
    const whole = await answerRead(deps, 'GET', `/api/spaces/${SPACE}/export.csv`, 'q=qwen3');
    expect((whole.body as Uint8Array).byteLength).toBeGreaterThan(8 * 800);
    for (const format of ['csv', 'parquet'] as const) {
      const answer = await answerRead(limited, 'GET', `/api/spaces/${SPACE}/export.${format}`, 'q=qwen3', {
        'accept-encoding': 'gzip',
      });
      expect(answer.status).toBe(303);
      const link = answer.headers!.location!;
      expect(link).toContain(`/exports/${SPACE}/`);
      expect(link).toContain('X-Amz-Signature=');
      expect(answer.body).toMatchObject({ link, expiresInSeconds: 900, runs: 40 });
      const fetched = await fetch(link);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="${SPACE}-runs.${format}"`);
      if (format === 'csv') expect(await fetched.text()).toBe(Buffer.from(whole.body as Uint8Array).toString('utf8'));
    }
    const asked = await answerRead(limited, 'GET', `/api/spaces/${SPACE}/export.json`, '', {
      [DOWNLOAD_LINK_HEADER]: 'link',
    });
    expect(asked.status).toBe(200);
    expect(asked.headers).toMatchObject({ [DOWNLOAD_LINK_HEADER]: 'link' });
    expect(JSON.parse(await (await fetch((asked.body as { link: string }).link)).text())).toMatchObject({
      runs: expect.any(Array),
    });
  });
});
