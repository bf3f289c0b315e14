// Messages to one SQS queue through the SDK's SQS client.
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import type { MessageQueue, QueueRefusal } from '#core/ports.ts';
import { queueMessageBody } from '#schema/messages.ts';
import { clientSettings, withinDeadline, type AwsConnection } from './sdk-settings.ts';

/**
 * An SQS client. Requests go to the configured or regional endpoint with the queue URL as a parameter, so
 * an emulator whose queue URLs name a host that does not resolve behaves like AWS.
 */
export const sqsClient = (connection: AwsConnection, timeouts: AwsCallTimeouts = AWS_CALLS.standard): SQSClient =>
  new SQSClient({ ...clientSettings(connection, 'sqs', timeouts), useQueueUrlAsEndpoint: false });

/** SendMessageBatch takes at most ten messages, of 256 KiB in all. */
const BATCH_MESSAGES = 10;
const BATCH_BYTES = 256 * 1024;

export class SqsQueue<T> implements MessageQueue<T> {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
  ) {}

  async send(message: T): Promise<void> {
    await withinDeadline('SQS SendMessage', this.timeouts, (options) =>
      this.sqs.send(
        new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: queueMessageBody(message) }),
        options,
      ),
    );
  }

  /** In calls of up to ten (SendMessageBatch): a tenth of the calls, and of their price, of one call a message. */
  async sendAll(messages: readonly T[]): Promise<QueueRefusal[]> {
    const refused: QueueRefusal[] = [];
    for (const batch of batchesOf(messages.map((message, index) => ({ index, body: queueMessageBody(message) })))) {
      try {
        const { Failed } = await withinDeadline('SQS SendMessageBatch', this.timeouts, (options) =>
          this.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: this.queueUrl,
              Entries: batch.map(({ body }, i) => ({ Id: String(i), MessageBody: body })),
            }),
            options,
          ),
        );
        for (const failed of Failed ?? [])
          refused.push({ index: batch[Number(failed.Id)]!.index, reason: `${failed.Code}: ${failed.Message}` });
      } catch (error) {
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        refused.push(...batch.map(({ index }) => ({ index, reason })));
      }
    }
    return refused;
  }
}

function* batchesOf<E extends { body: string }>(entries: E[]): Generator<E[]> {
  let batch: E[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.body);
    if (batch.length === BATCH_MESSAGES || (batch.length > 0 && bytes + size > BATCH_BYTES)) {
      yield batch;
      [batch, bytes] = [[], 0];
    }
    batch.push(entry);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
