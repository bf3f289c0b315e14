// Sending the outbox (docs/contract.md §7). Deliveries go out a few at a time; each keeps its X-Replay-Delivery id
// across retries. 202 "verified" → ledger; 3xx (never followed), 400/404/413, 403 not-owner and 409 id-collision →
// rejected/ (they can never be accepted there); 401, 403,
// 408, 425 (times ahead of the endpoint's clock), 429, 5xx and network failures → retried in rounds with exponential backoff and jitter until
// `retryForMs` has passed, then left queued for the next run. A hidden-test result waits until its run
// is accepted. A host without a key sends nothing; its deliveries stay queued.
import { postSigned } from './push.ts';
import { OutboxError, type Outbox, type OutboxEntry, type ServerAnswer } from './outbox.ts';

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;

export type AnswerClass = 'accepted' | 'rejected' | 'retry';

/** What an answer means for the delivery that got it. */
function classifyAnswer(answer: ServerAnswer): AnswerClass {
  if (answer.status === 202) return answer.body.signature === 'verified' ? 'accepted' : 'retry';
  if ((answer.status >= 300 && answer.status < 400) || [400, 404, 413].includes(answer.status)) return 'rejected';
  if (answer.status === 403 && answer.body.error === 'not-owner') return 'rejected';
  if (answer.status === 409 && answer.body.error === 'id-collision') return 'rejected';
  return 'retry';
}

export type DrainEvent =
  | { type: 'start'; runs: number; deliveries: number }
  | { type: 'accepted'; entry: OutboxEntry }
  | { type: 'rejected'; entry: OutboxEntry; answer: ServerAnswer }
  | { type: 'retry'; entry: OutboxEntry; message: string }
  | { type: 'waiting'; seconds: number; queued: number; message: string }
  | { type: 'unpaired'; host: string; queued: number };

export interface DrainOptions {
  endpoint: string;
  /** The key of each host; null = not paired yet. */
  keys: Map<string, string | null>;
  concurrency?: number;
  retryForMs?: number;
  /** The clock each attempt is signed by (Date.now); the retry deadline and backoff keep real time. */
  now?: () => number;
  onEvent?: (event: DrainEvent) => void;
}

export interface DrainResult {
  accepted: OutboxEntry[];
  rejected: OutboxEntry[];
  remaining: OutboxEntry[];
  unpairedHosts: string[];
}

/** Exponential backoff with "equal jitter": half the step fixed, half random, so retrying hosts spread out. */
function backoffMs(round: number, baseMs: number, maxMs: number, random: () => number): number {
  const step = Math.min(maxMs, baseMs * 2 ** round);
  return step / 2 + (step / 2) * random();
}

const sentence = (answer: ServerAnswer) =>
  `${answer.status} ${String(answer.body.error ?? '')}${answer.body.message ? `: ${String(answer.body.message)}` : ''}`.trim();

