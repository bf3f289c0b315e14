// The sweeper (docs/contract.md §5): puts rows whose next judge attempt is due back on the judge queue — retries after
// their backoff, rows that waited for the next day's budget, for an issue record, or for judging to resume.
// The due rows come from the sparse index, never a scan. While a space is held (paused, or without
// credentials) only one row goes, as the probe that resumes it. A batch-mode space's due rows go in messages of
// up to BATCH_SUBMIT_MAX_RUNS, each submitted as one Message Batch. Every space's open batches are sent to be
// collected (batch.ts), a space's that went back to live too: one provider request per batch and sweep while it is
// in progress.
import type { ReplayConfig } from '#schema/config.ts';
import { BATCH_SUBMIT_MAX_RUNS } from '#schema/messages.ts';
import type {
  Clock,
  JudgeBatchStore,
  JudgeQueueMessage,
  JudgingStatusStore,
  MessageQueue,
  RunStore,
} from '../ports.ts';

export interface SweepDeps {
  config: ReplayConfig;
  runs: RunStore;
  judging: JudgingStatusStore;
  batches: Pick<JudgeBatchStore, 'listJudgeBatches'>;
  judgeQueue: MessageQueue<JudgeQueueMessage>;
  clock: Clock;
}

export interface SpaceSweep {
  space: string;
  queued: number;
  /** The run sent as the probe of a held space. */
  probe: string | null;
  /** The open batches sent to be collected (a batch-mode space's, or a live space's left from batch mode). */
  collects?: number;
  /** What failed (a message the queue refused, or the space's reads), said once per kind; the rest still went. */
  failures?: string[];
}

/** Per space and sweep; what is left over is due at the next sweep. */
export const SWEEP_LIMIT = 500;

/**
 * Every space is swept, and every message sent, whatever fails before it: one message the queue refuses, or one
 * space whose reads fail, never keeps the others' due runs waiting. The failures are in the answer.
 */
export async function sweep(deps: SweepDeps): Promise<SpaceSweep[]> {
  const results: SpaceSweep[] = [];
  for (const space of Object.keys(deps.config.spaces)) {
    const failures = new Set<string>();
    const swept = await sweepSpace(deps, space, failures).catch((error: unknown) => {
      failures.add(messageOf(error));
      return { space, queued: 0, probe: null };
    });
    results.push(failures.size > 0 ? { ...swept, failures: [...failures] } : swept);
  }
  return results;
}

async function sweepSpace(deps: SweepDeps, space: string, failures: Set<string>): Promise<SpaceSweep> {
  const batchMode = deps.config.spaces[space]!.judge.mode === 'batch';
  // A space switched back to live still collects the batches it submitted: their rows wait for them.
  const open = await deps.batches.listJudgeBatches(space);
  const due = await dueMessages(deps, space, batchMode).catch((error: unknown) => {
    failures.add(messageOf(error));
    return { messages: [], probe: null };
  });
  const messages = [...open.map((batch) => ({ space, collect: batch.id })), ...due.messages];
  // Sent together (ten to a call in SQS): a sweep of hundreds of due runs in every space stays well inside its
  // minute. What the queue refuses is said once per answer, and the rest still go.
  const refused = new Set<number>();
  try {
    for (const { index, reason } of await deps.judgeQueue.sendAll(messages)) {
      refused.add(index);
      failures.add(reason);
    }
  } catch (error) {
    failures.add(messageOf(error));
    for (const index of messages.keys()) refused.add(index);
  }
  const queued = messages
    .filter((message, index) => !refused.has(index) && !('collect' in message))
    .reduce((n, message) => n + ('submit' in message ? message.submit.length : 1), 0);
  const swept = { space, queued, probe: due.probe };
  return batchMode || open.length > 0 ? { ...swept, collects: open.length } : swept;
}

const messageOf = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/** The space's due runs as judge messages (one probe of a held space; a batch-mode space's in submissions). */
async function dueMessages(
  deps: SweepDeps,
  space: string,
  batchMode: boolean,
): Promise<{ messages: JudgeQueueMessage[]; probe: string | null }> {
  const status = await deps.judging.getJudgingStatus(space);
  const held = status !== null && status.value.state !== 'judging';
  const due = await deps.runs.listDueRuns(space, deps.clock.now().toISOString(), held ? 1 : SWEEP_LIMIT);
  const probe = held ? due[0] : undefined;
  if (held) {
    if (!probe) return { messages: [], probe: null };
    // Naming the probe lets the judge spend a call on a refused key exactly once per sweep. A conflict
    // means the status just changed (resumed, say): this sweep sends nothing and the next one sees it.
    if (
      status.value.state === 'paused' &&
      !(await deps.judging.putJudgingStatus({ ...status.value, probeRunId: probe.id }, status.rev))
    ) {
      return { messages: [], probe: null };
    }
  }
  const runs = due.map((row) => ({ id: row.id, finishedAt: row.finishedAt }));
  const messages: JudgeQueueMessage[] = [];
  if (batchMode)
    for (let i = 0; i < runs.length; i += BATCH_SUBMIT_MAX_RUNS)
      messages.push({ space, submit: runs.slice(i, i + BATCH_SUBMIT_MAX_RUNS) });
  else for (const run of runs) messages.push({ space, ...run });
  return { messages, probe: probe?.id ?? null };
}
