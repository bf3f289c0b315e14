// The reconciliation's count of how often it queued each inbox entry again: one item per entry in a partition
// of its own, counted by an atomic ADD, so two overlapping runs never count one time twice.
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import type { ReenqueueLedger } from '#core/ports.ts';
import { deleteAfter, EXPIRY_DAYS, reenqueueKey } from '#core/storage-layout.ts';
import { withinDeadline } from './sdk-settings.ts';

export class DynamoReenqueueLedger implements ReenqueueLedger {
  constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
  ) {}

  async countReenqueue(inboxKey: string, at: Date): Promise<number> {
    const out = await withinDeadline('DynamoDB UpdateItem', this.timeouts, (options) =>
      this.dynamo.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: reenqueueKey(inboxKey),
          UpdateExpression: 'ADD reenqueued :one SET lastAt = :at, deleteAfter = :expiry',
          ExpressionAttributeValues: {
            ':one': 1,
            ':at': at.toISOString(),
            ':expiry': deleteAfter(at, EXPIRY_DAYS.reenqueueCount),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
        options,
      ),
    );
    return Number(out.Attributes?.reenqueued);
  }
}
