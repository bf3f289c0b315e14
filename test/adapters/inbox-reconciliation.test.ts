// The inbox reconciliation (docs/contract.md §3) against the local S3 and DynamoDB: an accepted delivery whose
// queue message was lost is queued again once the landing queue's whole retry span has passed, at most three
// times, then set aside once in the dead-letter queue; younger entries, landed ones and keys ingest never
// writes are left alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DynamoReenqueueLedger } from '#adapters/aws/dynamo-reenqueue-ledger.ts';
import { dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { DynamoLeaseStore } from '#adapters/aws/dynamo-lease.ts';
import { MAX_REENQUEUES, RECONCILE_AFTER_SECONDS, reconcileInbox } from '#core/landing/reconcile-inbox.ts';
import { createInboxReconcilerHandler } from '#functions/inbox-reconciler/handler.ts';
import { inboxEntryName, inboxKey } from '#core/storage-layout.ts';
import type { LandingMessage } from '#core/ports.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { RecordingQueue } from '../helpers/in-memory-ports.ts';
import { capturingOutput, metricValues } from '../helpers/lambda-output.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { METRICS } from '#core/operations.ts';

let t: TestStores;
let ledger: DynamoReenqueueLedger;
let leases: DynamoLeaseStore;
beforeAll(async () => {
  t = await startTestStores();
  const documents = dynamoClient(t.emulators.connection, t.emulators.timeouts);
  ledger = new DynamoReenqueueLedger(documents, t.emulators.names.table, t.emulators.timeouts);
  leases = new DynamoLeaseStore(documents, t.emulators.names.table, t.emulators.timeouts);
});
afterAll(async () => {
  await t.stop();
});

const minutesFromNow = (minutes: number) => ({ now: () => new Date(Date.now() + minutes * 60_000) });
/** The retry span in minutes: an entry is stale one minute past it. */
const SPAN = RECONCILE_AFTER_SECONDS / 60;

function world(minutes: number) {
  const landingQueue = new RecordingQueue<LandingMessage>();
  const landingDeadLetters = new RecordingQueue<LandingMessage>();
  return {
    landingQueue,
    landingDeadLetters,
    deps: { inbox: t.inbox, landingQueue, landingDeadLetters, ledger, clock: minutesFromNow(minutes) },
  };
}

describe('the inbox reconciliation', () => {
  it('waits out the landing queue’s whole retry span: thirty minutes, visibility × receives', () => {
    expect(RECONCILE_AFTER_SECONDS).toBe(30 * 60);
  });

  it('queues an entry that outlived its message again three times, then sets it aside once in the dead-letter queue', async () => {
    const key = inboxKey('Lost', inboxEntryName('mac-studio-1', 'a'.repeat(64)));
    await t.inbox.putIfAbsent(key, '{}', 'application/json');
    const runs = [];
    for (let k = 0; k < MAX_REENQUEUES + 2; k++) {
      const w = world(SPAN + 1 + 15 * k);
      runs.push({ result: await reconcileInbox(w.deps), queued: w.landingQueue.sent, set: w.landingDeadLetters.sent });
    }
    const mine = runs.map((r) => ({
      queued: r.queued.filter((m) => m.inboxKey === key),
      setAside: r.set.filter((m) => m.inboxKey === key),
    }));
    expect(mine.map((r) => [r.queued.length, r.setAside.length])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [0, 1],
      [0, 0],
    ]);
    expect(mine[0]!.queued[0]).toEqual({ space: 'Lost', inboxKey: key });
    await t.inbox.delete(key);
  });

  it('leaves alone what is younger than the span, what has landed, and keys ingest never writes', async () => {
    const young = inboxKey('Young', inboxEntryName('mac-studio-1', 'b'.repeat(64)));
    const landed = inboxKey('Young', inboxEntryName('mac-studio-1', 'c'.repeat(64)));
    await t.inbox.putIfAbsent(young, '{}', 'application/json');
    await t.inbox.putIfAbsent(landed, '{}', 'application/json');
    await t.inbox.delete(landed);
    await t.inbox.putIfAbsent('inbox/stray.txt', 'x', 'text/plain');
    const early = world(SPAN - 5);
    expect(await reconcileInbox(early.deps)).toMatchObject({ stale: 0, reenqueued: 0 });
    const late = world(SPAN + 1);
    const result = await reconcileInbox(late.deps);
    expect(late.landingQueue.sent.map((m) => m.inboxKey)).toEqual([young]);
    expect(result.foreign).toEqual(['inbox/stray.txt']);
    for (const key of [young, 'inbox/stray.txt']) await t.inbox.delete(key);
  });

  it('counts each time once when two runs overlap, so an entry is never queued a fourth time', async () => {
    const key = inboxKey('Overlap', inboxEntryName('mac-studio-1', 'd'.repeat(64)));
    await t.inbox.putIfAbsent(key, '{}', 'application/json');
    const runs = Array.from({ length: 6 }, () => world(SPAN + 1));
    await Promise.all(runs.map((w) => reconcileInbox(w.deps)));
    const queued = runs.flatMap((w) => w.landingQueue.sent).filter((m) => m.inboxKey === key);
    const setAside = runs.flatMap((w) => w.landingDeadLetters.sent).filter((m) => m.inboxKey === key);
    expect([queued.length, setAside.length]).toEqual([MAX_REENQUEUES, 1]);
    await t.inbox.delete(key);
  });

  it('as a scheduled function, publishes InboxReenqueued and steps aside while another run holds its lease', async () => {
    const key = inboxKey('Metric', inboxEntryName('mac-studio-1', 'e'.repeat(64)));
    await t.inbox.putIfAbsent(key, '{}', 'application/json');
    const w = world(SPAN + 1);
    const handler = createInboxReconcilerHandler({ ...w.deps, leases }, instrumentation('inbox-reconciler'));
    const { output } = await capturingOutput(() => handler({} as never));
    expect(w.landingQueue.sent.map((m) => m.inboxKey)).toContain(key);
    expect(metricValues(output, 'inbox-reconciler', METRICS.inboxReenqueued)[0]).toBeGreaterThanOrEqual(1);
    const held = await leases.acquireLease(
      'inbox-reconciler',
      'someone-else',
      new Date(),
      new Date(Date.now() + 3600_000),
    );
    expect(held).toBe(true);
    const blocked = world(SPAN + 16);
    await capturingOutput(() =>
      createInboxReconcilerHandler({ ...blocked.deps, leases }, instrumentation('inbox-reconciler'))({} as never),
    );
    expect(blocked.landingQueue.sent).toEqual([]);
    await leases.releaseLease('inbox-reconciler', 'someone-else');
    await t.inbox.delete(key);
  });
});
