// Faults between the functions and AWS, injected on the wire in front of the local emulators: the SDK's standard
// retries carry a throttled DynamoDB write through, and a service that hangs fails its call at the call's
// deadline, so the record fails within its invocation and the queue redelivers it (docs/contract.md §8).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { SqsQueue } from '#adapters/aws/sqs-queue.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { createLanderHandler } from '#functions/lander/handler.ts';
import { pollQueue } from '#infra/local/queue-poller.ts';
import type { AwsCallTimeouts } from '#core/operations.ts';
import type { JudgeMessage, LandingMessage } from '#core/ports.ts';
import { inboxKey } from '#core/storage-layout.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { dynamoError, startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.ts';
import { RecordingQueue } from '../helpers/in-memory-ports.ts';
import { inboxEntry, runDelivery } from '../helpers/deliveries.ts';
import { capturingOutput, logLines } from '../helpers/lambda-output.ts';
import { runRow } from '../helpers/records.ts';

let t: TestStores;
const proxies: FaultProxy[] = [];
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(async () => {
  for (const proxy of proxies) await proxy.stop();
  await t.stop();
});

/** A table store whose requests go through `proxy` to the local DynamoDB. */
async function proxiedTable(rule: Parameters<typeof startFaultProxy>[1], timeouts = t.emulators.timeouts) {
  const proxy = await startFaultProxy(t.emulators.connection.endpoints!.dynamodb!, rule);
  proxies.push(proxy);
  const connection = { ...t.emulators.connection, endpoints: { dynamodb: proxy.url } };
  return { proxy, store: new DynamoStore(dynamoClient(connection, timeouts), t.emulators.names.table, timeouts) };
}

describe('a throttled DynamoDB write', () => {
  it('is retried by the SDK after its back-off and lands', async () => {
    let throttled = 0;
    const { proxy, store } = await proxiedTable((request) =>
      request.target === 'DynamoDB_20120810.PutItem' && throttled++ < 2
        ? dynamoError(
            'ProvisionedThroughputExceededException',
            'The level of configured provisioned throughput for the table was exceeded.',
          )
        : 'pass',
    );
    const row = runRow({ taskId: 'throttled' }, { space: 'Faults' });
    expect(await store.putRun(row, null)).toBe(true);
    const puts = proxy.requests.filter((r) => r.target === 'DynamoDB_20120810.PutItem');
    expect(puts.map((r) => [r.attempt, r.status])).toEqual([
      ['attempt=1; max=4', 400],
      ['attempt=2; max=4', 400],
      ['attempt=3; max=4', 200],
    ]);
    expect(await t.store.getRun('Faults', row.id)).toEqual({ value: row, rev: 1 });
  });
});

describe('a call that hangs', () => {
  it('fails within its deadline, the record is reported failed, and the queue redelivers it until it lands', async () => {
    const timeouts: AwsCallTimeouts = { connectMs: 500, answerMs: 300, socketIdleMs: 300, deadlineMs: 800 };
    let hanging = true;
    const { proxy, store } = await proxiedTable(() => (hanging ? 'hang' : 'pass'), timeouts);
    const lander = createLanderHandler(
      {
        runs: store,
        attempts: store,
        issues: store,
        hosts: store,
        objects: t.data,
        inbox: t.inbox,
        judgeQueue: new RecordingQueue<JudgeMessage>(),
        clock: { now: () => new Date('2026-11-29T12:00:00.000Z') },
      },
      instrumentation('lander', { publishMetrics: false }),
    );
    const delivery = runDelivery({ host: 'mac-hang-1', taskId: 'hung' });
    const key = inboxKey('Faults', 'd-hung');
    await t.inbox.put(key, JSON.stringify(inboxEntry('Faults', delivery, { deliveryId: 'd-hung' })));
    await new SqsQueue<LandingMessage>(t.emulators.sqs, t.emulators.queueUrls.landing).send({
      space: 'Faults',
      inboxKey: key,
    });

    const batches: { receives: string; ms: number; failed: string[]; messageId: string; log: string }[] = [];
    let landed!: () => void;
    const done = new Promise<void>((resolve) => (landed = resolve));
    const poller = pollQueue(
      t.emulators.sqs,
      t.emulators.queueUrls.landing,
      async (event: SQSEvent) => {
        const started = performance.now();
        const { result, output } = await capturingOutput(() => lander(event));
        const failed = (result as SQSBatchResponse).batchItemFailures.map((f) => f.itemIdentifier);
        const [record] = event.Records;
        batches.push({
          receives: record!.attributes.ApproximateReceiveCount,
          ms: performance.now() - started,
          failed,
          messageId: record!.messageId,
          log: JSON.stringify(logLines(output, 'record failed; the queue will redeliver it')),
        });
        hanging = false;
        if (failed.length === 0) landed();
        return result;
      },
      { concurrency: 1, onError: () => {} },
    );
    await done;
    await poller.stop();

    const [first, second] = batches;
    expect(first).toMatchObject({ receives: '1', failed: [first!.messageId] });
    expect(first!.ms).toBeGreaterThanOrEqual(timeouts.deadlineMs);
    expect(first!.ms).toBeLessThan(timeouts.deadlineMs + 1_000);
    expect(first!.log).toContain('AwsDeadlineError');
    // The silent attempt was ended at its answer timeout and retried before the deadline gave up.
    expect(proxy.requests.filter((r) => r.status === null).length).toBeGreaterThanOrEqual(2);
    expect(second).toMatchObject({ receives: '2', failed: [], messageId: first!.messageId });
    expect((await t.store.getRun('Faults', delivery.id))?.value).toMatchObject({ taskId: 'hung' });
    expect(await t.inbox.getText(key)).toBeNull();
  });
});
