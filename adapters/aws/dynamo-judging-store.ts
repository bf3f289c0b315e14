// What the judge spends and whether it may: the daily call budgets (per space and across spaces) with their
// cost, each space's judging status, and the Message Batches a batch-mode space has open.
import type {
  BudgetDay,
  BudgetStore,
  JudgeBatch,
  JudgeBatchStore,
  JudgingStatus,
  JudgingStatusStore,
  Versioned,
} from '#core/ports.ts';
import {
  allSpacesBudgetKey,
  budgetKey,
  deleteAfter,
  EXPIRY_DAYS,
  hostBudgetKey,
  JUDGE_BATCH_PREFIX,
  judgeBatchKey,
  spacePartition,
  judgingKey,
  type ItemKey,
} from '#core/storage-layout.ts';
import { isConditionFailure, strip, type DynamoTable } from './dynamo-table.ts';

/** A budget day (`YYYY-MM-DD`, UTC) is kept from its start for EXPIRY_DAYS.budgetDay days. */
const budgetExpiry = (day: string) => deleteAfter(new Date(`${day}T00:00:00.000Z`), EXPIRY_DAYS.budgetDay);

export class DynamoJudgingStore implements BudgetStore, JudgingStatusStore, JudgeBatchStore {
  constructor(private readonly table: DynamoTable) {}

  reserve(space: string, day: string, cap: number): Promise<boolean> {
    return this.takeUnit(budgetKey(space, day), day, cap);
  }

  reserveAcrossSpaces(day: string, cap: number): Promise<boolean> {
    return this.takeUnit(allSpacesBudgetKey(day), day, cap);
  }

  reserveForHost(space: string, host: string, day: string, cap: number): Promise<boolean> {
    return this.takeUnit(hostBudgetKey(space, host, day), day, cap);
  }

  release(space: string, day: string): Promise<void> {
    return this.giveBack(budgetKey(space, day));
  }

  releaseForHost(space: string, host: string, day: string): Promise<void> {
    return this.giveBack(hostBudgetKey(space, host, day));
  }

  releaseAcrossSpaces(day: string): Promise<void> {
    return this.giveBack(allSpacesBudgetKey(day));
  }

  private async giveBack(key: ItemKey): Promise<void> {
    try {
      await this.table.send('UpdateItem', {
        Key: key,
        UpdateExpression: 'ADD used :minusOne',
        ConditionExpression: 'used > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      });
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }

  private async takeUnit(key: ItemKey, day: string, cap: number): Promise<boolean> {
    try {
      await this.table.send('UpdateItem', {
        Key: key,
        // A reserved call costs nothing until its cost is added: one that never got an answer was not billed.
        UpdateExpression: 'ADD used :one, costUsd :zero SET kind = :k, deleteAfter = :expiry',
        ConditionExpression: 'attribute_not_exists(used) OR used < :cap',
        ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':cap': cap, ':k': 'budget', ':expiry': budgetExpiry(day) },
      });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async addCost(space: string, day: string, costUsd: number | null): Promise<void> {
    await this.table.send('UpdateItem', {
      Key: budgetKey(space, day),
      ...(costUsd === null
        ? {
            UpdateExpression: 'SET costUnknown = :t, kind = :k, deleteAfter = :expiry',
            ExpressionAttributeValues: { ':t': true, ':k': 'budget', ':expiry': budgetExpiry(day) },
          }
        : {
            UpdateExpression: 'ADD costUsd :c SET kind = :k, deleteAfter = :expiry',
            ExpressionAttributeValues: { ':c': costUsd, ':k': 'budget', ':expiry': budgetExpiry(day) },
          }),
    });
  }

  /**
   * Spend is read from the day's item: `costUsd` (a running sum the judge adds to per attempt) unless
   * `costUnknown` is set (an attempt without a price); an item without either has unknown spend.
   */
  async listDays(space: string, fromDay: string, toDay: string): Promise<BudgetDay[]> {
    const items = await this.table.queryAll({
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
    const { Item } = await this.table.send('GetItem', { Key: judgingKey(space), ConsistentRead: true });
    return Item ? { value: strip<JudgingStatus>(Item), rev: Item.rev as number } : null;
  }

  async putJudgingStatus(status: JudgingStatus, expectedRev: number | null): Promise<boolean> {
    return this.table.conditionalPut(
      { ...status, ...judgingKey(status.space), kind: 'judging-status', rev: (expectedRev ?? 0) + 1 },
      expectedRev,
    );
  }

  async putJudgeBatch(batch: JudgeBatch): Promise<void> {
    await this.table.send('PutItem', {
      Item: { ...batch, ...judgeBatchKey(batch.space, batch.id), kind: 'judge-batch' },
    });
  }

  async listJudgeBatches(space: string): Promise<JudgeBatch[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':p': spacePartition(space), ':prefix': JUDGE_BATCH_PREFIX },
      ConsistentRead: true,
    });
    return items.filter((item) => item.collectedAt === undefined).map((item) => strip<JudgeBatch>(item));
  }

  async recordBatchSpend(space: string, batchId: string, customId: string): Promise<boolean> {
    try {
      await this.table.send('UpdateItem', {
        Key: judgeBatchKey(space, batchId),
        UpdateExpression: 'ADD spentRequests :ids',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(spentRequests, :id)',
        ExpressionAttributeValues: { ':ids': new Set([customId]), ':id': customId },
      });
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  /** Marked rather than deleted (the judge may not delete items); the table's expiry removes it. */
  async closeJudgeBatch(space: string, batchId: string, at: Date): Promise<void> {
    await this.table.send('UpdateItem', {
      Key: judgeBatchKey(space, batchId),
      UpdateExpression: 'SET collectedAt = :at, deleteAfter = :expiry',
      ExpressionAttributeValues: {
        ':at': at.toISOString(),
        ':expiry': deleteAfter(at, EXPIRY_DAYS.collectedJudgeBatch),
      },
    });
  }
}
