// Runner hosts (their pairing records) in the table, each written under its revision.
import type { HostStore, Versioned } from '#core/ports.ts';
import type { StoredHost } from '#schema/host.ts';
import { hostRecordKey } from '#core/storage-layout.ts';
import { strip, type DynamoTable } from './dynamo-table.ts';

export class DynamoHostStore implements HostStore {
  constructor(private readonly table: DynamoTable) {}

  async getHost(space: string, host: string): Promise<Versioned<StoredHost> | null> {
    const { Item } = await this.table.send('GetItem', { Key: hostRecordKey(space, host), ConsistentRead: true });
    return Item ? { value: strip<StoredHost>(Item), rev: Item.rev as number } : null;
  }

  async putHost(host: StoredHost, expectedRev: number | null): Promise<boolean> {
    return this.table.conditionalPut(
      { ...host, ...hostRecordKey(host.space, host.host), kind: 'host', rev: (expectedRev ?? 0) + 1 },
      expectedRev,
    );
  }
}
