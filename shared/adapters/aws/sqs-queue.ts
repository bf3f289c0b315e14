import type { MessageQueue } from '../../ports.ts';
import { callJson, type AwsClient } from './aws-client.ts';

export class SqsQueue<T> implements MessageQueue<T> {
  constructor(
    private readonly sqs: AwsClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: T): Promise<void> {
    await callJson(this.sqs, 'SendMessage', { QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) });
  }
}
