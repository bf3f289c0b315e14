// The object store's conditional writes (docs/contract.md §8) against the local S3, which honours If-None-Match and
// If-Match as S3 does, and against the in-memory store the unit tests use: a writer that loses its race is
// told so, re-reads, and never overwrites what won.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { ObjectStore, ReferenceSource } from '#core/ports.ts';
import { S3ObjectStore, s3Client } from '#adapters/aws/s3-object-store.ts';
import { referenceDiff } from '#core/reference/reference-fix.ts';
import { compactSpace, readManifest, loadSpaceRuns, type SnapshotDeps } from '#core/read/snapshot-store.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { InMemoryObjectStore } from '../helpers/in-memory-ports.ts';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { runRow } from '../helpers/records.ts';

let t: TestStores;
let proxy: FaultProxy;
/** The data bucket through a proxy that records what the local S3 answered each request. */
let watched: S3ObjectStore;
beforeAll(async () => {
  t = await startTestStores();
  proxy = await startFaultProxy(t.emulators.connection.endpoints!.s3!, () => 'pass');
  const client = s3Client({ ...t.emulators.connection, endpoints: { s3: proxy.url } }, t.emulators.timeouts);
  watched = new S3ObjectStore(client, t.emulators.names.dataBucket, t.emulators.timeouts);
});
afterAll(async () => {
  await proxy.stop();
  await t.stop();
});

const stores: { name: string; objects: () => ObjectStore }[] = [
  { name: 'the S3 object store (local S3)', objects: () => t.data },
  { name: 'the in-memory object store', objects: () => memory },
];
const memory = new InMemoryObjectStore();
const text = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : null);

describe.each(stores)('$name', ({ objects }) => {
  it('creates an absent object once: a second create-only write reports the key taken and changes nothing', async () => {
    expect(await objects().putIfAbsent('cond/once.txt', 'first', 'text/plain')).toBe(true);
    expect(await objects().putIfAbsent('cond/once.txt', 'second', 'text/plain')).toBe(false);
    expect(await objects().getText('cond/once.txt')).toBe('first');
  });

  it('lets exactly one of many concurrent create-only writers of one key win', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => objects().putIfAbsent('cond/race.txt', `writer ${i}`)),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await objects().getText('cond/race.txt')).toBe(`writer ${outcomes.indexOf(true)}`);
  });

  it('replaces an object only while it is the version read, and creates with a null ETag only when absent', async () => {
    expect(await objects().getWithEtag('cond/versioned.json')).toBeNull();
    expect(await objects().putIfMatch('cond/versioned.json', 'v1', null)).toBe(true);
    const first = (await objects().getWithEtag('cond/versioned.json'))!;
    expect([text(first.bytes), first.etag]).toEqual(['v1', expect.stringMatching(/^".+"$/)]);
    expect(await objects().putIfMatch('cond/versioned.json', 'v2', first.etag)).toBe(true);
    // A writer still holding the first version's ETag lost the race: refused, and v2 stays.
    expect(await objects().putIfMatch('cond/versioned.json', 'stale', first.etag)).toBe(false);
    expect(await objects().putIfMatch('cond/versioned.json', 'also stale', null)).toBe(false);
    expect(await objects().getText('cond/versioned.json')).toBe('v2');
    // Deleted since it was read: refused too, and nothing is created.
    const second = (await objects().getWithEtag('cond/versioned.json'))!;
    await objects().delete('cond/versioned.json');
    expect(await objects().putIfMatch('cond/versioned.json', 'v3', second.etag)).toBe(false);
    expect(await objects().getText('cond/versioned.json')).toBeNull();
  });
});

describe('a create-only write that meets a concurrent one (S3 answers 409)', () => {
  /** The data bucket through a proxy answering 409 to the first `conflicts` create-only writes of `key`. */
  async function conflicting(key: string, conflicts: number) {
    let left = conflicts;
    const conflict = await startFaultProxy(t.emulators.connection.endpoints!.s3!, (r) =>
      r.method === 'PUT' && r.url.includes(key) && r.headers['if-none-match'] === '*' && left-- > 0
        ? {
            status: 409,
            contentType: 'application/xml',
            body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is currently in progress against this resource.</Message></Error>',
          }
        : 'pass',
    );
    const client = s3Client({ ...t.emulators.connection, endpoints: { s3: conflict.url } }, t.emulators.timeouts);
    return { proxy: conflict, objects: new S3ObjectStore(client, t.emulators.names.dataBucket, t.emulators.timeouts) };
  }

  it('is tried again, never reading the key (a writer may hold no read on it), and reports whether it won', async () => {
    const free = await conflicting('conflict/free.txt', 2);
    expect(await free.objects.putIfAbsent('conflict/free.txt', 'mine')).toBe(true);
    expect(await t.data.getText('conflict/free.txt')).toBe('mine');
    await t.data.put('conflict/taken.txt', 'theirs');
    const taken = await conflicting('conflict/taken.txt', 1);
    expect(await taken.objects.putIfAbsent('conflict/taken.txt', 'mine')).toBe(false);
    expect(await t.data.getText('conflict/taken.txt')).toBe('theirs');
    for (const { proxy: seen } of [free, taken]) {
      expect(seen.requests.map((r) => `${r.method} ${r.status}`)).toEqual(
        seen === free.proxy ? ['PUT 409', 'PUT 409', 'PUT 200'] : ['PUT 409', 'PUT 412'],
      );
      await seen.stop();
    }
  });

  it('gives up, naming the key, when every try meets one', async () => {
    const busy = await conflicting('conflict/busy.txt', 10);
    await expect(busy.objects.putIfAbsent('conflict/busy.txt', 'mine')).rejects.toThrow(
      'Writing conflict/busy.txt met a concurrent write 4 times in a row.',
    );
    expect(await t.data.getText('conflict/busy.txt')).toBeNull();
    await busy.proxy.stop();
  });
});

