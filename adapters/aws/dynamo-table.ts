// The one DynamoDB table behind every table-backed port (keys in core/storage-layout.ts): the document
// client, each operation within its call's deadline, and the queries and conditional writes the stores share.
// Rows keep an optimistic revision `rev` so read-modify-write landing and judging converge under concurrency.
// A keys-only index is read with the rows fetched from the table after it (fetchIndexed): BatchGetItem, 100 keys
// a request, unprocessed keys asked again.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import { INTERNAL_ATTRIBUTES, type ItemKey } from '#core/storage-layout.ts';
import { clientSettings, errorNameOf, withinDeadline, type AwsConnection } from './sdk-settings.ts';

/** The document client the store talks through; attributes a row leaves undefined are not written. */
export const dynamoClient = (
  connection: AwsConnection,
  timeouts: AwsCallTimeouts = AWS_CALLS.standard,
): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(new DynamoDBClient(clientSettings(connection, 'dynamodb', timeouts)), {
    marshallOptions: { removeUndefinedValues: true },
  });

export type Item = Record<string, unknown>;

/** An operation's input as plain values; `send` adds the table and converts the item-shaped fields. */
export interface TableInput {
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

export type QueryInput = Omit<TableInput, 'Key' | 'Item' | 'ConditionExpression' | 'UpdateExpression'>;

/** The item's hidden-test result ran before `:r`, or it has none (`:nullType` is 'NULL'). */
export const RAN_EARLIER =
  'attribute_not_exists(hiddenTestResult) OR attribute_type(hiddenTestResult, :nullType) OR hiddenTestResult.ranAt < :r';

/** A row or issue record fetched after a `byUpdated` query is at least the version the index named: its key sorts as late. */
export const atLeastAsNew = (fetched: Item, indexed: Item) =>
  typeof fetched.byUpdatedSk === 'string' && fetched.byUpdatedSk >= (indexed.byUpdatedSk as string);

export const isConditionFailure = (e: unknown) => errorNameOf(e) === 'ConditionalCheckFailedException';

export class DynamoTable {
  constructor(
    private readonly dynamo: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
  ) {}

  /** Every item of a partition whose sort key starts with `prefix`, all pages, read consistently. */
  async queryPrefix<T>(partition: string, prefix: string): Promise<T[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':p': partition, ':s': prefix },
      ConsistentRead: true,
    });
    return items.map((i) => strip<T>(i));
  }

  /** Every item a key condition selects, all pages, as stored (keys included). */
  async queryAll(input: Omit<QueryInput, 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.send('Query', { ...input, ExclusiveStartKey: start });
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items;
  }

  /**
   * The table's items for the items a keys-only index query returned, in the index's order. Read eventually
   * consistently, as the index itself is; an item the read finds missing, or older than the version the index
   * named (`current` says whether it is at least as new), is read again consistently, so a delta never hands out
   * a version older than the one its index key stood for. An item deleted since the query is left out.
   */
  async fetchIndexed(indexed: Item[], current: (fetched: Item, indexed: Item) => boolean): Promise<Item[]> {
    const keyOf = (item: Item) => ({ pk: item.pk as string, sk: item.sk as string });
    const id = (item: Item) => JSON.stringify([item.pk, item.sk]);
    const fetched = new Map((await this.getMany(indexed.map(keyOf), false)).map((item) => [id(item), item]));
    const stale = indexed.filter((item) => {
      const found = fetched.get(id(item));
      return !found || !current(found, item);
    });
    for (const item of await this.getMany(stale.map(keyOf), true)) fetched.set(id(item), item);
    const out: Item[] = [];
    for (const item of indexed) {
      const found = fetched.get(id(item));
      if (found && current(found, item)) out.push(found);
    }
    return out;
  }

  /** The items at `keys` that exist (in no particular order): 100 keys a request, unprocessed keys asked again. */
  private async getMany(keys: ItemKey[], consistent: boolean): Promise<Item[]> {
    const items: Item[] = [];
    for (let from = 0; from < keys.length; from += BATCH_GET_KEYS) {
      let pending: ItemKey[] = keys.slice(from, from + BATCH_GET_KEYS);
      let answered = true;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === BATCH_GET_ATTEMPTS)
          throw new Error(`DynamoDB BatchGetItem left ${pending.length} keys unprocessed ${attempt} times`);
        // DynamoDB leaves keys unprocessed past 16 MB of answer, or all of them when throttled: those are asked
        // for again, after a pause that grows when the last answer returned nothing.
        if (!answered) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        const request = { Keys: pending, ConsistentRead: consistent };
        const out = await withinDeadline('DynamoDB BatchGetItem', this.timeouts, (options) =>
          this.dynamo.send(new BatchGetCommand({ RequestItems: { [this.tableName]: request } }), options),
        );
        const got = out.Responses?.[this.tableName] ?? [];
        items.push(...got);
        answered = got.length > 0;
        pending = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as ItemKey[];
      }
    }
    return items;
  }

  async conditionalPut(item: Record<string, unknown>, expectedRev: number | null): Promise<boolean> {
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
  async send(operation: 'GetItem' | 'PutItem' | 'UpdateItem' | 'Query', input: TableInput): Promise<TableOutput> {
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

/** BatchGetItem's most keys a request, and how often its unprocessed keys are asked for before giving up. */
const BATCH_GET_KEYS = 100;
const BATCH_GET_ATTEMPTS = 8;

/** DynamoDB's limits on a key: 2048 bytes of partition key, 1024 of sort key. */
const withinKeyLimits = (key: ItemKey) => Buffer.byteLength(key.pk) <= 2048 && Buffer.byteLength(key.sk) <= 1024;

/** The item as the ports know it: without the table's keys and bookkeeping attributes. */
export function strip<T>(item: Record<string, unknown>): T {
  const copy = { ...item };
  for (const k of INTERNAL_ATTRIBUTES) delete copy[k];
  return copy as T;
}
