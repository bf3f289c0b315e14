// How a row's judge fields change, as pure functions: the rules of docs/contract.md §5 (attempts, backoff, waiting
// states, verdict mapping) in one place, tested without any store.
import type { JudgeFields, JudgeState, RunRow } from '#schema/run.ts';
import type { JudgeAnswer } from './answer.ts';
import { sumCosts } from '../cost.ts';
import { verdictFlags, type VerdictChecks } from './verdict-checks.ts';

export interface JudgeProblem {
  code: string;
  message: string;
}

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseSeconds: number;
}

/** Seconds before the next attempt after `failedAttempts` failures: base, 2·base, 4·base, … */
export const retryDelaySeconds = (failedAttempts: number, baseSeconds: number) =>
  baseSeconds * 2 ** (failedAttempts - 1);

/** The budget day: the UTC calendar day. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

export function nextUtcDay(now: Date): string {
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return next.toISOString();
}

const plus = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

/** A row that will never be judged again: it has a verdict, needs none, or its answer was flagged. */
export const isDecided = (row: Pick<RunRow, 'judgeVerdict' | 'judgeState'>) =>
  row.judgeVerdict !== null ||
  row.judgeState === 'judged' ||
  row.judgeState === 'error' ||
  row.judgeState === 'not-needed' ||
  row.judgeState === 'flagged';

/**
 * Taken before the reference fetch, and the attempt counts from here: one that dies without a word (a crash,
 * a timeout) is due again after the lease and still counted, so no run can be claimed forever.
 */
export const claimed = (row: RunRow, now: Date, leaseSeconds: number): Partial<JudgeFields> => ({
  judgeAttempts: row.judgeAttempts + 1,
  judgeState: 'pending',
  judgeNextAttemptAt: plus(now, leaseSeconds),
  // Claimed again after its batch was given up, a row no longer names that batch.
  ...(row.judgeBatchId ? { judgeBatchId: null } : {}),
});

/** An attempt that ended waiting (for budget, an issue record, or a held space) gives its count back. */
export const returnedAttempt = (row: RunRow): Partial<JudgeFields> => ({
  judgeAttempts: Math.max(0, row.judgeAttempts - 1),
});

/** The cost of the run's judging so far, plus one call's (null once any part is unknown). */
export const withCallCost = (row: RunRow, costUsd: number | null): Partial<JudgeFields> => ({
  // Rows landed before costs were recorded have no figure yet: their calls so far count as none.
  judgeCostUsd: sumCosts([row.judgeCostUsd === undefined ? 0 : row.judgeCostUsd, costUsd]),
});

/**
 * The answer onto the row. A "resolved" that a flag rule contradicts (verdict-checks.ts) is not taken: the
 * row is `flagged`, without a verdict, outside the resolve rate, and keeps the answer's fields and the rules
 * for the reader. Another verdict is taken, with any screen hits beside it.
 */
export function verdict(
  answer: JudgeAnswer,
  checks: VerdictChecks,
  row: RunRow,
  model: string,
  now: Date,
): Partial<JudgeFields> {
  const flags = verdictFlags(answer.verdict, checks);
  const withheld = answer.verdict === 'resolved' && flags.length > 0;
  return {
    judgeVerdict: withheld ? null : answer.verdict,
    judgeRootCauseFound: answer.rootCauseFound,
    judgeSameFilesAsReference: answer.sameFilesAsReference,
    judgeSameFilesComputed: checks.sameFiles,
    judgeTestAdded: answer.testAdded,
    judgeTestAddedComputed: checks.changesTest,
    judgeWouldCompile: answer.wouldCompile,
    judgeReason: answer.reason,
    judgeModel: model,
    judgedAt: now.toISOString(),
    judgeNextAttemptAt: null,
    judgeState: withheld ? 'flagged' : 'judged',
    judgeLastError: null,
    judgeFlags: flags,
  };
}

/**
 * The verdict another attempt of the same patch reached with the same judge model, taken as it was (a flagged one
 * stays flagged), at no cost.
 */
export const reusedVerdict = (judged: RunRow): Partial<JudgeFields> => ({
  judgeVerdict: judged.judgeVerdict,
  judgeRootCauseFound: judged.judgeRootCauseFound,
  judgeSameFilesAsReference: judged.judgeSameFilesAsReference,
  judgeSameFilesComputed: judged.judgeSameFilesComputed,
  judgeTestAdded: judged.judgeTestAdded,
  judgeTestAddedComputed: judged.judgeTestAddedComputed ?? null,
  judgeWouldCompile: judged.judgeWouldCompile,
  judgeReason: judged.judgeReason,
  judgeModel: judged.judgeModel,
  judgedAt: judged.judgedAt,
  judgeNextAttemptAt: null,
  judgeState: judged.judgeState === 'flagged' ? 'flagged' : 'judged',
  judgeLastError: null,
  judgeFlags: judged.judgeFlags,
});

/**
 * A failed attempt (already counted when it was claimed) is retried with backoff until the policy's last
 * attempt, which ends in verdict `error`.
 */
export function failedAttempt(
  row: RunRow,
  problem: JudgeProblem,
  policy: RetryPolicy,
  model: string,
  now: Date,
): Partial<JudgeFields> {
  const attempts = row.judgeAttempts;
  if (attempts >= policy.maxAttempts) {
    return {
      judgeVerdict: 'error',
      judgeReason: `The judge gave up after ${attempts} failed attempts; the last: ${problem.message}`,
      judgeModel: model,
      judgedAt: now.toISOString(),
      judgeNextAttemptAt: null,
      judgeState: 'error',
      judgeLastError: problem,
    };
  }
  return {
    judgeNextAttemptAt: plus(now, retryDelaySeconds(attempts, policy.retryBaseSeconds)),
    judgeState: 'retry-scheduled',
    judgeLastError: problem,
  };
}

/** Waiting costs no attempt. `nextAttemptAt` keeps the row in the sweeper's index. */
export const waiting = (
  state: Extract<JudgeState, `waiting-${string}` | 'paused'>,
  problem: JudgeProblem,
  nextAttemptAt: string,
): Partial<JudgeFields> => ({
  judgeState: state,
  judgeNextAttemptAt: nextAttemptAt,
  judgeLastError: problem,
});

/** Every attempt was claimed and none finished (each timed out or crashed): the verdict is `error`. */
export function attemptsExhausted(row: RunRow, model: string, now: Date): Partial<JudgeFields> {
  const problem = {
    code: 'attempts-exhausted',
    message: `All ${row.judgeAttempts} judge attempts were claimed and none finished (a timeout or a crash each time).`,
  };
  return {
    judgeVerdict: 'error',
    judgeReason: `The judge gave up: ${problem.message}`,
    judgeModel: model,
    judgedAt: now.toISOString(),
    judgeNextAttemptAt: null,
    judgeState: 'error',
    judgeLastError: problem,
  };
}
