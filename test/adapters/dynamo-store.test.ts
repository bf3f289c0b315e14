// The table and bucket contracts the core relies on, kept by the AWS adapters against the emulators and by
// the in-memory ports the handler tests use: the same assertions for both, so a handler test cannot pass
// on a fake more lenient than the store.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { EXPIRY_ATTRIBUTE, issueKey, issueWaiterKey, runKey } from '#core/storage-layout.ts';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import {
  InvalidCursorError,
  type AttemptStore,
  type BudgetStore,
  type IssueOwnerStore,
  type IssueStore,
  type ObjectStore,
  type RunStore,
} from '#core/ports.ts';
import type { SentIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import { S3ObjectStore } from '#adapters/aws/s3-object-store.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { budgetCalls, InMemoryObjectStore, InMemoryTable } from '../helpers/in-memory-ports.ts';
import { runRow, storedIssue } from '../helpers/records.ts';

let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(() => t.stop());

const row = (space: string, id: string, updatedAt: string, extra: Partial<RunRow> = {}): RunRow =>
  runRow({}, { space, id, updatedAt, ...extra });

const memoryTable = new InMemoryTable();
const tables: { name: string; table: () => RunStore & AttemptStore & IssueStore & IssueOwnerStore & BudgetStore }[] = [
  { name: 'DynamoDB store (dynalite)', table: () => t.store },
  { name: 'in-memory table', table: () => memoryTable },
];

describe.each(tables)('$name', ({ table }) => {
  it('finds no row for an id longer than any key the table can hold', async () => {
    expect(await table().getRun('rev', 'a'.repeat(2000))).toBeNull();
    expect(await table().getRun('rev', 'é'.repeat(600))).toBeNull();
  });

  it('creates a row only if absent and updates it only at the expected revision', async () => {
    const r = row('rev', 'a', '2026-01-01T00:00:00.000Z');
    expect(await table().putRun(r, null)).toBe(true);
    expect(await table().putRun(r, null)).toBe(false);
    const stored = await table().getRun('rev', 'a');
    expect(stored).toMatchObject({ rev: 1, value: { id: 'a', judgeState: 'pending' } });
    expect(await table().putRun({ ...r, steps: 3 }, 1)).toBe(true);
    expect(await table().putRun({ ...r, steps: 4 }, 1)).toBe(false);
    expect((await table().getRun('rev', 'a'))?.value.steps).toBe(3);
  });

  it('returns rows without internal attributes', async () => {
    // Due for the judge, so the row carries the sparse index's attributes too.
    await table().putRun(
      row('strip', 'a', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: '2026-01-01T00:00:00.000Z' }),
      null,
    );
    const stored = await table().getRun('strip', 'a');
    expect(Object.keys(stored!.value)).not.toContain('pk');
    expect(Object.keys(stored!.value)).not.toContain('rev');
    expect(Object.keys(stored!.value)).not.toContain('dueAt');
  });

  it('pages through all runs of a space with a cursor and filters by updatedAt with since', async () => {
    for (let i = 0; i < 7; i++) await table().putRun(row('page', `r${i}`, `2026-01-0${i + 1}T00:00:00.000Z`), null);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await table().listRuns('page', { limit: 3, cursor });
      seen.push(...page.items.map((r) => r.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(seen.sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    const since = await table().listRuns('page', { limit: 100, since: '2026-01-05T00:00:00.000Z' });
    expect(since.items.map((r) => r.id)).toEqual(['r4', 'r5', 'r6']);
  });

  it('hands out a cursor only when more runs follow, so a page that ends them exactly is the last', async () => {
    for (let i = 0; i < 6; i++) await table().putRun(row('exact', `r${i}`, `2026-01-0${i + 1}T00:00:00.000Z`), null);
    const first = await table().listRuns('exact', { limit: 3 });
    expect(first.items).toHaveLength(3);
    const second = await table().listRuns('exact', { limit: 3, cursor: first.cursor! });
    expect(second.items.map((r) => r.id)).toEqual(['r3', 'r4', 'r5']);
    expect(second.cursor).toBeNull();
    // Since: three updated from the 4th, asked for three at a time, then two and two.
    const since = '2026-01-04T00:00:00.000Z';
    expect(await table().listRuns('exact', { limit: 3, since })).toMatchObject({
      items: [{ id: 'r3' }, { id: 'r4' }, { id: 'r5' }],
      cursor: null,
    });
    const head = await table().listRuns('exact', { limit: 2, since });
    expect(head.items.map((r) => r.id)).toEqual(['r3', 'r4']);
    expect(await table().listRuns('exact', { limit: 2, since, cursor: head.cursor! })).toMatchObject({
      items: [{ id: 'r5' }],
      cursor: null,
    });
  });

  it('lists the issues of a space in task order, and with since those updated since, in no space but their own', async () => {
    const at = (day: number) => `2026-01-0${day}T00:00:00.000Z`;
    for (const [taskId, day] of [
      ['b__task', 2],
      ['a.task', 1],
      ['c-task', 3],
    ] as const)
      await table().putIssue(storedIssue({ taskId }, { space: 'issues', updatedAt: at(day) }));
    await table().putIssue(storedIssue({ taskId: 'other' }, { space: 'issues-other', updatedAt: at(3) }));
    expect((await table().listIssues('issues')).map((i) => i.taskId)).toEqual(['a.task', 'b__task', 'c-task']);
    expect((await table().listIssues('issues', at(2))).map((i) => i.taskId).sort()).toEqual(['b__task', 'c-task']);
    // Updated again: it moves forward in the since order, and is listed once.
    await table().putIssue(storedIssue({ taskId: 'a.task', tier: 'hard' }, { space: 'issues', updatedAt: at(4) }));
    const since = await table().listIssues('issues', at(4));
    expect(since).toEqual([expect.objectContaining({ taskId: 'a.task', tier: 'hard' })]);
    expect(Object.keys(since[0]!)).not.toContain('byUpdatedPk');
  });

  it('hands out a delta of more than 100 rows whole, each row as last written', async () => {
    const at = (i: number) =>
      `2026-02-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;
    for (let i = 0; i < 130; i++) await table().putRun(row('delta-130', `r${i}`, at(i)), null);
    await table().putRun(row('delta-130', 'r0', at(140), { steps: 77 }), 1);
    const delta = await table().listRuns('delta-130', { limit: 200, since: at(0) });
    expect(delta.items.map((r) => r.id)).toEqual([...Array.from({ length: 129 }, (_, i) => `r${i + 1}`), 'r0']);
    expect(delta.items.at(-1)).toMatchObject({ id: 'r0', steps: 77 });
    expect(Object.keys(delta.items[0]!)).not.toContain('byUpdatedSk');
    expect(delta.cursor).toBeNull();
  });

  it('refuses a cursor it did not hand out', async () => {
    await expect(table().listRuns('page', { limit: 3, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });

  it('lists only rows with a due judge attempt (sparse index)', async () => {
    await table().putRun(
      row('due', 'waiting', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: '2026-01-01T00:00:00.000Z' }),
      null,
    );
    await table().putRun(
      row('due', 'later', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: '2026-02-01T00:00:00.000Z' }),
      null,
    );
    await table().putRun(
      row('due', 'judged', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: null, judgeState: 'judged' }),
      null,
    );
    const due = await table().listDueRuns('due', '2026-01-15T00:00:00.000Z', 10);
    // What the sweeper sends, which is what the index keeps.
    expect(due).toEqual([{ id: 'waiting', finishedAt: expect.any(String) }]);
  });

  it('counts runs per host in a space', async () => {
    for (let i = 0; i < 7; i++) await table().putRun(row('per-host', `r${i}`, '2026-01-01T00:00:00.000Z'), null);
    await table().putRun(row('other-space', 'r0', '2026-01-01T00:00:00.000Z'), null);
    expect(await table().countRunsByHost('per-host', 'mac-studio-1')).toBe(7);
    expect(await table().countRunsByHost('per-host', 'mac-mini-2')).toBe(0);
  });

  it('never reserves more than the cap under concurrency', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => table().reserve('S', '2026-11-29', 10)));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await budgetCalls(table(), 'S', '2026-11-29')).toBe(10);
    expect(await table().reserve('S', '2026-11-30', 10)).toBe(true);
  });

  it('counts the day across all spaces apart from any space, never past its cap under concurrency', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => table().reserveAcrossSpaces('2026-11-29', 7)));
    expect(results.filter(Boolean)).toHaveLength(7);
    expect(await table().reserveAcrossSpaces('2026-11-30', 7)).toBe(true);
    expect(await budgetCalls(table(), 'all', '2026-11-29')).toBe(0);
  });

  it('gives a released unit back to its space, never below zero', async () => {
    expect(await table().reserve('R', '2026-11-29', 2)).toBe(true);
    expect(await table().reserve('R', '2026-11-29', 2)).toBe(true);
    expect(await table().reserve('R', '2026-11-29', 2)).toBe(false);
    await table().release('R', '2026-11-29');
    expect(await budgetCalls(table(), 'R', '2026-11-29')).toBe(1);
    expect(await table().reserve('R', '2026-11-29', 2)).toBe(true);
    await Promise.all(Array.from({ length: 5 }, () => table().release('R', '2026-11-29')));
    expect(await budgetCalls(table(), 'R', '2026-11-29')).toBe(0);
    await table().release('Untouched', '2026-11-29');
    expect(await table().listDays('Untouched', '2026-11-29', '2026-11-29')).toEqual([]);
  });

  it('keeps the held hidden-test result of the latest finishedAt, one per sending host', async () => {
    const result = (status: 'pass' | 'fail') => ({ status, ranAt: '2026-01-01T00:00:00.000Z' });
    const hold = (host: string, finishedAt: string, status: 'pass' | 'fail') =>
      table().putPendingHiddenTest({ space: 'h', id: 'x#1', host, finishedAt, hiddenTestResult: result(status) });
    await hold('mac-studio-1', '2026-01-02T00:00:00.000Z', 'pass');
    await hold('mac-studio-1', '2026-01-01T00:00:00.000Z', 'fail');
    await hold('mac-mini-2', '2026-01-01T00:00:00.000Z', 'fail');
    // An id that the first one is a prefix of holds nothing of the first's.
    await table().putPendingHiddenTest({
      space: 'h',
      id: 'x',
      host: '1#mac-studio-1',
      finishedAt: '2026-01-03T00:00:00.000Z',
      hiddenTestResult: result('fail'),
    });
    const held = await table().getPendingHiddenTests('h', 'x#1');
    expect(held.sort((a, b) => a.host.localeCompare(b.host))).toEqual([
      expect.objectContaining({ host: 'mac-mini-2', finishedAt: '2026-01-01T00:00:00.000Z' }),
      expect.objectContaining({
        host: 'mac-studio-1',
        finishedAt: '2026-01-02T00:00:00.000Z',
        hiddenTestResult: result('pass'),
      }),
    ]);
  });

  it('writes an issue record only over one sent earlier', async () => {
    const record = (sentAt: string, wave: number): SentIssue => ({
      ...storedIssue({ taskId: 'ordered', wave }, { space: 'ordered' }),
      sentAt,
    });
    expect(await table().putIssue(record('2026-01-02T00:00:00.000Z', 2))).toBe(true);
    expect(await table().putIssue(record('2026-01-01T00:00:00.000Z', 3))).toBe(false);
    expect(await table().putIssue(record('2026-01-02T00:00:00.000Z', 4))).toBe(false);
    expect(await table().putIssue(record('2026-01-03T00:00:00.000Z', 5))).toBe(true);
    expect(await table().getIssue('ordered', 'ordered')).toMatchObject({ wave: 5, sentAt: '2026-01-03T00:00:00.000Z' });
  });

  it('holds, for one finishedAt, the hidden-test result that ran latest', async () => {
    const hold = (ranAt: string, status: 'pass' | 'fail') =>
      table().putPendingHiddenTest({
        space: 'h',
        id: 'ran',
        host: 'mac-studio-1',
        finishedAt: '2026-01-02T00:00:00.000Z',
        hiddenTestResult: { status, ranAt },
      });
    await hold('2026-01-03T10:00:00.000Z', 'pass');
    await hold('2026-01-03T09:00:00.000Z', 'fail');
    await hold('2026-01-03T10:00:00.000Z', 'fail');
    expect((await table().getPendingHiddenTests('h', 'ran'))[0]!.hiddenTestResult).toEqual({
      status: 'pass',
      ranAt: '2026-01-03T10:00:00.000Z',
    });
    await hold('2026-01-03T11:00:00.000Z', 'fail');
    expect((await table().getPendingHiddenTests('h', 'ran'))[0]!.hiddenTestResult.status).toBe('fail');
  });

  it("sets an archived attempt's hidden-test result only to one that ran later than its own", async () => {
    const attempt = { ...row('ran', 'archived', '2026-01-05T00:00:00.000Z'), archivedAt: '2026-01-05T00:00:00.000Z' };
    await table().archiveAttempt(attempt);
    const set = (ranAt: string, status: 'pass' | 'fail') =>
      table().setAttemptHiddenTest('ran', 'archived', attempt.host, attempt.finishedAt, { status, ranAt });
    expect(await set('2026-01-06T10:00:00.000Z', 'pass')).toBe(1);
    expect(await set('2026-01-06T09:00:00.000Z', 'fail')).toBe(1);
    expect((await table().listAttempts('ran', 'archived'))[0]!.hiddenTestResult).toMatchObject({ status: 'pass' });
    await set('2026-01-06T11:00:00.000Z', 'fail');
    expect((await table().listAttempts('ran', 'archived'))[0]!.hiddenTestResult).toMatchObject({ status: 'fail' });
  });

  it("keeps the runs waiting for a task's issue record, each once, apart from another task's", async () => {
    const now = new Date('2026-01-02T00:00:00.000Z');
    const wait = (taskId: string, id: string, finishedAt = '2026-01-01T00:00:00.000Z') =>
      table().putIssueWaiter({ space: 'waits', taskId, id, finishedAt }, now);
    await wait('task#1', 'run-a');
    await wait('task#1', 'run-a', '2026-01-01T01:00:00.000Z');
    await wait('task#1', 'run#b');
    // A task whose id the first one's is a prefix of, and another space's task of the same id.
    await wait('task', '1#run-c');
    await table().putIssueWaiter({ space: 'waits-2', taskId: 'task#1', id: 'run-d', finishedAt: '2026-01-01' }, now);
    const waiting = await table().getIssueWaiters('waits', 'task#1');
    expect(waiting.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([
      { space: 'waits', taskId: 'task#1', id: 'run#b', finishedAt: '2026-01-01T00:00:00.000Z' },
      { space: 'waits', taskId: 'task#1', id: 'run-a', finishedAt: '2026-01-01T01:00:00.000Z' },
    ]);
    expect(await table().getIssueWaiters('waits', 'no-such-task')).toEqual([]);
  });

  it("keeps the first host's claim on a task's issue record", async () => {
    expect(await table().claimIssue('claims', 'task#1', 'mac-studio-1')).toBe('mac-studio-1');
    expect(await table().claimIssue('claims', 'task#1', 'mac-mini-2')).toBe('mac-studio-1');
    expect(await table().claimIssue('claims', 'task#1', 'mac-studio-1')).toBe('mac-studio-1');
    expect(await table().claimIssue('claims', 'task#2', 'mac-mini-2')).toBe('mac-mini-2');
    const racing = await Promise.all(
      ['a', 'b', 'c', 'd'].map((host) => table().claimIssue('claims', 'raced', `host-${host}`)),
    );
    expect(new Set(racing).size).toBe(1);
  });
});

it('lets a note of a run waiting for its issue record expire two days after the run last looked', async () => {
  const waiter = { space: 'expiring', taskId: 't', id: 'r', finishedAt: '2026-01-01T00:00:00.000Z' };
  await t.store.putIssueWaiter(waiter, new Date('2026-01-02T00:00:00.000Z'));
  const documents = dynamoClient(t.emulators.connection, t.emulators.timeouts);
  const key = issueWaiterKey('expiring', 't', 'r');
  const { Item } = await documents.send(new GetCommand({ TableName: t.emulators.names.table, Key: key }));
  documents.destroy();
  expect(Item?.[EXPIRY_ATTRIBUTE]).toBe(Date.parse('2026-01-04T00:00:00.000Z') / 1000);
});

it('reads an issue record, and the notes of runs waiting for it, strongly consistent', async () => {
  const documents = dynamoClient(t.emulators.connection, t.emulators.timeouts);
  const reads: string[] = [];
  const client = {
    send(command: { input: { ConsistentRead?: boolean } }, options: unknown) {
      reads.push(`${command.constructor.name} consistent=${command.input.ConsistentRead === true}`);
      return documents.send(command as never, options as never);
    },
  } as unknown as DynamoDBDocumentClient;
  const store = new DynamoStore(client, t.emulators.names.table, t.emulators.timeouts);
  await store.getIssue('consistent', 't');
  await store.getIssueWaiters('consistent', 't');
  documents.destroy();
  expect(reads).toEqual(['GetCommand consistent=true', 'QueryCommand consistent=true']);
});

describe('DynamoDB store (dynalite), with records stored before issue records carried sentAt', () => {
  it('replaces such a record with any issue delivery', async () => {
    const { sentAt: _none, ...legacy } = storedIssue({ taskId: 'legacy' }, { space: 'legacy' });
    await t.emulators.dynamo.send(
      new PutItemCommand({
        TableName: t.emulators.names.table,
        Item: marshall({ ...legacy, ...issueKey('legacy', 'legacy'), kind: 'issue' }),
      }),
    );
    expect(await t.store.getIssue('legacy', 'legacy')).not.toHaveProperty('sentAt');
    const sent = {
      ...storedIssue({ taskId: 'legacy', wave: 9 }, { space: 'legacy' }),
      sentAt: '2020-01-01T00:00:00.000Z',
    };
    expect(await t.store.putIssue(sent)).toBe(true);
    expect(await t.store.getIssue('legacy', 'legacy')).toMatchObject({ wave: 9 });
  });
});

// The `since` deltas read a keys-only index and fetch the rows from the table (dynamo-table.ts fetchIndexed):
// what the fetches ask for and what they leave unprocessed, seen through the document client.
describe('DynamoDB store (dynalite), fetching the rows of a delta', () => {
  interface Batch {
    keys: number;
    consistent: boolean;
    unprocessed: number;
  }
  function watched(
    beforeBatch?: (keys: Record<string, unknown>[]) => Promise<void>,
    answer: (out: BatchGetCommandOutput, consistent: boolean) => BatchGetCommandOutput = (out) => out,
  ) {
    const documents = dynamoClient(t.emulators.connection, t.emulators.timeouts);
    const batches: Batch[] = [];
    const client = {
      async send(command: unknown, options: unknown) {
        if (!(command instanceof BatchGetCommand)) return documents.send(command as never, options as never);
        const request = command.input.RequestItems![t.emulators.names.table]!;
        await beforeBatch?.(request.Keys!);
        const consistent = request.ConsistentRead === true;
        const out = answer(await documents.send(command, options as never), consistent);
        const unprocessed = out.UnprocessedKeys?.[t.emulators.names.table]?.Keys?.length ?? 0;
        batches.push({ keys: request.Keys!.length, consistent, unprocessed });
        return out;
      },
    } as unknown as DynamoDBDocumentClient;
    return { store: new DynamoStore(client, t.emulators.names.table, t.emulators.timeouts), batches, documents };
  }

  it('asks 100 keys at a time, and asks again for the keys an answer left unprocessed', async () => {
    // 150 rows of 16 KB: an answer of 100 passes the emulator's limit (1 MB and an item; DynamoDB's is 16 MB), so it
    // leaves some keys unprocessed.
    const at = (i: number) => `2026-03-01T00:00:00.${String(i).padStart(3, '0')}Z`;
    const padding = { padding: 'x'.repeat(16_000) } as Partial<RunRow>;
    for (let i = 0; i < 150; i++) await t.store.putRun(row('delta-large', `r${i}`, at(i), padding), null);
    const { store, batches, documents } = watched();
    const delta = await store.listRuns('delta-large', { limit: 200, since: at(0) });
    documents.destroy();
    expect(delta.items.map((r) => r.id).sort()).toEqual(Array.from({ length: 150 }, (_, i) => `r${i}`).sort());
    expect(batches.every((b) => b.keys <= 100 && !b.consistent)).toBe(true);
    expect(batches.some((b) => b.unprocessed > 0)).toBe(true);
    expect(batches.reduce((n, b) => n + b.keys - b.unprocessed, 0)).toBe(150);
  });

  it('reads a row again consistently when the first read returns a version older than its index key', async () => {
    const table = t.emulators.names.table;
    await t.store.putRun(row('delta-stale', 'a', '2026-03-03T00:00:00.000Z'), null);
    const reader = dynamoClient(t.emulators.connection, t.emulators.timeouts);
    const { Item: older } = await reader.send(new GetCommand({ TableName: table, Key: runKey('delta-stale', 'a') }));
    reader.destroy();
    await t.store.putRun(row('delta-stale', 'a', '2026-03-03T00:00:05.000Z', { steps: 9 }), 1);
    // A replica behind the write: the eventually consistent read answers the version before it.
    const { store, batches, documents } = watched(undefined, (out, consistent) =>
      consistent ? out : { ...out, Responses: { [table]: [older!] } },
    );
    const delta = await store.listRuns('delta-stale', { limit: 10, since: '2026-03-03T00:00:01.000Z' });
    documents.destroy();
    expect(delta.items).toEqual([expect.objectContaining({ id: 'a', steps: 9 })]);
    expect(batches.map((b) => b.consistent)).toEqual([false, true]);
  });

  it('leaves out a row deleted between the index query and the fetch, after reading it again consistently', async () => {
    for (const id of ['kept', 'gone', 'also-kept'])
      await t.store.putRun(row('delta-deleted', id, '2026-03-02T00:00:00.000Z'), null);
    let deleted = false;
    const { store, batches, documents } = watched(async () => {
      if (deleted) return;
      deleted = true;
      await t.emulators.dynamo.send(
        new DeleteItemCommand({ TableName: t.emulators.names.table, Key: marshall(runKey('delta-deleted', 'gone')) }),
      );
    });
    const delta = await store.listRuns('delta-deleted', { limit: 10, since: '2026-03-01T00:00:00.000Z' });
    documents.destroy();
    expect(delta.items.map((r) => r.id).sort()).toEqual(['also-kept', 'kept']);
    expect(batches).toEqual([
      { keys: 3, consistent: false, unprocessed: 0 },
      { keys: 1, consistent: true, unprocessed: 0 },
    ]);
  });
});

const memoryObjects = new InMemoryObjectStore();
// Pages of 4 keys, so a handful of objects spans several ListObjects pages.
const pagedInbox = () =>
  new S3ObjectStore(t.emulators.s3, t.emulators.names.inboxBucket, t.emulators.timeouts, { listPageSize: 4 });
const buckets: { name: string; bucket: () => ObjectStore }[] = [
  { name: 'S3 object store (s3rver)', bucket: pagedInbox },
  { name: 'in-memory object store', bucket: () => memoryObjects },
];

describe.each(buckets)('$name', ({ bucket }) => {
  it('stores, reads, lists past one page, and deletes objects', async () => {
    const count = 10;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        bucket().put(`inbox/list/${String(i).padStart(4, '0')}.json`, `{"i":${i}}`),
      ),
    );
    const keys = await bucket().list('inbox/list/');
    expect(keys).toEqual(Array.from({ length: count }, (_, i) => `inbox/list/${String(i).padStart(4, '0')}.json`));
    expect(await bucket().getText('inbox/list/0007.json')).toBe('{"i":7}');
    await bucket().delete('inbox/list/0007.json');
    expect(await bucket().getText('inbox/list/0007.json')).toBeNull();
  });

  it('reads what was just written, whole, over and over the same key (S3 reads after writes)', async () => {
    for (let round = 0; round < 8; round++) {
      // Objects of different sizes, so a short read of the new one or a left-over of the old one shows.
      const body = Buffer.alloc(((round % 4) + 1) * 700_000, `round-${round};`);
      await bucket().put('data/overwritten.bin', body);
      expect(Buffer.from((await bucket().getBytes('data/overwritten.bin'))!).equals(body)).toBe(true);
    }
  });
});
