// Feeds an SQS queue to a Lambda-style batch handler the way the Lambda event source mapping does:
// receive a batch, invoke, delete what succeeded. Failed records stay invisible until the queue's
// visibility timeout ends, then return; after maxReceiveCount receives the queue moves them to its DLQ.
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type BatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

export interface Poller {
  stop(): Promise<void>;
}

export function pollQueue(
  sqs: SQSClient,
  queueUrl: string,
  handler: BatchHandler,
  options: { concurrency: number; onError: (e: unknown) => void },
): Poller {
  let running = true;
  const abort = new AbortController();

  async function loop(): Promise<void> {
    while (running) {
      try {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        if (!Messages.length) continue;
        const result = await handler({ Records: Messages.map((m) => toRecord(queueUrl, m)) });
        const failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        const done = Messages.filter((m) => !failed.has(m.MessageId!));
        if (done.length) {
          await sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
      } catch (e) {
        if (!running) return;
        options.onError(e);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  const loops = Array.from({ length: options.concurrency }, loop);
  return {
    async stop() {
      running = false;
      abort.abort();
      await Promise.allSettled(loops);
    },
  };
}

function toRecord(queueUrl: string, m: Message): SQSRecord {
  const attributes = m.Attributes ?? {};
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`,
    awsRegion: 'us-east-1',
  };
}
