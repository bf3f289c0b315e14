// Issue records, the hidden-test results held until their run lands, and who owns each task's issue record.
import type { IssueOwnerStore, IssueStore, IssueWaiter, PendingHiddenTest } from '#core/ports.ts';
import type { SentIssue, StoredIssue } from '#schema/issue.ts';
import {
  EXPIRY_ATTRIBUTE,
  EXPIRY_DAYS,
  INDEXES,
  SORT_PREFIX,
  deleteAfter,
  issueByUpdatedKey,
  issueKey,
  issueOwnerKey,
  issueWaiterKey,
  issueWaiterPrefix,
  issuesByUpdatedPartition,
  pendingHiddenTestKey,
  pendingHiddenTestPrefix,
  spacePartition,
} from '#core/storage-layout.ts';
import { atLeastAsNew, isConditionFailure, RAN_EARLIER, strip, type DynamoTable } from './dynamo-table.ts';

export class DynamoIssueStore implements IssueStore, IssueOwnerStore {
  constructor(private readonly table: DynamoTable) {}

  async putIssue(issue: SentIssue): Promise<boolean> {
    const item = {
      ...issue,
      ...issueKey(issue.space, issue.taskId),
      kind: 'issue',
      ...issueByUpdatedKey(issue.space, issue.updatedAt, issue.taskId),
    };
    try {
      await this.table.send('PutItem', {
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(sentAt) OR sentAt < :s',
        ExpressionAttributeValues: { ':s': issue.sentAt },
      });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  /** Strongly consistent: the judge reads the record again after noting a run as waiting for it (judge-run.ts). */
  async getIssue(space: string, taskId: string): Promise<StoredIssue | null> {
    const { Item } = await this.table.send('GetItem', { Key: issueKey(space, taskId), ConsistentRead: true });
    return Item ? strip<StoredIssue>(Item) : null;
  }

  async listIssues(space: string, since?: string): Promise<StoredIssue[]> {
    if (since === undefined) return this.table.queryPrefix<StoredIssue>(spacePartition(space), SORT_PREFIX.issue);
    const items = await this.table.queryAll({
      IndexName: INDEXES.byUpdated.name,
      KeyConditionExpression: 'byUpdatedPk = :p AND byUpdatedSk >= :s',
      ExpressionAttributeValues: { ':p': issuesByUpdatedPartition(space), ':s': since },
    });
    // The index holds keys only: the records come from the table.
    return (await this.table.fetchIndexed(items, atLeastAsNew)).map((i) => strip<StoredIssue>(i));
  }

  async putPendingHiddenTest(pending: PendingHiddenTest): Promise<void> {
    try {
      await this.table.send('PutItem', {
        Item: { ...pending, ...pendingHiddenTestKey(pending.space, pending.id, pending.host), kind: 'hidden-test' },
        ConditionExpression: `attribute_not_exists(pk) OR finishedAt < :f OR (finishedAt = :f AND ${RAN_EARLIER})`,
        ExpressionAttributeValues: {
          ':f': pending.finishedAt,
          ':r': pending.hiddenTestResult.ranAt,
          ':nullType': 'NULL',
        },
      });
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }

  getPendingHiddenTests(space: string, id: string): Promise<PendingHiddenTest[]> {
    return this.table.queryPrefix<PendingHiddenTest>(spacePartition(space), pendingHiddenTestPrefix(id));
  }

  async putIssueWaiter(waiter: IssueWaiter, now: Date): Promise<void> {
    await this.table.send('PutItem', {
      Item: {
        ...waiter,
        ...issueWaiterKey(waiter.space, waiter.taskId, waiter.id),
        kind: 'issue-waiter',
        [EXPIRY_ATTRIBUTE]: deleteAfter(now, EXPIRY_DAYS.issueWaiter),
      },
    });
  }

  getIssueWaiters(space: string, taskId: string): Promise<IssueWaiter[]> {
    return this.table.queryPrefix<IssueWaiter>(spacePartition(space), issueWaiterPrefix(taskId));
  }

  async claimIssue(space: string, taskId: string, host: string): Promise<string> {
    const key = issueOwnerKey(space, taskId);
    try {
      await this.table.send('PutItem', {
        Item: { ...key, host, kind: 'issue-owner' },
        ConditionExpression: 'attribute_not_exists(pk) OR host = :h',
        ExpressionAttributeValues: { ':h': host },
      });
      return host;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
    // A claim is never removed, so the owner that failed the condition is the one read back.
    const { Item } = await this.table.send('GetItem', { Key: key, ConsistentRead: true });
    return Item!.host as string;
  }
}
