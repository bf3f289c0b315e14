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
}

/** Per space and sweep; what is left over is due at the next sweep. */
export const SWEEP_LIMIT = 500;

export async function sweep(deps: SweepDeps): Promise<SpaceSweep[]> {
  const results: SpaceSweep[] = [];
  for (const space of Object.keys(deps.config.spaces)) results.push(await sweepSpace(deps, space));
  return results;
}

async function sweepSpace(deps: SweepDeps, space: string): Promise<SpaceSweep> {
  const batchMode = deps.config.spaces[space]!.judge.mode === 'batch';
  // A space switched back to live still collects the batches it submitted: their rows wait for them.
  const open = await deps.batches.listJudgeBatches(space);
  for (const batch of open) await deps.judgeQueue.send({ space, collect: batch.id });
  const swept = await sweepDue(deps, space, batchMode);
  return batchMode || open.length > 0 ? { ...swept, collects: open.length } : swept;
}

async function sweepDue(deps: SweepDeps, space: string, batchMode: boolean): Promise<SpaceSweep> {
  const status = await deps.judging.getJudgingStatus(space);
  const held = status !== null && status.value.state !== 'judging';
  const due = await deps.runs.listDueRuns(space, deps.clock.now().toISOString(), held ? 1 : SWEEP_LIMIT);
  const probe = held ? due[0] : undefined;
  if (held) {
    if (!probe) return { space, queued: 0, probe: null };
    // Naming the probe lets the judge spend a call on a refused key exactly once per sweep. A conflict
    // means the status just changed (resumed, say): this sweep sends nothing and the next one sees it.
    if (
      status.value.state === 'paused' &&
      !(await deps.judging.putJudgingStatus({ ...status.value, probeRunId: probe.id }, status.rev))
    ) {
      return { space, queued: 0, probe: null };
    }
  }
  const runs = due.map((row) => ({ id: row.id, finishedAt: row.finishedAt }));
  if (batchMode)
    for (let i = 0; i < runs.length; i += BATCH_SUBMIT_MAX_RUNS)
      await deps.judgeQueue.send({ space, submit: runs.slice(i, i + BATCH_SUBMIT_MAX_RUNS) });
  else for (const run of runs) await deps.judgeQueue.send({ space, ...run });
  return { space, queued: due.length, probe: probe?.id ?? null };
}
