// An archived attempt of a run (docs/contract.md §4): a distinct (finishedAt, patch) that is not, or no longer, the
// run's current row. It keeps everything the row had when it was replaced (figures, objects, verdict,
// hidden-test result), or, for a late delivery of an earlier attempt, the unjudged row it would have been.
import * as z from './zod.ts';
import { runRowSchema, type RunRow } from './run.ts';

export const archivedAttemptSchema = z.object({
  ...runRowSchema.shape,
  archivedAt: z.string(),
  /** Another patch for a finishedAt whose first accepted patch is (or was) current: never judged. */
  conflict: z.optional(z.boolean()),
  /** Another run (model, task, harness version) whose id is this run's: kept apart, never judged (docs/contract.md §4). */
  collision: z.optional(z.boolean()),
});
export type ArchivedAttempt = z.output<typeof archivedAttemptSchema>;

/** What `/runs/{id}/attempts` lists per attempt, newest first. */
export interface AttemptSummary {
  finishedAt: string;
  startedAt: string;
  outcome: RunRow['outcome'];
  steps: number | null;
  wallSeconds: number | null;
  patchSha256: string;
  judgeVerdict: RunRow['judgeVerdict'];
  judgeState: RunRow['judgeState'];
  judgeModel: string | null;
  judgedAt: string | null;
  hiddenTestStatus: 'pass' | 'fail' | 'error' | null;
  landedAt: string;
  current: boolean;
  conflict: boolean;
  /** Another run under this id: its own model, task and harness version say which (docs/contract.md §4). */
  collision: boolean;
  host: string;
  model: string;
  taskId: string;
  harnessVersion: string;
}

export const attemptSummary = (
  row: RunRow & { conflict?: boolean; collision?: boolean },
  current: boolean,
): AttemptSummary => ({
  finishedAt: row.finishedAt,
  startedAt: row.startedAt,
  outcome: row.outcome,
  steps: row.steps,
  wallSeconds: row.wallSeconds,
  patchSha256: row.patchSha256,
  judgeVerdict: row.judgeVerdict,
  judgeState: row.judgeState,
  judgeModel: row.judgeModel,
  judgedAt: row.judgedAt,
  hiddenTestStatus: row.hiddenTestResult?.status ?? null,
  landedAt: row.landedAt,
  current,
  conflict: row.conflict === true,
  collision: row.collision === true,
  host: row.host,
  model: row.model,
  taskId: row.taskId,
  harnessVersion: row.harnessVersion,
});