describe('the local S3', () => {
  it('answers a failed If-None-Match or If-Match on a PUT with 412 PreconditionFailed, as S3 does', async () => {
    const put = (condition: { IfNoneMatch?: string; IfMatch?: string }) =>
      t.emulators.s3
        .send(
          new PutObjectCommand({
            Bucket: t.emulators.names.dataBucket,
            Key: 'wire/taken.txt',
            Body: 'x',
            ...condition,
          }),
        )
        .then(
          () => 'written',
          (e: { name: string; $metadata: { httpStatusCode?: number } }) => `${e.$metadata.httpStatusCode} ${e.name}`,
        );
    expect(await put({ IfNoneMatch: '*' })).toBe('written');
    expect(await put({ IfNoneMatch: '*' })).toBe('412 PreconditionFailed');
    expect(await put({ IfMatch: '"0123456789abcdef0123456789abcdef"' })).toBe('412 PreconditionFailed');
    const { etag } = (await t.data.getWithEtag('wire/taken.txt'))!;
    expect(await put({ IfMatch: etag })).toBe('written');
  });

  it('stores an empty object, stating its length as S3 requires, and reads it back empty', async () => {
    await t.data.put('wire/empty.md', '', 'text/markdown');
    expect(await t.data.getText('wire/empty.md')).toBe('');
    expect(await t.data.putIfAbsent('wire/empty-too.md', new Uint8Array())).toBe(true);
    expect(await t.data.getBytes('wire/empty-too.md')).toEqual(new Uint8Array());
  });

  it('keeps keys with spaces, reserved characters and non-ASCII letters, and lists them back', async () => {
    const keys = ['odd/a b+c.json', 'odd/x&y=z;(1)!.json', "odd/it's~é.json"];
    for (const [i, key] of keys.entries()) await t.data.put(key, `body ${i}`, 'application/json');
    for (const [i, key] of keys.entries()) expect(await t.data.getText(key)).toBe(`body ${i}`);
    expect((await t.data.list('odd/')).sort()).toEqual([...keys].sort());
    expect(await t.data.putIfAbsent(keys[1]!, 'again')).toBe(false);
    await t.data.delete(keys[0]!);
    expect(await t.data.getText(keys[0]!)).toBeNull();
  });
});

/** Resolves once `release()` is called: holds one writer at a chosen step while another runs. */
function gate() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release };
}

describe('a conditional write that loses its race', () => {
  it("caches the reference fix of the judge that stored it first: the other's write answers 412 and it uses that entry", async () => {
    const bWritten = gate();
    const source = (diff: string, before?: Promise<void>): ReferenceSource => ({
      issueText: async () => '',
      diff: async () => {
        await before;
        return diff;
      },
    });
    const slow = referenceDiff(
      watched,
      source('diff --git a/x b/x\n+slow\n', bWritten.released),
      'S',
      'acme/w',
      'b1',
      'm1',
    );
    const fast = await referenceDiff(watched, source('diff --git a/x b/x\n+fast\n'), 'S', 'acme/w', 'b1', 'm1');
    bWritten.release();
    expect(await slow).toEqual(fast);
    const puts = proxy.requests.filter((r) => r.method === 'PUT' && r.url.includes('reference'));
    expect(puts.map((r) => [r.headers['if-none-match'], r.status])).toEqual([
      ['*', 200],
      ['*', 412],
    ]);
  });

  it("leaves the manifest of the compaction that finished first: the other's If-Match answers 412 and it is dropped", async () => {
    const SPACE = 'Raced';
    const clock = { now: () => new Date() };
    // A snapshot of three runs, then a fourth landed: both compactions below add a delta.
    for (let i = 0; i < 3; i++) await t.store.putRun(runRow({ taskId: `t${i}` }, { space: SPACE }), null);
    await compactSpace({ runs: t.store, issues: t.store, objects: t.data, clock }, SPACE);
    const landed = (taskId: string) => runRow({ taskId }, { space: SPACE, updatedAt: new Date().toISOString() });
    await t.store.putRun(landed('t3'), null);
    const beforeManifest = gate();
    const paused = gate();
    // The first compaction stops just before its manifest write until the second has finished.
    const held: ObjectStore = Object.assign(Object.create(watched) as ObjectStore, {
      putIfMatch: async (...args: Parameters<ObjectStore['putIfMatch']>) => {
        paused.release();
        await beforeManifest.released;
        return watched.putIfMatch(...args);
      },
    });
    const deps = (objects: ObjectStore): SnapshotDeps => ({ runs: t.store, issues: t.store, objects, clock });
    const first = compactSpace(deps(held), SPACE);
    await paused.released;
    await t.store.putRun(landed('t4'), null);
    expect(await compactSpace(deps(watched), SPACE)).toMatchObject({ runs: 5, written: true, superseded: false });
    beforeManifest.release();
    expect(await first).toMatchObject({ runs: 4, written: false, superseded: true });
    const manifestPuts = proxy.requests.filter((r) => r.method === 'PUT' && r.url.includes('/manifest.json'));
    expect(manifestPuts.map((r) => r.status)).toEqual([200, 412]);
    expect(await readManifest(t.data, SPACE)).toMatchObject({ count: 5 });
    expect((await loadSpaceRuns(deps(t.data), SPACE)).source).toBe('persisted');
  });
});
