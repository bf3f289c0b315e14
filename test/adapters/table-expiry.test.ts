// Bookkeeping items of the table expire (EXPIRY_ATTRIBUTE, the table's time to live): each adapter that writes
// one writes when DynamoDB may delete it, in epoch seconds, against the emulator. Records never carry it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoClient, DynamoStore } from '#adapters/aws/dynamo-store.ts';
import { DynamoLeaseStore } from '#adapters/aws/dynamo-lease.ts';
import { DynamoReenqueueLedger } from '#adapters/aws/dynamo-reenqueue-ledger.ts';
import { MAX_BUDGET_DAYS } from '#core/read/read-api.ts';
import {
  allSpacesBudgetKey,
  budgetKey,
  EXPIRY_ATTRIBUTE,
  leaseKey,
  reenqueueKey,
  type ItemKey,
} from '#core/storage-layout.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';

let t: TestStores;
let documents: DynamoDBDocumentClient;
beforeAll(async () => {
  t = await startTestStores();
  documents = dynamoClient(t.emulators.connection, t.emulators.timeouts);
});
afterAll(() => t.stop());

const DAY = 86_400;
const epoch = (iso: string) => Date.parse(iso) / 1000;
const expiryOf = async (key: ItemKey) =>
  (await documents.send(new GetCommand({ TableName: t.emulators.names.table, Key: key }))).Item?.[EXPIRY_ATTRIBUTE];

describe('items the table lets expire', () => {
  it('a lease: a day after the lease itself runs out', async () => {
    const leases = new DynamoLeaseStore(documents, t.emulators.names.table, t.emulators.timeouts);
    const until = '2026-12-01T10:06:00.000Z';
    expect(await leases.acquireLease('expiring', 'a', new Date('2026-12-01T10:00:00Z'), new Date(until))).toBe(true);
    expect(await expiryOf(leaseKey('expiring'))).toBe(epoch(until) + DAY);
  });

  it("a re-enqueue count: past the inbox's 14 days after it was last counted", async () => {
    const ledger = new DynamoReenqueueLedger(documents, t.emulators.names.table, t.emulators.timeouts);
    const key = 'inbox/S/mac-1__abc.json';
    await ledger.countReenqueue(key, new Date('2026-12-01T10:00:00Z'));
    await ledger.countReenqueue(key, new Date('2026-12-01T10:15:00Z'));
    const expiry = (await expiryOf(reenqueueKey(key))) as number;
    expect(expiry).toBe(epoch('2026-12-01T10:15:00Z') + 15 * DAY);
  });

  it('a budget day, per space and across spaces: kept past the longest /budget window, whoever writes it', async () => {
    const store = new DynamoStore(documents, t.emulators.names.table, t.emulators.timeouts);
    const day = '2026-12-01';
    expect(await store.reserve('S', day, 5)).toBe(true);
    expect(await store.reserveAcrossSpaces(day, 5)).toBe(true);
    const kept = (await expiryOf(budgetKey('S', day))) as number;
    expect(kept - epoch(`${day}T00:00:00Z`)).toBeGreaterThan(MAX_BUDGET_DAYS * DAY);
    expect(await expiryOf(allSpacesBudgetKey(day))).toBe(kept);
    // The cost written alone (a day whose reservation predates expiry) gets it too.
    await store.addCost('S', '2026-12-02', 0.03);
    expect(await expiryOf(budgetKey('S', '2026-12-02'))).toBe(kept + DAY);
    // …and the reader never shows it.
    expect(await store.listDays('S', day, day)).toEqual([
      expect.not.objectContaining({ [EXPIRY_ATTRIBUTE]: expect.anything() }),
    ]);
  });
});
