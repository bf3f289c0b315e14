// Local mode's table follows the indexes of storage-layout.ts: a data folder kept from before they changed is
// rebuilt with them at the next start, items kept, and a start interrupted in the middle finishes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { clientSettings } from '#adapters/aws/sdk-settings.ts';
import { AWS_CALLS } from '#core/operations.ts';
import {
  byHostPartition,
  byUpdatedKey,
  INDEXES,
  RETIRED_INDEXES,
  runKey,
  type TableIndex,
} from '#core/storage-layout.ts';
import { startEmulators, tableDefinition, untilTable } from '#infra/local/emulators.ts';
import { runRow } from '../helpers/records.ts';
import { sharedEmulators } from '../helpers/shared-emulators.ts';

const dir = mkdtempSync(join(tmpdir(), 'replay-local-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const queues = { visibilityTimeoutSeconds: 1, maxReceiveCount: 3 };

/** A table made by an earlier start, active: created here, strictly (it must not exist yet), with the given indexes. */
async function oldTable(client: DynamoDBClient, tableName: string, indexes: TableIndex[]) {
  await client.send(new CreateTableCommand(tableDefinition(tableName, indexes)));
  await untilTable(client, tableName, 'active');
}

const landed = (id: string) => {
  const row = runRow({}, { space: 'kept', id, updatedAt: '2026-04-01T00:00:00.000Z' });
  return marshall(
    {
      ...row,
      ...runKey('kept', id),
      kind: 'run',
      rev: 1,
      ...byUpdatedKey('kept', row.updatedAt, id),
      byHostPk: byHostPartition('kept', row.host),
    },
    { removeUndefinedValues: true },
  );
};

async function startOn(running: NonNullable<ReturnType<typeof sharedEmulators>>) {
  const emulators = await startEmulators(dir, queues, running);
  const documents = dynamoClient(emulators.connection, emulators.timeouts);
  const { Table } = await emulators.dynamo.send(new DescribeTableCommand({ TableName: running.names.table }));
  const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, i.Projection?.ProjectionType]);
  const delta = await new DynamoStore(documents, running.names.table, emulators.timeouts).listRuns('kept', {
    limit: 10,
    since: '2026-03-01T00:00:00.000Z',
  });
  const tables = (await emulators.dynamo.send(new ListTablesCommand({}))).TableNames ?? [];
  documents.destroy();
  await emulators.stop();
  return { indexes, ids: delta.items.map((r) => r.id).sort(), tables };
}

const wanted = Object.values(INDEXES)
  .map((i) => [i.name, i.projection])
  .sort();

describe('local mode table', () => {
  it('rebuilds a table made with the ALL-projected indexes, keeping its items', async () => {
    const running = sharedEmulators()!;
    const client = new DynamoDBClient(clientSettings(running.connection, 'dynamodb', AWS_CALLS.emulated));
    await oldTable(client, running.names.table, [RETIRED_INDEXES.byUpdated, RETIRED_INDEXES.due, INDEXES.byHost]);
    for (const id of ['a', 'b'])
      await client.send(new PutItemCommand({ TableName: running.names.table, Item: landed(id) }));
    const started = await startOn(running);
    expect(started.indexes.sort()).toEqual(wanted);
    expect(started.ids).toEqual(['a', 'b']);
    expect(started.tables).not.toContain(`${running.names.table}-previous`);
    client.destroy();
  });

  it('finishes a rebuild that stopped once the old table was copied and deleted', async () => {
    const running = sharedEmulators()!;
    const client = new DynamoDBClient(clientSettings(running.connection, 'dynamodb', AWS_CALLS.emulated));
    const previous = `${running.names.table}-previous`;
    await oldTable(client, previous, []);
    await client.send(new PutItemCommand({ TableName: previous, Item: landed('c') }));
    const started = await startOn(running);
    expect(started.indexes.sort()).toEqual(wanted);
    expect(started.ids).toEqual(['c']);
    expect(started.tables).not.toContain(previous);
    client.destroy();
  });
});
