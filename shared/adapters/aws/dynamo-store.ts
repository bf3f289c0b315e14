// DynamoDB adapter for every table-backed port. One table (keys in shared/storage-layout.ts); rows keep an optimistic
// revision `rev` so read-modify-write landing and judging converge under concurrency. Items travel as plain
// objects through the SDK's document client, which converts them to and from DynamoDB's attribute values.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AWS_CALLS, type AwsCallTimeouts } from '../../operations.ts';
import {
  InvalidCursorError,
  type AttemptStore,
  type BudgetDay,
  type BudgetStore,
  type HostStore,
  type IssueOwnerStore,
  type IssueStore,
  type JudgingStatus,
  type JudgingStatusStore,
  type Page,
  type PendingHiddenTest,
  type RunStore,
  type Versioned,
} from '../../ports.ts';
import type { StoredHost } from '../../schema/host.ts';
import type { SentIssue, StoredIssue } from '../../schema/issue.ts';
import type { StoredHiddenTestResult, RunRow } from '../../schema/run.ts';
import type { ArchivedAttempt } from '../../schema/attempt.ts';
import { clientSettings, errorNameOf, withinDeadline, type AwsConnection } from './sdk-settings.ts';
import {
  INDEXES,
  INTERNAL_ATTRIBUTES,
  attemptKey,
  attemptPrefix,
  SORT_PREFIX,
  allSpacesBudgetKey,
  budgetKey,
  byHostPartition,
  byUpdatedKey,
  issueByUpdatedKey,
  issuesByUpdatedPartition,
  byUpdatedPartition,
  hostKey,
  issueKey,
  judgingKey,
  issueOwnerKey,
  pendingHiddenTestKey,
  pendingHiddenTestPrefix,
  runKey,
  spacePartition,
  type ItemKey,
} from '../../storage-layout.ts';

/** The document client the store talks through; attributes a row leaves undefined are not written. */
export const dynamoClient = (
  connection: AwsConnection,
  timeouts: AwsCallTimeouts = AWS_CALLS.standard,
): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient(clientSettings(connection, 'dynamodb', timeouts)), {
    marshallOptions: { removeUndefinedValues: true },
  });

type Item = Record<string, unknown>;

/** An operation's input as plain values; `send` adds the table and converts the item-shaped fields. */
interface TableInput {
  Key?: ItemKey;
  Item?: Item;
  IndexName?: string;
  KeyConditionExpression?: string;
  ConditionExpression?: string;
  UpdateExpression?: string;
  ExpressionAttributeValues?: Item;
  ExclusiveStartKey?: Item;
  Limit?: number;
  Select?: 'COUNT';
  ConsistentRead?: boolean;
}

interface TableOutput {
  Item?: Item;
  Items?: Item[];
  LastEvaluatedKey?: Item;
  Count?: number;
}

type QueryInput = Omit<TableInput, 'Key' | 'Item' | 'ConditionExpression' | 'UpdateExpression'>;

/** The item's hidden-test result ran before `:r`, or it has none (`:nullType` is 'NULL'). */
const RAN_EARLIER =
  'attribute_not_exists(hiddenTestResult) OR attribute_type(hiddenTestResult, :nullType) OR hiddenTestResult.ranAt < :r';

const isConditionFailure = (e: unknown) => errorNameOf(e) === 'ConditionalCheckFailedException';

