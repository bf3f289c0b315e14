// Messages to one SQS queue through the SDK's SQS client.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import type { MessageQueue } from '#core/ports.ts';
import { queueMessageBody } from '#schema/messages.ts';
import { clientSettings, withinDeadline, type AwsConnection } from './sdk-settings.ts';

/**
 * An SQS client. Requests go to the configured or regional endpoint with the queue URL as a parameter, so
 * an emulator whose queue URLs name a host that does not resolve behaves like AWS.
 */
export const sqsClient = (connection: AwsConnection, timeouts: AwsCallTimeouts = AWS_CALLS.standard): SQSClient =>
  new SQSClient({ ...clientSettings(connection, 'sqs', timeouts), useQueueUrlAsEndpoint: false });

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
}
