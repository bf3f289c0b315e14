// The inbox entry a 202 promises (docs/contract.md §3): keyed by signer and body, written create-only, so a
// delivery id reused by another host or another body never replaces an accepted delivery. Where the landing
// queue is durable, a delivery that fits its message travels in it instead, with no inbox entry.
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

function world(landingMessageMaxBytes?: number) {
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
    landingMessageMaxBytes,
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
  return { send, stored, inbox, landingQueue, deps };
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

describe('where the landing queue is durable', () => {
  it('a delivery that fits travels in the landing message, with no inbox entry', async () => {
    const { send, inbox, landingQueue } = world(64 * 1024);
    const delivery = runDelivery({ taskId: 'inline-1' });
    expect(await send('mac-studio-1', delivery)).toMatchObject({ status: 202, body: { signature: 'verified' } });
    expect(inbox.objects.size).toBe(0);
    expect(landingQueue.sent).toEqual([
      {
        space: 'Main',
        deliveryId: SHARED_ID,
        entry: {
          space: 'Main',
          deliveryId: SHARED_ID,
          receivedAt: NOW.toISOString(),
          host: 'mac-studio-1',
          delivery: expect.objectContaining({ kind: 'run', id: delivery.id, patch: delivery.patch }),
        },
      },
    ]);
  });

  it('a delivery larger than the message goes through the inbox, and the message is its claim check', async () => {
    const { send, stored, inbox, landingQueue } = world(64 * 1024);
    const delivery = runDelivery({ taskId: 'large-1' }, { patch: `diff --git a/x b/x\n+${'x'.repeat(70 * 1024)}\n` });
    expect((await send('mac-studio-1', delivery)).status).toBe(202);
    const [key] = [...inbox.objects.keys()];
    expect(stored()).toEqual([expect.objectContaining({ host: 'mac-studio-1', deliveryId: SHARED_ID })]);
    expect(landingQueue.sent).toEqual([{ space: 'Main', inboxKey: key, deliveryId: SHARED_ID }]);
  });

  it('a delivery whose message cannot be sent is answered with an error, not 202, and nothing is half kept', async () => {
    const { send, inbox, deps } = world(64 * 1024);
    const timedOut = () => Promise.reject(new Error('SQS SendMessage timed out'));
    deps.landingQueue = { send: timedOut, sendAll: timedOut };
    await expect(send('mac-studio-1', runDelivery({ taskId: 'unsent-1' }))).rejects.toThrow('timed out');
    expect(inbox.objects.size).toBe(0);
  });
});
