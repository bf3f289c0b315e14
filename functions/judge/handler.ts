// SQS → one judge attempt per message (partial batch response: one failing record never blocks the others,
// and repeated failures reach the DLQ). Metrics the alarms watch: JudgeErrors (failed attempts) and
// JudgingPaused (1 while the provider refuses the key, 0 when a probe resumes judging).
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DEFAULT_MAX_DIFF_CHARS, judgeRun, type JudgeDeps, type JudgeOutcome } from '../../shared/judge/judge-run.ts';
import { judgeMessageSchema } from '../../shared/schema/messages.ts';
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { bucketStore, configFromEnv, tableStore } from '../../shared/adapters/aws/runtime.ts';
import { judgeModelProvider, referenceSourceProvider } from '../../shared/adapters/aws/judge-services.ts';
import { flushMetrics, observability } from '../../shared/adapters/aws/observability.ts';

const { logger, metrics } = observability('judge');
const store = tableStore();
const deps: JudgeDeps = {
  config: configFromEnv(),
  runs: store,
  issues: store,
  budget: store,
  judging: store,
  objects: bucketStore('DATA_BUCKET'),
  model: judgeModelProvider(),
  reference: referenceSourceProvider(),
  clock: systemClock,
  maxDiffChars: Number(process.env.JUDGE_MAX_DIFF_CHARS) || DEFAULT_MAX_DIFF_CHARS,
};
const processor = new BatchProcessor(EventType.SQS);

async function judgeRecord(record: SQSRecord): Promise<void> {
  const message = judgeMessageSchema.safeParse(parseJson(record.body));
  if (!message.success) {
    logger.warn('dropped a malformed judge message', { messageId: record.messageId });
    metrics.addMetric('JudgeMessageDropped', MetricUnit.Count, 1);
    return;
  }
  report(message.data, await judgeRun(deps, message.data));
}

/** One log line per attempt; held spaces log only when their status changes, so a missing key is no spam. */
function report(message: JudgeMessage, outcome: JudgeOutcome): void {
  const fields = { space: message.space, id: message.id, result: outcome.result, problem: outcome.problem };
  if (outcome.modelCall) metrics.addMetric('JudgeModelCalls', MetricUnit.Count, 1);
  if (outcome.result === 'judged') metrics.addMetric('Judged', MetricUnit.Count, 1);
  if (outcome.result === 'attempt-failed' || outcome.result === 'gave-up') {
    metrics.addMetric('JudgeErrors', MetricUnit.Count, 1);
    logger.warn('judge attempt failed', fields);
  } else logger.debug('judge', fields);
  if (outcome.result === 'paused') metrics.addMetric('JudgingPaused', MetricUnit.Count, 1);
  if (outcome.judging === 'judging') metrics.addMetric('JudgingPaused', MetricUnit.Count, 0);
  if (outcome.judging) logger.warn(`judging of space ${message.space} is now ${outcome.judging}`, fields);
}

const parseJson = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
};

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  try {
    return await processPartialResponse(event, judgeRecord, processor, { throwOnFullBatchFailure: false });
  } finally {
    flushMetrics(metrics);
  }
}