export async function drainOutbox(outbox: Outbox, options: DrainOptions): Promise<DrainResult> {
  const concurrency = options.concurrency ?? 8;
  const deadline = Date.now() + (options.retryForMs ?? 60_000);
  const emit = options.onEvent ?? (() => {});
  const result: DrainResult = { accepted: [], rejected: [], remaining: [], unpairedHosts: [] };

  const queued = await outbox.pending();
  const unpaired = new Set(queued.filter((q) => !options.keys.get(q.host)).map((q) => q.host));
  for (const host of unpaired) {
    const count = queued.filter((q) => q.host === host).length;
    emit({ type: 'unpaired', host, queued: count });
    outbox.noteError(host, `not paired: no key, so ${count} deliveries wait in the outbox`);
  }
  result.unpairedHosts = [...unpaired];
  let work = queued.filter((q) => !unpaired.has(q.host));
  result.remaining.push(...queued.filter((q) => unpaired.has(q.host)));

  // Hidden-test results whose run is still queued here wait for that run's 202.
  const runsQueued = new Set(work.filter((q) => q.kind === 'run').map((q) => q.contentKey));
  const waitingFor = new Map<string, OutboxEntry[]>();
  const ready: OutboxEntry[] = [];
  const release = async (entry: OutboxEntry) => {
    if (entry.after && outbox.isRejected(entry.after)) {
      const answer = {
        status: 400,
        body: {
          error: 'run-rejected',
          message: `Its run ${entry.id} was rejected, so its hidden-test result is set aside too.`,
        },
      };
      await outbox.markRejected(entry, answer);
      result.rejected.push(entry);
      emit({ type: 'rejected', entry, answer });
    } else if (entry.after && runsQueued.has(entry.after) && !outbox.isAccepted(entry.after)) {
      waitingFor.set(entry.after, [...(waitingFor.get(entry.after) ?? []), entry]);
    } else ready.push(entry);
  };
  for (const entry of work) await release(entry);
  emit({ type: 'start', runs: work.filter((q) => q.kind === 'run').length, deliveries: work.length });

  let round = 0;
  for (;;) {
    const failed: OutboxEntry[] = [];
    let progressed = false;
    let lastFailure = '';
    const sendOne = async (entry: OutboxEntry) => {
      let answer: ServerAnswer;
      try {
        answer = await postSigned(
          options.endpoint,
          await outbox.body(entry),
          options.keys.get(entry.host)!,
          entry.deliveryId,
          { now: options.now },
        );
      } catch (error) {
        // A queued file changed under us stays queued, unsent; the next start's check of the outbox names it.
        const message =
          error instanceof OutboxError
            ? error.message
            : `network: ${(error as Error).cause ? String(((error as Error).cause as Error).message ?? (error as Error).cause) : (error as Error).message}`;
        outbox.noteError(entry.host, message);
        lastFailure = message;
        failed.push(entry);
        return emit({ type: 'retry', entry, message });
      }
      const verdict = classifyAnswer(answer);
      if (verdict === 'accepted') {
        await outbox.markAccepted(entry);
        result.accepted.push(entry);
        progressed = true;
        emit({ type: 'accepted', entry });
        if (entry.kind === 'run') {
          for (const next of waitingFor.get(entry.contentKey) ?? []) ready.push(next);
          waitingFor.delete(entry.contentKey);
        }
      } else if (verdict === 'rejected') {
        await outbox.markRejected(entry, answer);
        outbox.noteError(entry.host, `rejected ${entry.kind} ${entry.id}: ${sentence(answer)}`);
        result.rejected.push(entry);
        progressed = true;
        emit({ type: 'rejected', entry, answer });
        for (const next of waitingFor.get(entry.contentKey) ?? []) await release(next);
        waitingFor.delete(entry.contentKey);
      } else {
        outbox.noteError(entry.host, sentence(answer));
        lastFailure = sentence(answer);
        failed.push(entry);
        emit({ type: 'retry', entry, message: sentence(answer) });
      }
    };
    // After the first failure of a round no new delivery starts: an endpoint that is down would otherwise
    // be asked once per queued delivery. The failed go to the back, so one delivery the endpoint keeps
    // failing on cannot hold up the others.
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (!failed.length) {
          const next = ready.shift();
          if (!next) break;
          await sendOne(next);
        }
      }),
    );
    work = [...ready.splice(0), ...failed];
    if (!work.length) break;
    if (progressed) round = 0;
    const wait = backoffMs(round++, BACKOFF_BASE_MS, BACKOFF_MAX_MS, Math.random);
    if (Date.now() + wait > deadline) break;
    emit({
      type: 'waiting',
      seconds: wait / 1000,
      queued: work.length + [...waitingFor.values()].flat().length,
      message: lastFailure,
    });
    await new Promise((r) => setTimeout(r, wait));
    ready.push(...work);
  }
  result.remaining.push(...work, ...[...waitingFor.values()].flat());
  return result;
}
