// Leases (core/lease.ts) as items of the one table, in a partition of their own: a conditional put takes
// a lease that is free or expired, a conditional delete gives up only a lease its holder still holds.
import { DeleteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import type { LeaseStore } from '#core/ports.ts';
import { deleteAfter, EXPIRY_DAYS, leaseKey } from '#core/storage-layout.ts';
import { errorNameOf, withinDeadline } from './sdk-settings.ts';

const isConditionFailure = (e: unknown) => errorNameOf(e) === 'ConditionalCheckFailedException';

export class DynamoLeaseStore implements LeaseStore {
  constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
  ) {}

  async acquireLease(name: string, holder: string, now: Date, expiresAt: Date): Promise<boolean> {
    try {
      await withinDeadline('DynamoDB PutItem', this.timeouts, (options) =>
        this.dynamo.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...leaseKey(name),
              holder,
              expiresAt: expiresAt.toISOString(),
              deleteAfter: deleteAfter(expiresAt, EXPIRY_DAYS.lease),
            },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': now.toISOString() },
          }),
          options,
        ),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    try {
      await withinDeadline('DynamoDB DeleteItem', this.timeouts, (options) =>
        this.dynamo.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: leaseKey(name),
            ConditionExpression: 'holder = :holder',
            ExpressionAttributeValues: { ':holder': holder },
          }),
          options,
        ),
      );
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }
}
