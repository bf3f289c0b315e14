// Runs and their archived attempts (docs/contract.md §4: written once, never erased) in the table.
import type { AttemptStore, DueRun, Page, RunStore, Versioned } from '#core/ports.ts';
import { takesHiddenTest, type ArchivedAttempt } from '#schema/attempt.ts';
import type { RunRow, StoredHiddenTestResult } from '#schema/run.ts';
import {
  INDEXES,
  SORT_PREFIX,
  archivedAttemptKey,
  attemptPrefix,
  byHostPartition,
  byUpdatedKey,
  byUpdatedPartition,
  runKey,
  spacePartition,
} from '#core/storage-layout.ts';
import { decodeCursor, encodeCursor, type CursorShape } from './dynamo-cursor.ts';
import {
  atLeastAsNew,
  isConditionFailure,
  RAN_EARLIER,
  strip,
  type DynamoTable,
  type QueryInput,
} from './dynamo-table.ts';

export class DynamoRunStore implements RunStore, AttemptStore {
  constructor(private readonly table: DynamoTable) {}

  async getRun(space: string, id: string): Promise<Versioned<RunRow> | null> {
    const { Item } = await this.table.send('GetItem', { Key: runKey(space, id), ConsistentRead: true });
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
    return this.table.conditionalPut(item, expectedRev);
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
    const out = await this.table.send('Query', {
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
    // The index holds keys only: the rows come from the table (those deleted since the query are left out).
    const rows = since ? await this.table.fetchIndexed(page, atLeastAsNew) : page;
    return { items: rows.map((i) => strip<RunRow>(i)), cursor: encodeCursor(cursor) };
  }

  async listDueRuns(space: string, dueBy: string, limit: number): Promise<DueRun[]> {
    const out = await this.table.send('Query', {
      IndexName: INDEXES.due.name,
      KeyConditionExpression: 'dueSpace = :p AND dueAt <= :d',
      ExpressionAttributeValues: { ':p': space, ':d': dueBy },
      Limit: limit,
    });
    return (out.Items ?? []).map((i) => ({ id: i.id as string, finishedAt: i.finishedAt as string }));
  }

  async countRunsByHost(space: string, host: string): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.table.send('Query', {
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
      await this.table.send('PutItem', {
        Item: {
          ...attempt,
          ...archivedAttemptKey(attempt),
          kind: 'attempt',
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }

  listAttempts(space: string, id: string): Promise<ArchivedAttempt[]> {
    return this.table.queryPrefix<ArchivedAttempt>(spacePartition(space), attemptPrefix(id));
  }

  async setAttemptHiddenTest(
    space: string,
    id: string,
    host: string,
    finishedAt: string,
    result: StoredHiddenTestResult,
  ): Promise<number> {
    const matching = (await this.listAttempts(space, id)).filter((a) => takesHiddenTest(a, host, finishedAt));
    for (const attempt of matching) {
      const key = archivedAttemptKey(attempt);
      // A plain put of the whole item (no UpdateItem): an archived attempt changes only here, only to a result
      // that ran later than its own.
      try {
        await this.table.send('PutItem', {
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
}
