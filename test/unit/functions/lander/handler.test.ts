// The lander's Lambda seam: SQS claim checks in, partial batch answers out, with what it prints (logs and
// EMF) read back as CloudWatch would read it. The stores are in-memory ports with the adapters' contracts.
import { describe, expect, it } from '@jest/globals';
import type { SQSRecord } from 'aws-lambda';
import { createLanderHandler } from '#functions/lander/handler.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { METRICS } from '#core/operations.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { issueDelivery, inboxEntry, runDelivery, type DeliveryInput } from '../../../helpers/deliveries.ts';
import { sqsEvent, sqsRecord } from '../../../helpers/events.ts';
import { InMemoryObjectStore, InMemoryTable, RecordingQueue, SettableClock } from '../../../helpers/in-memory-ports.ts';
import { capturingOutput, logLines, metricValues } from '../../../helpers/lambda-output.ts';
import { LANDED_AT } from '../../../helpers/records.ts';
import { invokedLocally } from '#infra/local/local-invocation.ts';

function lander() {
  const deps = {
    table: new InMemoryTable(),
    objects: new InMemoryObjectStore(),
    inbox: new InMemoryObjectStore(),
    judgeQueue: new RecordingQueue<JudgeMessage>(),
  };
  const handler = createLanderHandler(
    {
      runs: deps.table,
      attempts: deps.table,
      issues: deps.table,
      hosts: deps.table,
      objects: deps.objects,
      inbox: deps.inbox,
      judgeQueue: deps.judgeQueue,
      clock: new SettableClock(new Date(LANDED_AT)),
    },
    instrumentation('lander'),
  );
  /** Stores the delivery in the inbox as ingest would and returns the claim check's SQS record. */
  const accepted = async (space: string, delivery: DeliveryInput, deliveryId: string): Promise<SQSRecord> => {
    const inboxKey = `inbox/${space}/${deliveryId}.json`;
    await deps.inbox.put(inboxKey, JSON.stringify(inboxEntry(space, delivery, { deliveryId })));
    return sqsRecord({ space, inboxKey });
  };
  return { ...deps, handler, accepted };
}

