// The sweeper (docs/contract.md §5): puts rows whose next judge attempt is due back on the judge queue — retries after
// their backoff, rows that waited for the next day's budget, for an issue record, or for judging to resume.
// The due rows come from the sparse index, never a scan. While a space is held (paused, or without
// credentials) only one row goes, as the probe that resumes it.
import type { ReplayConfig } from '#schema/config.ts';
import type { Clock, JudgeMessage, JudgingStatusStore, MessageQueue, RunStore } from '../ports.ts';

export interface SweepDeps {
  config: ReplayConfig;
  runs: RunStore;
  judging: JudgingStatusStore;
  judgeQueue: MessageQueue<JudgeMessage>;
  clock: Clock;
}

export interface SpaceSweep {
  space: string;
  queued: number;
  /** The run sent as the probe of a held space. */
  probe: string | null;
}

/** Per space and sweep; what is left over is due at the next sweep. */
export const SWEEP_LIMIT = 500;

export async function sweep(deps: SweepDeps): Promise<SpaceSweep[]> {
  const results: SpaceSweep[] = [];
  for (const space of Object.keys(deps.config.spaces)) results.push(await sweepSpace(deps, space));
  return results;
}

async function sweepSpace(deps: SweepDeps, space: string): Promise<SpaceSweep> {
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
  for (const row of due) await deps.judgeQueue.send({ space, id: row.id, finishedAt: row.finishedAt });
  return { space, queued: due.length, probe: probe?.id ?? null };
}
