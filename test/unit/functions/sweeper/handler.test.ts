// The sweeper's Lambda seam: an EventBridge schedule in, due runs back on the judge queue, and RunsRequeued
// per space in the EMF it prints.
import { describe, expect, it } from '@jest/globals';
import { createSweeperHandler } from '#functions/sweeper/handler.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { METRICS } from '#core/operations.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import { scheduledEvent } from '../../../helpers/events.ts';
import { failingWhen, InMemoryTable, RecordingQueue, SettableClock } from '../../../helpers/in-memory-ports.ts';
import { capturingOutput, logLines, metricValues } from '../../../helpers/lambda-output.ts';
import { runRow } from '../../../helpers/records.ts';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const config = parseConfig({ spaces: { Alpha: { senders: ['mac-studio-1'] }, Beta: { senders: ['mac-studio-1'] } } });

function sweeper(table: InMemoryTable, runs = table) {
  const judgeQueue = new RecordingQueue<JudgeMessage>();
  const handler = createSweeperHandler(
    { config, runs, judging: table, batches: table, judgeQueue, clock: new SettableClock(NOW) },
    instrumentation('sweeper'),
  );
  return { handler, judgeQueue };
}

/** A landed run whose next judge attempt is due at `dueAt`. */
const dueAt = (space: string, taskId: string, at: string) => runRow({ taskId }, { space, judgeNextAttemptAt: at });

describe('the sweeper handler', () => {
  it('queues the runs that are due, space by space, and publishes RunsRequeued for each space', async () => {
    const table = new InMemoryTable();
    const due = [dueAt('Alpha', 'a1', '2026-11-29T11:00:00.000Z'), dueAt('Alpha', 'a2', '2026-11-29T12:00:00.000Z')];
    for (const row of [...due, dueAt('Alpha', 'later', '2026-11-29T12:15:00.000Z')]) await table.putRun(row, null);
    const s = sweeper(table);
    const { output } = await capturingOutput(() => s.handler(scheduledEvent(NOW)));
    expect(s.judgeQueue.sent).toEqual(due.map((row) => ({ space: 'Alpha', id: row.id, finishedAt: row.finishedAt })));
    expect(metricValues(output, 'sweeper', METRICS.runsRequeued)).toEqual([2, 0]);
    expect(logLines(output, 'queued due runs for the judge')).toEqual([
      expect.objectContaining({ level: 'INFO', space: 'Alpha', queued: 2 }),
    ]);
  });

  it('sends a single probe for a paused space', async () => {
    const table = new InMemoryTable();
    for (const taskId of ['p1', 'p2', 'p3'])
      await table.putRun(dueAt('Beta', taskId, '2026-11-29T11:00:00.000Z'), null);
    await table.putJudgingStatus(
      {
        space: 'Beta',
        state: 'paused',
        since: '2026-11-29T10:00:00.000Z',
        reason: { code: 'provider-refused', message: 'Refused.' },
        probeRunId: null,
      },
      null,
    );
    const s = sweeper(table);
    const { output } = await capturingOutput(() => s.handler(scheduledEvent(NOW)));
    expect(s.judgeQueue.sent).toHaveLength(1);
    expect((await table.getJudgingStatus('Beta'))?.value.probeRunId).toBe(s.judgeQueue.sent[0]!.id);
    expect(metricValues(output, 'sweeper', METRICS.runsRequeued)).toEqual([0, 1]);
  });

  it('fails a sweep the table cannot answer for one space, after sweeping the others, so the next sweep redoes it', async () => {
    const table = new InMemoryTable();
    await table.putRun(dueAt('Alpha', 'a1', '2026-11-29T11:00:00.000Z'), null);
    await table.putRun(dueAt('Beta', 'b1', '2026-11-29T11:00:00.000Z'), null);
    const unavailable = () => Object.assign(new Error('The table is unavailable.'), { name: 'InternalServerError' });
    const s = sweeper(
      table,
      failingWhen(table, 'listDueRuns', (space) => space === 'Alpha', unavailable),
    );
    await expect(capturingOutput(() => s.handler(scheduledEvent(NOW)))).rejects.toThrow(
      'The sweep was incomplete: Alpha (InternalServerError: The table is unavailable.).',
    );
    expect(s.judgeQueue.sent.map((message) => message.space)).toEqual(['Beta']);
  });

  it('sends every other due run when the queue refuses one, logs the refusal and fails the sweep', async () => {
    const table = new InMemoryTable();
    const refused = dueAt('Alpha', 'a0', '2026-11-29T10:00:00.000Z');
    const others = [dueAt('Alpha', 'a1', '2026-11-29T11:00:00.000Z'), dueAt('Beta', 'b1', '2026-11-29T11:00:00.000Z')];
    for (const row of [refused, ...others]) await table.putRun(row, null);
    const invalid = () => Object.assign(new Error('Invalid characters found.'), { name: 'InvalidMessageContents' });
    // The queue takes every message it is sent together with the refused one, as SendMessageBatch answers.
    const judgeQueue = new (class extends RecordingQueue<JudgeMessage> {
      override async send(message: JudgeMessage) {
        if ('id' in message && message.id === refused.id) throw invalid();
        return super.send(message);
      }
    })();
    const handler = createSweeperHandler(
      {
        config,
        runs: table,
        judging: table,
        batches: table,
        judgeQueue,
        clock: new SettableClock(NOW),
      },
      instrumentation('sweeper'),
    );
    const { result: error, output } = await capturingOutput(() =>
      handler(scheduledEvent(NOW)).then(
        () => null,
        (failure: unknown) => failure,
      ),
    );
    expect(error).toEqual(
      new Error('The sweep was incomplete: Alpha (InvalidMessageContents: Invalid characters found.).'),
    );
    expect(judgeQueue.sent.map((message) => message.id)).toEqual(others.map((row) => row.id));
    expect(metricValues(output, 'sweeper', METRICS.runsRequeued)).toEqual([1, 1]);
    expect(logLines(output, 'sweep of a space incomplete')).toEqual([
      expect.objectContaining({ level: 'ERROR', space: 'Alpha', queued: 1 }),
    ]);
  });
});