describe('the lander handler', () => {
  it('lands a claimed run, hands it to the judge, empties its inbox entry and counts it as Landed', async () => {
    const l = lander();
    const delivery = runDelivery();
    const record = await l.accepted('S', delivery, 'd-1');
    const { result, output } = await capturingOutput(() => l.handler(sqsEvent([record])));
    expect(result).toEqual({ batchItemFailures: [] });
    expect((await l.table.getRun('S', delivery.id))?.value).toMatchObject({
      id: delivery.id,
      judgeState: 'pending',
      deliveries: ['d-1'],
    });
    // The judge's lines name the delivery that caused them (docs/deploy.md, "Following a delivery").
    expect(l.judgeQueue.sent).toEqual([
      { space: 'S', id: delivery.id, finishedAt: '2026-11-20T10:12:00.000Z', deliveryId: 'd-1' },
    ]);
    expect(await l.inbox.list('inbox/')).toEqual([]);
    expect(metricValues(output, 'lander', METRICS.landed)).toEqual([1]);
    expect(logLines(output, 'landed')).toEqual([
      expect.objectContaining({ level: 'INFO', service: 'lander', space: 'S', outcome: 'new' }),
    ]);
  });

  it("warns naming both runs and counts RunIdCollision when a run lands under another run's id", async () => {
    const l = lander();
    const stored = runDelivery({ model: 'coll:8b' });
    await l.handler(sqsEvent([await l.accepted('S', stored, 'd-1')]));
    const record = await l.accepted('S', runDelivery({ model: 'coll_8b' }), 'd-2');
    const { result, output } = await capturingOutput(() => l.handler(sqsEvent([record])));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(metricValues(output, 'lander', METRICS.runIdCollision)).toEqual([1]);
    expect(logLines(output, 'kept a run apart: its id is another run')).toEqual([
      expect.objectContaining({
        level: 'WARN',
        id: stored.id,
        stored: expect.objectContaining({ model: 'coll:8b' }),
        delivered: expect.objectContaining({ model: 'coll_8b' }),
      }),
    ]);
    expect((await l.table.getRun('S', stored.id))?.value.model).toBe('coll:8b');
  });

  it('answers a batch with one corrupt inbox entry by failing exactly that record and landing the others', async () => {
    const l = lander();
    const first = runDelivery({ taskId: 'first' });
    const records = [
      await l.accepted('S', first, 'd-1'),
      sqsRecord({ space: 'S', inboxKey: 'inbox/S/corrupt.json' }),
      await l.accepted('S', issueDelivery(), 'd-3'),
    ];
    await l.inbox.put('inbox/S/corrupt.json', '{"space":"S"');
    const { result, output } = await capturingOutput(() => l.handler(sqsEvent(records)));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.messageId }] });
    expect(await l.table.getRun('S', first.id)).not.toBeNull();
    expect(await l.table.getIssue('S', 'acme__widgets-42')).not.toBeNull();
    // Kept for the retry and, after the last one, for whoever inspects the dead letter.
    expect(await l.inbox.list('inbox/')).toEqual(['inbox/S/corrupt.json']);
    expect(metricValues(output, 'lander', METRICS.landed)).toEqual([1, 1]);
    expect(logLines(output, 'record failed; the queue will redeliver it')).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        service: 'lander',
        messageId: records[1]!.messageId,
        errorName: 'SyntaxError',
        errorMessage: expect.any(String),
      }),
    ]);
  });

  it('drops a body that is not JSON and one that is not a claim check, with a warning and LandingMessageDropped, never retrying them', async () => {
    const l = lander();
    const good = runDelivery({ taskId: 'good' });
    const records = [
      sqsRecord('not json at all'),
      sqsRecord({ space: 'S', inboxKey: 'runs/S/elsewhere.json' }),
      await l.accepted('S', good, 'd-good'),
    ];
    const { result, output } = await capturingOutput(() => l.handler(sqsEvent(records)));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await l.table.getRun('S', good.id)).not.toBeNull();
    expect(metricValues(output, 'lander', METRICS.landingMessageDropped)).toEqual([1, 1]);
    expect(metricValues(output, 'lander', METRICS.landed)).toEqual([1]);
    const warnings = logLines(output, 'dropped a malformed landing message');
    expect(warnings.map((line) => [line.level, line.messageId])).toEqual([
      ['WARN', records[0]!.messageId],
      ['WARN', records[1]!.messageId],
    ]);
    expect(warnings[1]).toMatchObject({ reason: expect.any(String) });
  });

  it("labels each record's lines with its own delivery and run, from the claim check or else from the inbox entry", async () => {
    const l = lander();
    const [a, b] = [runDelivery({ taskId: 'a' }), runDelivery({ taskId: 'b' })];
    // As the inbox reconciliation queues it again: a claim check that names no delivery.
    const unnamed = await l.accepted('S', a, 'd-a');
    const named = sqsRecord({ ...(JSON.parse((await l.accepted('S', b, 'd-b')).body) as object), deliveryId: 'd-b' });
    const invoke = invokedLocally('lander', l.handler);
    const { output } = await capturingOutput(() => invoke(sqsEvent([unnamed, named])));
    const landed = logLines(output, 'landed').map((line) => [line.correlation_id, line.run_id, line.function_name]);
    expect(landed.sort()).toEqual([
      ['d-a', a.id, 'replay-local-lander'],
      ['d-b', b.id, 'replay-local-lander'],
    ]);
  });

  it('lands a run carried in its message itself, with no inbox entry to read or empty', async () => {
    const l = lander();
    const delivery = runDelivery();
    const record = sqsRecord({ space: 'S', entry: inboxEntry('S', delivery, { deliveryId: 'd-inline' }) });
    const { result, output } = await capturingOutput(() => l.handler(sqsEvent([record])));
    expect(result).toEqual({ batchItemFailures: [] });
    expect((await l.table.getRun('S', delivery.id))?.value).toMatchObject({
      id: delivery.id,
      deliveries: ['d-inline'],
    });
    expect(l.judgeQueue.sent).toEqual([
      { space: 'S', id: delivery.id, finishedAt: '2026-11-20T10:12:00.000Z', deliveryId: 'd-inline' },
    ]);
    expect(logLines(output, 'landed')).toEqual([expect.objectContaining({ space: 'S', outcome: 'new' })]);
  });

  it('fails the record of a carried delivery that does not parse, so it is retried and then set aside, never dropped', async () => {
    const l = lander();
    const entry = { ...inboxEntry('S', runDelivery(), { deliveryId: 'd-bad' }), receivedAt: 42 };
    const record = sqsRecord({ space: 'S', entry });
    const { result, output } = await capturingOutput(() => l.handler(sqsEvent([record])));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    expect(metricValues(output, 'lander', METRICS.landingMessageDropped)).toEqual([]);
    expect(await l.table.getRun('S', runDelivery().id)).toBeNull();
  });

  it('publishes nothing for an empty batch', async () => {
    const { result, output } = await capturingOutput(() => lander().handler(sqsEvent([])));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(output.lines).toEqual([]);
  });
});
