// Ingest alone against in-memory ports: a configuration, the host keys by `{secretConfigKey}:{host}`, and a clock
// that tests may move. `send` signs a delivery for a space with a key at the clock's time and posts it.
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import type { LandingMessage } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import { signedDeliveryHeaders } from './deliveries.ts';
import {
  InMemoryKeySource,
  InMemoryObjectStore,
  InMemoryTable,
  RecordingQueue,
  SettableClock,
} from './in-memory-ports.ts';

export function ingestWorld(config: unknown, keys: Record<string, string[]>, now: Date) {
  const table = new InMemoryTable();
  const inbox = new InMemoryObjectStore();
  const landingQueue = new RecordingQueue<LandingMessage>();
  const clock = new SettableClock(now);
  const deps: IngestDeps = {
    config: parseConfig(config),
    keys: new InMemoryKeySource(keys),
    inbox,
    landingQueue,
    runs: table,
    issueOwners: table,
    clock,
  };
  const send = (space: string, delivery: unknown, key: string) => {
    const rawBody = Buffer.from(JSON.stringify(delivery));
    const headers = signedDeliveryHeaders(space, rawBody, key, { at: clock.now() });
    return acceptDelivery(deps, { space, rawBody, headers });
  };
  return { deps, table, inbox, clock, send, queued: () => landingQueue.sent.length };
}
