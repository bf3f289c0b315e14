// SQS consumers report partial batch failures (one failing record never blocks its batch; repeated
// failures reach the DLQ) and leave a log line for every record that fails, with its message id, so a
// dead-lettered message can be traced back to why it failed. The records of a batch are handled at once,
// each in a correlation scope of its own (observability.ts).
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { instrumented, ownScope, type Instrumentation, type LambdaHandler } from './observability.ts';

export type SqsBatchHandler = LambdaHandler<SQSEvent, SQSBatchResponse>;

export function sqsBatchHandler(
  instrumentation: Instrumentation,
  processRecord: (record: SQSRecord) => Promise<void>,
): SqsBatchHandler {
  const { logger } = instrumentation;
  const processor = new BatchProcessor(EventType.SQS);
  const logged = (record: SQSRecord) =>
    ownScope(async () => {
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
    });
  return instrumented(instrumentation, (event: SQSEvent) =>
    processPartialResponse(event, logged, processor, { throwOnFullBatchFailure: false }),
  );
}

/** The message body as JSON, or null when it is not JSON. */
export function parseBody(record: SQSRecord): unknown {
  try {
    return JSON.parse(record.body);
  } catch {
    return null;
  }
}
