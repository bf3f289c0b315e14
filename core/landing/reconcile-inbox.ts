// The claim checks' safety net (docs/contract.md §3): an accepted delivery waits in the inbox until the lander
// lands it and deletes it, so an entry older than the landing queue's whole retry span (visibility × receives)
// has lost its queue message (a purge, retention) or is set aside in the dead-letter queue. The
// reconciliation queues such an entry again, at most three times; the fourth time it finds it, it sets one
// message aside in the landing dead-letter queue, whose alarm asks an operator to look. Landing is
// idempotent, so a message queued again for an entry that lands meanwhile changes nothing.
import type { Clock, LandingMessage, MessageQueue, ObjectStore, ReenqueueLedger } from '../ports.ts';
import { MAX_RECEIVES, TIMINGS, visibilitySecondsFor } from '../operations.ts';
import { INBOX_PREFIX, parseInboxKey } from '../storage-layout.ts';

/** An entry older than this has outlived every delivery of its queue message. */
export const RECONCILE_AFTER_SECONDS = visibilitySecondsFor(TIMINGS.landerFunction) * MAX_RECEIVES;
export const MAX_REENQUEUES = 3;

export interface ReconcileDeps {
  inbox: ObjectStore;
  landingQueue: MessageQueue<LandingMessage>;
  landingDeadLetters: MessageQueue<LandingMessage>;
  ledger: ReenqueueLedger;
  clock: Clock;
}

export interface Reconciliation {
  /** Entries older than RECONCILE_AFTER_SECONDS. */
  stale: number;
  reenqueued: number;
  deadLettered: number;
  /** Keys that name no space: never written by ingest, left alone. */
  foreign: string[];
}

export async function reconcileInbox(deps: ReconcileDeps): Promise<Reconciliation> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - RECONCILE_AFTER_SECONDS * 1000);
  const stale = await deps.inbox.listWrittenBefore(INBOX_PREFIX, before);
  const result: Reconciliation = { stale: stale.length, reenqueued: 0, deadLettered: 0, foreign: [] };
  for (const inboxKey of stale) {
    const parsed = parseInboxKey(inboxKey);
    if (!parsed) {
      result.foreign.push(inboxKey);
      continue;
    }
    const count = await deps.ledger.countReenqueue(inboxKey, now);
    const message = { space: parsed.space, inboxKey };
    if (count <= MAX_REENQUEUES) {
      await deps.landingQueue.send(message);
      result.reenqueued++;
    } else if (count === MAX_REENQUEUES + 1) {
      await deps.landingDeadLetters.send(message);
      result.deadLettered++;
    }
  }
  return result;
}
