// SQS → one judge attempt per message, or for a batch-mode space a batch of them submitted or collected
// (core/judge/batch.ts); the rules live in core/judge and `lambda.ts` wires AWS. Metrics
// the alarms watch: JudgeErrors (failed attempts) and JudgingPaused (1 while the provider refuses the key
// or the model, 0 when a probe resumes judging); JudgeFlagged counts runs whose "resolved" was flagged;
// JudgeModelCalls and JudgeSpendUsd feed the operations dashboard.
import type { SQSRecord } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { judgeRun, type JudgeDeps, type JudgeOutcome } from '#core/judge/judge-run.ts';
import { collectBatch, submitBatch } from '#core/judge/batch.ts';
import { judgeQueueMessageSchema } from '#schema/messages.ts';
import { METRICS } from '#core/operations.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { correlate, type Instrumentation } from '#adapters/aws/observability.ts';
import { parseBody, sqsBatchHandler, type SqsBatchHandler } from '#adapters/aws/sqs-batch.ts';

export function createJudgeHandler(deps: JudgeDeps, instrumentation: Instrumentation): SqsBatchHandler {
  const { logger, metrics } = instrumentation;

  /** One log line per attempt; held spaces log only when their status changes, so a missing key is no spam. */
  function report(message: Pick<JudgeMessage, 'space' | 'id'>, outcome: JudgeOutcome): void {
    const fields = { space: message.space, id: message.id, result: outcome.result, problem: outcome.problem };
    if (outcome.modelCall) metrics.addMetric(METRICS.judgeModelCalls, MetricUnit.Count, 1);
    if (outcome.costUsd) metrics.addMetric(METRICS.judgeSpendUsd, MetricUnit.NoUnit, outcome.costUsd);
    if (outcome.result === 'judged') metrics.addMetric(METRICS.judged, MetricUnit.Count, 1);
    if (outcome.result === 'flagged') {
      metrics.addMetric(METRICS.judgeFlagged, MetricUnit.Count, 1);
      logger.warn('judge answer flagged', { ...fields, flags: outcome.flags });
    }
    if (outcome.result === 'attempt-failed' || outcome.result === 'gave-up') {
      metrics.addMetric(METRICS.judgeErrors, MetricUnit.Count, 1);
      logger.warn('judge attempt failed', fields);
    } else if (outcome.result === 'waiting-batch' && outcome.problem)
      // No answer to the submission: the collect finds whether the provider took it (core/judge/batch.ts).
      logger.warn('judge batch submission unconfirmed', fields);
    else logger.debug('judge', fields);
    if (outcome.result === 'paused') metrics.addMetric(METRICS.judgingPaused, MetricUnit.Count, 1);
    if (outcome.judging === 'judging') metrics.addMetric(METRICS.judgingPaused, MetricUnit.Count, 0);
    if (outcome.judging) logger.warn(`judging of space ${message.space} is now ${outcome.judging}`, fields);
  }

  return sqsBatchHandler(instrumentation, async (record: SQSRecord) => {
    const message = judgeQueueMessageSchema.safeParse(parseBody(record));
    if (!message.success) {
      logger.warn('dropped a malformed judge message', { messageId: record.messageId });
      metrics.addMetric(METRICS.judgeMessageDropped, MetricUnit.Count, 1);
      return;
    }
    const { data } = message;
    if ('submit' in data) {
      for (const { id, outcome } of await submitBatch(deps, data.space, data.submit))
        report({ space: data.space, id }, outcome);
    } else if ('collect' in data) {
      const collected = await collectBatch(deps, data.space, data.collect);
      const { state } = collected;
      const problem = state === 'not-collected' ? collected.problem : undefined;
      logger.info('judge batch', { space: data.space, batchId: data.collect, state, problem });
      if (collected.state === 'collected')
        for (const { id, outcome } of collected.runs) report({ space: data.space, id }, outcome);
    } else {
      correlate({ deliveryId: data.deliveryId, runId: data.id });
      report(data, await judgeRun(deps, data));
    }
  });
}
