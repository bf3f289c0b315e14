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
  /** Sent by a host that did not own the run then: kept apart, keyed by its host, never judged (docs/contract.md §4). */
  foreign: z.optional(z.boolean()),
  /**
   * Whether the delivery carried a patch, on an attempt archived unjudged: what its verdict would be without a call
   * should it become the row (`reassign`). Absent on attempts archived before it was kept.
   */
  patch: z.optional(z.enum(['present', 'empty', 'not-recorded'])),
});
export type ArchivedAttempt = z.output<typeof archivedAttemptSchema>;

/**
 * The archive's attempts, each once. An attempt that became its run's row by a reassign (docs/contract.md §4) is
 * archived twice: as the foreign attempt it landed as, and, once replaced, as the row it was. The row's copy, which
 * keeps its verdict, stands for both; the order is kept.
 */
export function distinctAttempts<T extends ArchivedAttempt>(list: T[]): T[] {
  const kept = new Map<string, T>();
  for (const attempt of list) {
    if (attempt.collision) continue;
    const key = JSON.stringify([attempt.host, attempt.finishedAt, attempt.patchSha256]);
    const seen = kept.get(key);
    if (!seen || (seen.foreign && !attempt.foreign)) kept.set(key, attempt);
  }
  const chosen = new Set(kept.values());
  return list.filter((attempt) => attempt.collision || chosen.has(attempt));
}

/**
 * Whether a hidden-test result `host` sent for `finishedAt` belongs to this archived attempt: one that host sent, of
 * that finishedAt, and never another run's under the same id (docs/contract.md §4).
 */
export const takesHiddenTest = (attempt: ArchivedAttempt, host: string, finishedAt: string) =>
  attempt.host === host && attempt.finishedAt === finishedAt && !attempt.collision;

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
  /** Sent by a host other than the run's owner: kept apart, never judged (docs/contract.md §4). */
  foreign: boolean;
  host: string;
  model: string;
  taskId: string;
  harnessVersion: string;
}

export const attemptSummary = (
  row: RunRow & { conflict?: boolean; collision?: boolean },
  owner: string,
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
  foreign: row.host !== owner && row.collision !== true,
  host: row.host,
  model: row.model,
  taskId: row.taskId,
  harnessVersion: row.harnessVersion,
});