export class DynamoStore
  implements RunStore, AttemptStore, IssueStore, IssueOwnerStore, HostStore, BudgetStore, JudgingStatusStore
{
  constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
  ) {}

  async getRun(space: string, id: string): Promise<Versioned<RunRow> | null> {
    const { Item } = await this.send('GetItem', { Key: runKey(space, id), ConsistentRead: true });
    return Item ? { value: strip<RunRow>(Item), rev: Item.rev as number } : null;
  }

  async putRun(row: RunRow, expectedRev: number | null): Promise<boolean> {
    const item: Record<string, unknown> = {
      ...row,
      ...runKey(row.space, row.id),
      kind: 'run',
      rev: (expectedRev ?? 0) + 1,
      ...byUpdatedKey(row.space, row.updatedAt, row.id),
      byHostPk: byHostPartition(row.space, row.host),
    };
    if (row.judgeNextAttemptAt) Object.assign(item, { dueSpace: row.space, dueAt: row.judgeNextAttemptAt });
    return this.conditionalPut(item, expectedRev);
  }

  async listRuns(space: string, query: { since?: string; cursor?: string; limit: number }): Promise<Page<RunRow>> {
    const isRun = (sk: string) => sk.startsWith('RUN#');
    const base: QueryInput = query.since
      ? {
          IndexName: INDEXES.byUpdated.name,
          KeyConditionExpression: 'byUpdatedPk = :p AND byUpdatedSk >= :s',
          ExpressionAttributeValues: { ':p': byUpdatedPartition(space), ':s': query.since },
        }
      : {
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
          ExpressionAttributeValues: { ':p': spacePartition(space), ':s': SORT_PREFIX.run },
        };
    const since = query.since;
    const cursorShape: CursorShape = since
      ? {
          pk: (v) => v === `SPACE#${space}`,
          sk: isRun,
          byUpdatedPk: (v) => v === `RUNS#${space}`,
          byUpdatedSk: (v) => v >= since,
        }
      : { pk: (v) => v === `SPACE#${space}`, sk: isRun };
    // One item more than the page, so a page that ends the runs says so (the query alone stops at the limit
    // with a key to go on from, and the client would ask for an empty page). The cursor is then the last
    // item's key; a query cut short by DynamoDB's 1 MB read hands out its own.
    const out = await this.send('Query', {
      ...base,
      Limit: query.limit + 1,
      ExclusiveStartKey: decodeCursor(query.cursor, cursorShape),
    });
    const items = out.Items ?? [];
    const more = items.length > query.limit;
    const page = more ? items.slice(0, query.limit) : items;
    const last = page.at(-1);
    const cursor =
      more && last ? Object.fromEntries(Object.keys(cursorShape).map((k) => [k, last[k]])) : out.LastEvaluatedKey;
    return { items: page.map((i) => strip<RunRow>(i)), cursor: encodeCursor(cursor) };
  }

  async listDueRuns(space: string, dueBy: string, limit: number): Promise<RunRow[]> {
    const out = await this.send('Query', {
      IndexName: INDEXES.due.name,
      KeyConditionExpression: 'dueSpace = :p AND dueAt <= :d',
      ExpressionAttributeValues: { ':p': space, ':d': dueBy },
      Limit: limit,
    });
    return (out.Items ?? []).map((i) => strip<RunRow>(i));
  }

  async countRunsByHost(space: string, host: string): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.send('Query', {
        IndexName: INDEXES.byHost.name,
        KeyConditionExpression: 'byHostPk = :p',
        ExpressionAttributeValues: { ':p': byHostPartition(space, host) },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      });
      count += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return count;
  }

  async archiveAttempt(attempt: ArchivedAttempt): Promise<void> {
    try {
      await this.send('PutItem', {
        Item: {
          ...attempt,
          ...attemptKey(attempt.space, attempt.id, attempt.finishedAt, attempt.patchSha256),
          kind: 'attempt',
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }

  listAttempts(space: string, id: string): Promise<ArchivedAttempt[]> {
    return this.queryPrefix<ArchivedAttempt>(spacePartition(space), attemptPrefix(id));
  }

  async setAttemptHiddenTest(
    space: string,
    id: string,
    finishedAt: string,
    result: StoredHiddenTestResult,
  ): Promise<number> {
    const matching = (await this.listAttempts(space, id)).filter((a) => a.finishedAt === finishedAt);
    for (const attempt of matching) {
      const key = attemptKey(space, id, attempt.finishedAt, attempt.patchSha256);
      // A plain put of the whole item (no UpdateItem): an archived attempt changes only here, only to a result
      // that ran later than its own.
      try {
        await this.send('PutItem', {
          Item: { ...attempt, hiddenTestResult: result, ...key, kind: 'attempt' },
          ConditionExpression: `attribute_exists(pk) AND (${RAN_EARLIER})`,
          ExpressionAttributeValues: { ':r': result.ranAt, ':nullType': 'NULL' },
        });
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
    }
    return matching.length;
  }

  async putIssue(issue: SentIssue): Promise<boolean> {
    const item = {
      ...issue,
      ...issueKey(issue.space, issue.taskId),
      kind: 'issue',
      ...issueByUpdatedKey(issue.space, issue.updatedAt, issue.taskId),
    };
    try {
      await this.send('PutItem', {
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

  async getIssue(space: string, taskId: string): Promise<StoredIssue | null> {
    const { Item } = await this.send('GetItem', { Key: issueKey(space, taskId) });
    return Item ? strip<StoredIssue>(Item) : null;
  }

  async listIssues(space: string, since?: string): Promise<StoredIssue[]> {
    if (since === undefined) return this.queryPrefix<StoredIssue>(spacePartition(space), SORT_PREFIX.issue);
    const items = await this.queryAll({
      IndexName: INDEXES.byUpdated.name,
      KeyConditionExpression: 'byUpdatedPk = :p AND byUpdatedSk >= :s',
      ExpressionAttributeValues: { ':p': issuesByUpdatedPartition(space), ':s': since },
    });
    return items.map((i) => strip<StoredIssue>(i));
  }

  async putPendingHiddenTest(pending: PendingHiddenTest): Promise<void> {
    try {
      await this.send('PutItem', {
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
    return this.queryPrefix<PendingHiddenTest>(spacePartition(space), pendingHiddenTestPrefix(id));
  }

  async claimIssue(space: string, taskId: string, host: string): Promise<string> {
    const key = issueOwnerKey(space, taskId);
    try {
      await this.send('PutItem', {
        Item: { ...key, host, kind: 'issue-owner' },
        ConditionExpression: 'attribute_not_exists(pk) OR host = :h',
        ExpressionAttributeValues: { ':h': host },
      });
      return host;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
    // A claim is never removed, so the owner that failed the condition is the one read back.
    const { Item } = await this.send('GetItem', { Key: key, ConsistentRead: true });
    return Item!.host as string;
  }

  async getHost(space: string, host: string): Promise<Versioned<StoredHost> | null> {
    const { Item } = await this.send('GetItem', { Key: hostKey(space, host), ConsistentRead: true });
    return Item ? { value: strip<StoredHost>(Item), rev: Item.rev as number } : null;
  }

  async putHost(host: StoredHost, expectedRev: number | null): Promise<boolean> {
    return this.conditionalPut(
      { ...host, ...hostKey(host.space, host.host), kind: 'host', rev: (expectedRev ?? 0) + 1 },
      expectedRev,
    );
  }

  reserve(space: string, day: string, cap: number): Promise<boolean> {
    return this.takeUnit(budgetKey(space, day), cap);
  }

  reserveAcrossSpaces(day: string, cap: number): Promise<boolean> {
    return this.takeUnit(allSpacesBudgetKey(day), cap);
  }

  async release(space: string, day: string): Promise<void> {
    try {
      await this.send('UpdateItem', {
        Key: budgetKey(space, day),
        UpdateExpression: 'ADD used :minusOne',
        ConditionExpression: 'used > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      });
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }

  private async takeUnit(key: ItemKey, cap: number): Promise<boolean> {
    try {
      await this.send('UpdateItem', {
        Key: key,
        // A reserved call costs nothing until its cost is added: one that never got an answer was not billed.
        UpdateExpression: 'ADD used :one, costUsd :zero SET kind = :k',
        ConditionExpression: 'attribute_not_exists(used) OR used < :cap',
        ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':cap': cap, ':k': 'budget' },
      });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async addCost(space: string, day: string, costUsd: number | null): Promise<void> {
    await this.send('UpdateItem', {
      Key: budgetKey(space, day),
      ...(costUsd === null
        ? {
            UpdateExpression: 'SET costUnknown = :t, kind = :k',
            ExpressionAttributeValues: { ':t': true, ':k': 'budget' },
          }
        : {
            UpdateExpression: 'ADD costUsd :c SET kind = :k',
            ExpressionAttributeValues: { ':c': costUsd, ':k': 'budget' },
          }),
    });
  }

  /**
   * Spend is read from the day's item: `costUsd` (a running sum the judge adds to per attempt) unless
   * `costUnknown` is set (an attempt without a price); an item without either has unknown spend.
   */
  async listDays(space: string, fromDay: string, toDay: string): Promise<BudgetDay[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': budgetKey(space, fromDay).pk, ':from': fromDay, ':to': toDay },
    });
    return items.map((item) => ({
      day: item.sk as string,
      calls: (item.used as number | undefined) ?? 0,
      costUsd: item.costUnknown === true || typeof item.costUsd !== 'number' ? null : item.costUsd,
    }));
  }

  async getJudgingStatus(space: string): Promise<Versioned<JudgingStatus> | null> {
    const { Item } = await this.send('GetItem', { Key: judgingKey(space), ConsistentRead: true });
    return Item ? { value: strip<JudgingStatus>(Item), rev: Item.rev as number } : null;
  }

  async putJudgingStatus(status: JudgingStatus, expectedRev: number | null): Promise<boolean> {
    return this.conditionalPut(
      { ...status, ...judgingKey(status.space), kind: 'judging-status', rev: (expectedRev ?? 0) + 1 },
      expectedRev,
    );
  }

  /** Every item of a partition whose sort key starts with `prefix`, all pages, read consistently. */
  private async queryPrefix<T>(partition: string, prefix: string): Promise<T[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':p': partition, ':s': prefix },
      ConsistentRead: true,
    });
    return items.map((i) => strip<T>(i));
  }

  /** Every item a key condition selects, all pages, as stored (keys included). */
  private async queryAll(input: Omit<QueryInput, 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.send('Query', { ...input, ExclusiveStartKey: start });
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items;
  }

  private async conditionalPut(item: Record<string, unknown>, expectedRev: number | null): Promise<boolean> {
    try {
      await this.send('PutItem', {
        Item: item,
        ...(expectedRev === null
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': expectedRev } }),
      });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  /** One table operation on the store's table, within the call's deadline. */
  private async send(
    operation: 'GetItem' | 'PutItem' | 'UpdateItem' | 'Query',
    input: TableInput,
  ): Promise<TableOutput> {
    // A key longer than DynamoDB's key limits names no item (the table refuses it with a ValidationException):
    // a read of one, from a hostile path say, finds nothing rather than failing.
    if (operation === 'GetItem' && input.Key && !withinKeyLimits(input.Key)) return {};
    const command = { ...input, TableName: this.tableName };
    return withinDeadline(`DynamoDB ${operation}`, this.timeouts, async (options): Promise<TableOutput> => {
      switch (operation) {
        case 'GetItem':
          return this.dynamo.send(new GetCommand({ ...command, Key: input.Key! }), options);
        case 'PutItem':
          await this.dynamo.send(new PutCommand({ ...command, Item: input.Item! }), options);
          return {};
        case 'UpdateItem':
          await this.dynamo.send(new UpdateCommand({ ...command, Key: input.Key! }), options);
          return {};
        case 'Query':
          return this.dynamo.send(new QueryCommand(command), options);
      }
    });
  }
}

/** DynamoDB's limits on a key: 2048 bytes of partition key, 1024 of sort key. */
const withinKeyLimits = (key: ItemKey) => Buffer.byteLength(key.pk) <= 2048 && Buffer.byteLength(key.sk) <= 1024;

function strip<T>(item: Record<string, unknown>): T {
  const copy = { ...item };
  for (const k of INTERNAL_ATTRIBUTES) delete copy[k];
  return copy as T;
}

function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

/** The key attributes a query's LastEvaluatedKey has, each with the values this query could have handed out. */
type CursorShape = Record<string, (value: string) => boolean>;

/**
 * A cursor must be a key this very query could have returned: exactly its key attributes, in the asking
 * space's partition. Anything else (another space's partition, other items, extra or missing attributes)
 * is refused here rather than passed to the table, which would fail the request or read outside the space.
 */
function decodeCursor(cursor: string | undefined, shape: CursorShape): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = null;
  }
  const fits =
    key !== null &&
    typeof key === 'object' &&
    !Array.isArray(key) &&
    Object.keys(key).length === Object.keys(shape).length &&
    Object.entries(key).every(
      ([name, value]) => Object.hasOwn(shape, name) && typeof value === 'string' && shape[name]!(value),
    );
  if (!fits) throw new InvalidCursorError('The cursor is not one this API returned for this space and query.');
  return key as Record<string, unknown>;
}
