import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageQueue } from '../../ports.ts';

export class SqsQueue<T> implements MessageQueue<T> {
  constructor(private readonly sqs: SQSClient, private readonly queueUrl: string) {}

  async send(message: T): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
  }
}
