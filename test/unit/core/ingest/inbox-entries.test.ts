// The inbox entry a 202 promises (docs/contract.md §3): keyed by signer and body, written create-only, so a
// delivery id reused by another host or another body never replaces an accepted delivery.
import { describe, expect, it } from '@jest/globals';
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { parseConfig } from '#schema/config.ts';
import type { LandingMessage } from '#core/ports.ts';
import { runDelivery, signedDeliveryHeaders } from '../../../helpers/deliveries.ts';
import {
  InMemoryKeySource,
  InMemoryObjectStore,
  InMemoryTable,
  RecordingQueue,
  SettableClock,
} from '../../../helpers/in-memory-ports.ts';

const KEYS = {
  'mac-studio-1': 'studio-key-0123456789abcdef0123456789',
  'mac-mini-2': 'mini-key-0123456789abcdef0123456789ab',
};
const NOW = new Date('2026-12-03T08:00:00Z');
const SHARED_ID = '0b5e7c1e-5a7e-4c7e-9d2a-3f1c2b4a5d6e';

function world() {
  const inbox = new InMemoryObjectStore();
  const landingQueue = new RecordingQueue<LandingMessage>();
  const table = new InMemoryTable();
  const deps: IngestDeps = {
    config: parseConfig({ spaces: { Main: { senders: Object.keys(KEYS) } } }),
    keys: new InMemoryKeySource(
      Object.fromEntries(Object.entries(KEYS).map(([host, key]) => [`Hosting:ModuleReportSecret:${host}`, [key]])),
    ),
    inbox,
    landingQueue,
    runs: table,
    issueOwners: table,
    clock: new SettableClock(NOW),
  };
  const send = (host: keyof typeof KEYS, delivery: unknown) => {
    const rawBody = Buffer.from(JSON.stringify(delivery));
    return acceptDelivery(deps, {
      space: 'Main',
      rawBody,
      headers: signedDeliveryHeaders('Main', rawBody, KEYS[host], { deliveryId: SHARED_ID, at: NOW }),
    });
  };
  const stored = () =>
    [...inbox.objects.values()].map((o) => JSON.parse(Buffer.from(o.body).toString('utf8')) as Record<string, unknown>);
  return { send, stored, inbox, landingQueue };
}

describe('inbox entries', () => {
  it('keep both deliveries when two hosts send different runs under one delivery id', async () => {
    const { send, stored } = world();
    const studio = runDelivery({ host: 'mac-studio-1', taskId: 'shared-1' });
    const mini = runDelivery({ host: 'mac-mini-2', model: 'gemma3:27b', taskId: 'shared-1' });
    expect((await send('mac-studio-1', studio)).status).toBe(202);
    expect((await send('mac-mini-2', mini)).status).toBe(202);
    const entries = stored();
    expect(entries.map((e) => [e.host, (e.delivery as { id: string }).id]).sort()).toEqual(
      [
        ['mac-mini-2', mini.id],
        ['mac-studio-1', studio.id],
      ].sort(),
    );
    // The sender's id stays as metadata for idempotent retries.
    expect(entries.map((e) => e.deliveryId)).toEqual([SHARED_ID, SHARED_ID]);
  });

  it('keep both bodies when one host sends two different runs under one delivery id', async () => {
    const { send, stored } = world();
    await send('mac-studio-1', runDelivery({ taskId: 'a-1' }));
    await send('mac-studio-1', runDelivery({ taskId: 'a-2' }));
    expect(stored()).toHaveLength(2);
  });

  it('answer an exact replay 202 again without replacing or adding an entry, and queue its claim check again', async () => {
    const { send, inbox, landingQueue } = world();
    const delivery = runDelivery({ taskId: 'replayed' });
    await send('mac-studio-1', delivery);
    const before = [...inbox.objects.entries()];
    expect(await send('mac-studio-1', delivery)).toMatchObject({ status: 202, body: { signature: 'verified' } });
    expect([...inbox.objects.entries()]).toEqual(before);
    expect(landingQueue.sent).toEqual([
      { space: 'Main', inboxKey: before[0]![0], deliveryId: SHARED_ID },
      { space: 'Main', inboxKey: before[0]![0], deliveryId: SHARED_ID },
    ]);
    expect(before[0]![0]).toMatch(/^inbox\/Main\/mac-studio-1__[0-9a-f]{64}\.json$/);
  });
});
