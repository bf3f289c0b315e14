// The lease contract (core/lease.ts) kept by the DynamoDB adapter against the emulator and by the in-memory
// port the handler tests use, and what the snapshot compactor does with it: one compaction at a time.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DynamoLeaseStore } from '#adapters/aws/dynamo-lease.ts';
import { dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { withLease } from '#core/lease.ts';
import type { LeaseStore } from '#core/ports.ts';
import { createSnapshotCompactorHandler } from '#functions/snapshot-compactor/handler.ts';
import { LEASES, TIMINGS } from '#core/operations.ts';
import { parseConfig } from '#schema/config.ts';
import { snapshotManifestKey, snapshotRebuildKey, snapshotSpacePrefix } from '#core/storage-layout.ts';
import { runRow } from '../helpers/records.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { InMemoryLeases, InMemoryObjectStore, InMemoryTable, SettableClock } from '../helpers/in-memory-ports.ts';
import { capturingOutput, logLines } from '../helpers/lambda-output.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { scheduledEvent } from '../helpers/events.ts';
import { localContext } from '#infra/local/local-invocation.ts';

let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(() => t.stop());

const at = (iso: string) => new Date(iso);
const T0 = '2026-12-01T10:00:00.000Z';
const stores: { name: string; make: () => LeaseStore }[] = [
  {
    name: 'DynamoDB leases (dynalite)',
    make: () =>
      new DynamoLeaseStore(
        dynamoClient(t.emulators.connection, t.emulators.timeouts),
        t.emulators.names.table,
        t.emulators.timeouts,
      ),
  },
  { name: 'in-memory leases', make: () => new InMemoryLeases() },
];

describe.each(stores)('$name', ({ make }) => {
  it('give a free lease to the first holder only', async () => {
    const leases = make();
    expect(await leases.acquireLease('free', 'a', at(T0), at('2026-12-01T10:06:00.000Z'))).toBe(true);
    expect(await leases.acquireLease('free', 'b', at('2026-12-01T10:05:00.000Z'), at('2026-12-01T10:11:00.000Z'))).toBe(
      false,
    );
    expect(await leases.acquireLease('other-job', 'b', at(T0), at('2026-12-01T10:06:00.000Z'))).toBe(true);
  });

  it('give an expired lease to the next holder, so a crashed holder blocks no longer than its lease', async () => {
    const leases = make();
    expect(await leases.acquireLease('crashed', 'a', at(T0), at('2026-12-01T10:06:00.000Z'))).toBe(true);
    expect(
      await leases.acquireLease('crashed', 'b', at('2026-12-01T10:06:00.001Z'), at('2026-12-01T10:12:00.000Z')),
    ).toBe(true);
    expect(
      await leases.acquireLease('crashed', 'c', at('2026-12-01T10:07:00.000Z'), at('2026-12-01T10:13:00.000Z')),
    ).toBe(false);
  });

  it("free a lease when its holder gives it up, and never on another's behalf", async () => {
    const leases = make();
    await leases.acquireLease('held', 'a', at(T0), at('2026-12-01T10:06:00.000Z'));
    await leases.releaseLease('held', 'someone-else');
    expect(await leases.acquireLease('held', 'b', at(T0), at('2026-12-01T10:06:00.000Z'))).toBe(false);
    await leases.releaseLease('held', 'a');
    expect(await leases.acquireLease('held', 'b', at(T0), at('2026-12-01T10:06:00.000Z'))).toBe(true);
    // A holder whose lease expired and was taken over cannot free the new holder's.
    await leases.releaseLease('held', 'a');
    expect(await leases.acquireLease('held', 'c', at(T0), at('2026-12-01T10:06:00.000Z'))).toBe(false);
  });

  it('let withLease run one job at a time, and release after a failure', async () => {
    const leases = make();
    const clock = new SettableClock(at(T0));
    const lease = { name: 'job', seconds: 360 };
    let inner: unknown;
    const outer = await withLease(leases, clock, lease, async () => {
      inner = await withLease(leases, clock, lease, async () => 'second');
      return 'first';
    });
    expect([outer, inner]).toEqual([{ ran: true, value: 'first' }, { ran: false }]);
    await expect(
      withLease(leases, clock, lease, async () => {
        throw new Error('compaction failed');
      }),
    ).rejects.toThrow('compaction failed');
    expect(await withLease(leases, clock, lease, async () => 'after')).toEqual({ ran: true, value: 'after' });
  });
});

describe('the snapshot compactor', () => {
  const config = parseConfig({ spaces: { S: { senders: ['mac-1'] } } });

  it('holds its lease for longer than it may run', () => {
    expect(LEASES.snapshotCompactor.seconds).toBeGreaterThan(TIMINGS.snapshotCompactorFunction);
  });

  it('steps aside while an earlier compaction holds the lease, and compacts once it is free', async () => {
    const table = new InMemoryTable();
    const objects = new InMemoryObjectStore();
    const leases = new InMemoryLeases();
    const clock = new SettableClock(at(T0));
    const compact = createSnapshotCompactorHandler(
      { config, runs: table, issues: table, objects, leases, clock },
      instrumentation('snapshot-compactor'),
    );
    await leases.acquireLease(
      LEASES.snapshotCompactor.name,
      'earlier-run',
      clock.now(),
      at('2026-12-01T10:06:00.000Z'),
    );
    const { output } = await capturingOutput(() => compact(scheduledEvent()));
    expect(await objects.getText(snapshotManifestKey('S'))).toBeNull();
    expect(logLines(output, 'an earlier compaction still holds the lease; this run steps aside')).toHaveLength(1);
    clock.advance(361);
    await capturingOutput(() => compact(scheduledEvent()));
    expect(await objects.getText(snapshotManifestKey('S'))).not.toBeNull();
  });

  it('compacts every other space when one fails, then fails the run naming it', async () => {
    const table = new InMemoryTable();
    const failing = new (class extends InMemoryObjectStore {
      override async put(key: string, body: string | Uint8Array, type?: string): Promise<void> {
        if (key.startsWith(snapshotSpacePrefix('Broken'))) throw new Error('access denied');
        return super.put(key, body, type);
      }
    })();
    const spaces = parseConfig({
      spaces: { A: { senders: ['mac-1'] }, Broken: { senders: ['mac-1'] }, C: { senders: ['mac-1'] } },
    });
    const compact = createSnapshotCompactorHandler(
      {
        config: spaces,
        runs: table,
        issues: table,
        objects: failing,
        leases: new InMemoryLeases(),
        clock: new SettableClock(at(T0)),
      },
      instrumentation('snapshot-compactor'),
    );
    let failure: unknown;
    const { output } = await capturingOutput(() => compact(scheduledEvent()).catch((e: unknown) => (failure = e)));
    expect(String(failure)).toContain('The compaction was incomplete: Broken.');
    for (const space of ['A', 'C']) expect(await failing.getText(snapshotManifestKey(space))).not.toBeNull();
    expect(logLines(output, 'compaction of a space failed')).toEqual([expect.objectContaining({ space: 'Broken' })]);
  });

  it('stops a rebuild short of the function timeout, keeping how far it got', async () => {
    const table = new InMemoryTable();
    for (let k = 0; k < 1500; k++) await table.putRun(runRow({ taskId: `t${k}` }, { space: 'S' }), null);
    const objects = new InMemoryObjectStore();
    const compact = createSnapshotCompactorHandler(
      { config, runs: table, issues: table, objects, leases: new InMemoryLeases(), clock: new SettableClock(at(T0)) },
      instrumentation('snapshot-compactor'),
    );
    // Four minutes left when it begins, less than one after the first page of the table.
    const declining = () => {
      const left = [240_000, 30_000];
      return () => left.shift() ?? 30_000;
    };
    const { output } = await capturingOutput(() =>
      compact(scheduledEvent(), localContext('snapshot-compactor', declining())),
    );
    expect(await objects.getText(snapshotManifestKey('S'))).toBeNull();
    expect(await objects.getText(snapshotRebuildKey('S'))).not.toBeNull();
    expect(logLines(output, 'the rebuild stopped short of the time limit; the next compaction goes on')).toHaveLength(
      1,
    );
    await capturingOutput(() => compact(scheduledEvent(), localContext('snapshot-compactor', declining())));
    expect(await objects.getText(snapshotManifestKey('S'))).not.toBeNull();
    expect(await objects.getText(snapshotRebuildKey('S'))).toBeNull();
  });
});
