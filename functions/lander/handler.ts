// SQS → landing. Each record is a claim check; records fail individually (partial batch response) so one
// bad message never blocks its batch, and repeated failures reach the DLQ.
import type { SQSEvent, SQSRecord, SQSBatchResponse } from 'aws-lambda';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { landInboxEntry } from '../../shared/landing/land.ts';
import { landingMessageSchema } from '../../shared/schema/messages.ts';
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { bucketStore, queue, tableStore } from '../../shared/adapters/aws/runtime.ts';
import { flushMetrics, observability } from '../../shared/adapters/aws/observability.ts';

const { logger, metrics } = observability('lander');
const store = tableStore();
const deps = {
  runs: store,
  issues: store,
  hosts: store,
  objects: bucketStore('DATA_BUCKET'),
  inbox: bucketStore('INBOX_BUCKET'),
  judgeQueue: queue<JudgeMessage>('JUDGE_QUEUE_URL'),
  clock: systemClock,
};
const processor = new BatchProcessor(EventType.SQS);

async function landRecord(record: SQSRecord): Promise<void> {
  let message;
  try {
    message = landingMessageSchema.parse(JSON.parse(record.body));
  } catch (error) {
    // Nothing to land and nothing to retry: the body is not a claim check this pipeline wrote.
    logger.warn('dropped a malformed landing message', { messageId: record.messageId, reason: (error as Error).message });
    metrics.addMetric('LandingMessageDropped', MetricUnit.Count, 1);
    return;
  }
  const outcome = await landInboxEntry(deps, message.inboxKey);
  logger.info('landed', { space: message.space, inboxKey: message.inboxKey, outcome });
  metrics.addMetric('Landed', MetricUnit.Count, 1);
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  try {
    return await processPartialResponse(event, landRecord, processor, { throwOnFullBatchFailure: false });
  } finally {
    flushMetrics(metrics);
  }
}
