// SQS consumers report partial batch failures (one failing record never blocks its batch; repeated
// failures reach the DLQ) and leave a log line for every record that fails, with its message id, so a
// dead-lettered message can be traced back to why it failed.
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { flushMetrics, type Instrumentation } from './observability.ts';

export type SqsBatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export function sqsBatchHandler(
  instrumentation: Instrumentation,
  processRecord: (record: SQSRecord) => Promise<void>,
): SqsBatchHandler {
  const { logger, metrics } = instrumentation;
  const processor = new BatchProcessor(EventType.SQS);
  const logged = async (record: SQSRecord) => {
    try {
      await processRecord(record);
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      logger.error('record failed; the queue will redeliver it', {
        messageId: record.messageId,
        errorName: name,
        errorMessage: message,
      });
      throw error;
    }
  };
  return async (event) => {
    try {
      return await processPartialResponse(event, logged, processor, { throwOnFullBatchFailure: false });
    } finally {
      flushMetrics(metrics);
    }
  };
}

/** The message body as JSON, or null when it is not JSON. */
export function parseBody(record: SQSRecord): unknown {
  try {
    return JSON.parse(record.body);
  } catch {
    return null;
  }
}
