// Ingest and landing of one space `S` against in-memory ports, for the ownership and run-id rules
// (docs/contract.md §3 check 7, §4): `send` signs and posts a delivery as its host, `land` lands it directly, as
// a delivery that passed ingest before the state it meets.
import {
  landEntry,
  landInboxEntry,
  type ForeignAttempt,
  type IdCollision,
  type LandingDeps,
} from '#core/landing/land.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { DEFAULT_SECRET_CONFIG_KEY } from '#schema/config.ts';
import { inboxEntry } from './deliveries.ts';
import { InMemoryObjectStore, RecordingQueue, SettableClock } from './in-memory-ports.ts';
import { ingestWorld } from './ingest-world.ts';

export const STUDIO = 'mac-studio-1';
export const MINI = 'mac-mini-2';
export const PRO = 'mac-pro-3';
const KEYS: Record<string, string> = { [STUDIO]: 'k-studio', [MINI]: 'k-mini', [PRO]: 'k-pro' };
export const NOW = new Date('2026-11-29T12:00:00.000Z');

export function ingestLandingWorld(spaceSettings: Record<string, unknown> = {}) {
  const foreign: ForeignAttempt[] = [];
  const collisions: IdCollision[] = [];
  const ingest = ingestWorld(
    { spaces: { S: { senders: [STUDIO, MINI, PRO], ...spaceSettings } } },
    Object.fromEntries(Object.entries(KEYS).map(([host, key]) => [`${DEFAULT_SECRET_CONFIG_KEY}:${host}`, [key]])),
    NOW,
  );
  const { table, inbox } = ingest;
  const landing: LandingDeps = {
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects: new InMemoryObjectStore(),
    inbox,
    judgeQueue: new RecordingQueue<JudgeMessage>(),
    clock: new SettableClock(NOW),
    keptForeign: (f) => foreign.push(f),
    collided: (c) => collisions.push(c),
  };
  const send = (delivery: Record<string, unknown>) => ingest.send('S', delivery, KEYS[delivery.host as string]!);
  const land = (delivery: Record<string, unknown>, deliveryId = 'd') =>
    landEntry(landing, inboxEntry('S', delivery as never, { deliveryId }));
  /** Lands what `send` put in the inbox, as the lander would, and answers each outcome. */
  const landSent = async () => {
    const outcomes = [];
    for (const key of await inbox.list('inbox/')) outcomes.push(await landInboxEntry(landing, key));
    return outcomes;
  };
  const { objects } = landing;
  return { config: ingest.deps.config, table, inbox, objects, foreign, collisions, send, land, landSent };
}
