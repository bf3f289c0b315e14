// Leases (shared/lease.ts) as items of the one table, in a partition of their own: a conditional put takes
// a lease that is free or expired, a conditional delete gives up only a lease its holder still holds.
import { marshall } from '@aws-sdk/util-dynamodb';
import type { LeaseStore } from '../../ports.ts';
import { leaseKey } from '../../storage-layout.ts';
import { AwsCallError, AwsClient, callJson, type AwsConnection } from './aws-client.ts';

export const tableLeases = (connection: AwsConnection, tableName: string): LeaseStore =>
  new DynamoLeaseStore(new AwsClient('dynamodb', connection), tableName);

const isConditionFailure = (e: unknown) => e instanceof AwsCallError && e.name === 'ConditionalCheckFailedException';

export class DynamoLeaseStore implements LeaseStore {
  constructor(
    private readonly dynamo: AwsClient,
    private readonly tableName: string,
  ) {}

  async acquireLease(name: string, holder: string, now: Date, expiresAt: Date): Promise<boolean> {
    try {
      await callJson(this.dynamo, 'PutItem', {
        TableName: this.tableName,
        Item: marshall({ ...leaseKey(name), holder, expiresAt: expiresAt.toISOString() }),
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: marshall({ ':now': now.toISOString() }),
      });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    try {
      await callJson(this.dynamo, 'DeleteItem', {
        TableName: this.tableName,
        Key: marshall(leaseKey(name)),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: marshall({ ':holder': holder }),
      });
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }
}
