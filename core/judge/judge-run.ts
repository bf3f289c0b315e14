// One judge attempt for one landed run (docs/contract.md §5): claim → reference → budget → one model call → stale-proof
// write. Every step that costs nothing (credentials, issue record, pause) is checked before the row is
// claimed, and every write is conditional on the row's revision, so duplicate messages, concurrent
// invocations and a re-run landing mid-call all converge: the verdict lands only on the exact patch that was
// judged. The attempt itself lives in attempt.ts, the space's hold in judging-status.ts, and a batch-mode
// space's submissions and collections in batch.ts, which take the same steps.
import { judgeCapsOf, judgeModelOf, spaceOf, type ReplayConfig } from '#schema/config.ts';
import type { StoredIssue } from '#schema/issue.ts';
import type { JudgeFields, RunRow } from '#schema/run.ts';
import { TIMINGS } from '../operations.ts';
import { optimisticUpdate, runRecord, type UpdateDecision } from '../optimistic-update.ts';
import type {
  AttemptStore,
  BudgetStore,
  JudgeBatchStore,
  Clock,
  IssueStore,
  JudgeMessage,
  JudgeModel,
  JudgingStatus,
  JudgingStatusStore,
  ObjectStore,
  ReferenceSource,
  RunStore,
  ServiceProvider,
  Versioned,
} from '../ports.ts';
import { isReferencedIssue, runAttempt, type AttemptResult, type ReferencedIssue } from './attempt.ts';
import { holdJudging, judgingAgain, resumeJudging } from './judging-status.ts';
import {
  attemptsExhausted,
  claimed,
  failedAttempt,
  isDecided,
  returnedAttempt,
  reusedVerdict,
  verdict,
  waiting,
  withCallCost,
  type JudgeProblem,
} from './transitions.ts';

export interface JudgeDeps {
  config: ReplayConfig;
  runs: RunStore;
  /** Archived attempts: a patch already judged for the run reuses its verdict. */
  attempts: Pick<AttemptStore, 'listAttempts'>;
  issues: IssueStore;
  budget: BudgetStore;
  judging: JudgingStatusStore;
  /** The Message Batches a batch-mode space has open (batch.ts). */
  batches: JudgeBatchStore;
  /** The data bucket: patches in, reference cache and audit objects out. */
  objects: ObjectStore;
  model: ServiceProvider<JudgeModel>;
  reference: ServiceProvider<ReferenceSource>;
  clock: Clock;
  /** Characters per diff in the prompt. */
  maxDiffChars: number;
}

export type JudgeResult =
  | 'judged'
  | 'flagged'
  | 'attempt-failed'
  | 'gave-up'
  | 'paused'
  | 'waiting-credentials'
  | 'waiting-issue'
  | 'waiting-budget'
  | 'waiting-github'
  | 'waiting-batch'
  | 'stale'
  | 'skipped';

export interface JudgeOutcome {
  result: JudgeResult;
  /** Set when this invocation changed the space's judging status. */
  judging?: JudgingStatus['state'];
  /** The failure of a failed attempt. */
  problem?: JudgeProblem;
  /** How the model call went, when one was made. */
  modelCall?: 'answered' | 'refused' | 'failed';
  /** What the model call cost in USD, when it was answered and its model has a price. */
  costUsd?: number;
  /** The rules that flagged a "resolved" (result `flagged`). */
  flags?: string[];
  /** The verdict was another attempt's of the same patch by the same judge model: no call was made. */
  reused?: boolean;
}

/** Longer than an attempt can take (its function's timeout); a crashed attempt is retried after it. */
export const CLAIM_SECONDS = TIMINGS.judgeClaim;
export const DEFAULT_MAX_DIFF_CHARS = 100_000;
/**
 * A run whose issue record is missing looks again after half the time it has waited since it landed: at least
 * ISSUE_RECHECK_SECONDS (or the space's retry base, if shorter), at most ISSUE_RECHECK_MAX_SECONDS. A record that
 * never comes (never sent, or its repository taken off the space's list) then costs a dozen writes a day, not 288.
 */
const ISSUE_RECHECK_SECONDS = 300;
export const ISSUE_RECHECK_MAX_SECONDS = 6 * 3600;

/**
 * What the judge learned about a due row before writing it, gathered once: a verdict to reuse, a reason to
 * wait, or everything an attempt needs. The space's judging status is changed here (a hold, a resume, a
 * probe taken), never in the row's decide step, which runs again on every conflicting write.
 */
export type Facts =
  | { kind: 'reuse'; judgedBefore: RunRow }
  | {
      kind: 'wait';
      result: 'paused' | 'waiting-credentials' | 'waiting-issue';
      problem: JudgeProblem;
      /** Unset: the row keeps its judgeNextAttemptAt. */
      recheckAt?: string;
      judging?: JudgingStatus['state'];
    }
  | {
      kind: 'ready';
      issue: ReferencedIssue;
      model: JudgeModel;
      reference: ReferenceSource;
      resumedFrom: JudgingStatus['state'] | null;
    };

/** What the read-decide-write step on the row ended with: a finished outcome, or a claimed attempt to run. */
type Step =
  | { kind: 'done'; outcome: JudgeOutcome }
  | {
      kind: 'claimed';
      row: RunRow;
      issue: ReferencedIssue;
      model: JudgeModel;
      reference: ReferenceSource;
      resumedFrom: JudgingStatus['state'] | null;
    };

export async function judgeRun(deps: JudgeDeps, message: JudgeMessage): Promise<JudgeOutcome> {
  if (!Object.hasOwn(deps.config.spaces, message.space)) return { result: 'skipped' };
  // A batch-mode space's due runs are submitted together, from the sweeper's message (batch.ts).
  if (deps.config.spaces[message.space]!.judge.mode === 'batch') return { result: 'skipped' };
  const record = runRecord(deps.runs, message.space, message.id);
  const current = await record.read();
  const now = deps.clock.now();
  if (!current || !isDue(current.value, message, now)) return { result: 'skipped' };
  const facts = await gatherFacts(deps, current.value, now);
  const settings = settingsOf(deps, message.space);
  const step = await optimisticUpdate(record, (latest) => nextRow(latest, message, facts, settings, now), {
    what: `judging ${message.id}`,
    current,
  });
  if (step.kind === 'done') return step.outcome;
  const outcome = await settle(
    deps,
    step.row,
    await runAttempt(deps, step.row, step.issue, settings, step.model, step.reference),
  );
  // A probe resumes a paused space only when the provider actually answered it.
  if (step.resumedFrom === 'paused' && outcome.modelCall === 'answered') {
    await resumeJudging(deps.judging, step.row.space, deps.clock.now());
    return { ...outcome, judging: 'judging' };
  }
  return step.resumedFrom === 'waiting-credentials' && !outcome.judging ? { ...outcome, judging: 'judging' } : outcome;
}

/**
 * Only the landing the message is about, only once, and only when its attempt is due: a run waiting for its issue
 * record is due as soon as the record lands (the lander's message says so).
 */
export function isDue(row: RunRow, message: JudgeMessage, now: Date): boolean {
  return (
    row.finishedAt === message.finishedAt &&
    !isDecided(row) &&
    row.judgeNextAttemptAt !== null &&
    (row.judgeNextAttemptAt <= now.toISOString() ||
      (message.issueLanded === true && row.judgeState === 'waiting-issue'))
  );
}

/**
 * Everything that costs nothing is checked before the row is claimed, in this order: a verdict of the same
 * patch, credentials, the space's hold, the issue record.
 */
export async function gatherFacts(deps: JudgeDeps, row: RunRow, now: Date): Promise<Facts> {
  const judgedBefore = await sameVerdictJudged(deps, row);
  if (judgedBefore) return { kind: 'reuse', judgedBefore };

  const [model, reference] = await Promise.all([deps.model(), deps.reference()]);
  if (!model || !reference) {
    const problem = missingCredentials(!model, !reference);
    const held = await holdJudging(deps.judging, row.space, 'waiting-credentials', problem, now);
    return { kind: 'wait', result: 'waiting-credentials', problem, judging: held ? 'waiting-credentials' : undefined };
  }

  const status = await deps.judging.getJudgingStatus(row.space);
  let resumedFrom: JudgingStatus['state'] | null = null;
  if (status?.value.state === 'waiting-credentials') {
    // Credentials are here now: checking them was the probe.
    if (await deps.judging.putJudgingStatus(judgingAgain(row.space, now), status.rev))
      resumedFrom = 'waiting-credentials';
  } else if (status?.value.state === 'paused') {
    // Only the sweeper's chosen probe may spend a call on a key or a model the provider refused.
    const isProbe =
      status.value.probeRunId === row.id &&
      (await deps.judging.putJudgingStatus({ ...status.value, probeRunId: null }, status.rev));
    if (!isProbe) return { kind: 'wait', result: 'paused', problem: status.value.reason ?? PROVIDER_REFUSED };
    resumedFrom = 'paused';
  }

  const spaceConfig = spaceOf(deps.config, row.space)!;
  let issue = await deps.issues.getIssue(row.space, row.taskId);
  // Landing an issue record wakes the runs noted as waiting for it; the record is read again after the note, so of
  // the note and the record, whichever is written second sees the other (docs/contract.md §5). A batch-mode space's
  // runs go at the sweep, so none is noted.
  if (!isReferencedIssue(spaceConfig, issue) && spaceConfig.judge.mode !== 'batch') {
    const { space, taskId, id, finishedAt } = row;
    await deps.issues.putIssueWaiter({ space, taskId, id, finishedAt }, now);
    issue = await deps.issues.getIssue(row.space, row.taskId);
  }
  if (!isReferencedIssue(spaceConfig, issue)) {
    const waited = Math.max(0, now.getTime() - Date.parse(row.landedAt)) / 1000;
    const first = Math.min(ISSUE_RECHECK_SECONDS, settingsOf(deps, row.space).retryBaseSeconds);
    const recheck = Math.min(ISSUE_RECHECK_MAX_SECONDS, Math.max(first, waited / 2));
    const recheckAt = new Date(now.getTime() + recheck * 1000).toISOString();
    return { kind: 'wait', result: 'waiting-issue', problem: missingIssue(row.taskId, issue), recheckAt };
  }
  return { kind: 'ready', issue, model, reference, resumedFrom };
}

/** The row's next state from the facts: pure, so a lost race decides again on the newest row at no cost. */
export function nextRow(
  current: Versioned<RunRow> | null,
  message: JudgeMessage,
  facts: Facts,
  settings: { maxAttempts: number; model: string },
  now: Date,
): UpdateDecision<RunRow, Step> {
  if (!current || !isDue(current.value, message, now)) return done({ result: 'skipped' });
  const row = current.value;
  switch (facts.kind) {
    case 'reuse': {
      const { judgedBefore } = facts;
      const outcome: JudgeOutcome =
        judgedBefore.judgeState === 'flagged'
          ? { result: 'flagged', flags: judgedBefore.judgeFlags, reused: true }
          : { result: 'judged', reused: true };
      return { write: update(row, reusedVerdict(judgedBefore), now), result: { kind: 'done', outcome } };
    }
    case 'wait': {
      const { result, problem, judging } = facts;
      const nextAttemptAt = facts.recheckAt ?? row.judgeNextAttemptAt!;
      const outcome: Step = { kind: 'done', outcome: { result, judging } };
      const unchanged =
        row.judgeState === result &&
        row.judgeLastError?.code === problem.code &&
        row.judgeNextAttemptAt === nextAttemptAt;
      return unchanged
        ? { done: outcome }
        : { write: update(row, waiting(result, problem, nextAttemptAt), now), result: outcome };
    }
    case 'ready': {
      if (row.judgeAttempts >= settings.maxAttempts) {
        const gaveUp = attemptsExhausted(row, settings.model, now);
        return { write: update(row, gaveUp, now), result: { kind: 'done', outcome: { result: 'gave-up' } } };
      }
      const claimedRow = update(row, claimed(row, now, CLAIM_SECONDS), now);
      const { issue, model, reference, resumedFrom } = facts;
      return { write: claimedRow, result: { kind: 'claimed', row: claimedRow, issue, model, reference, resumedFrom } };
    }
  }
}

const done = (outcome: JudgeOutcome): UpdateDecision<RunRow, Step> => ({ done: { kind: 'done', outcome } });

/**
 * A verdict belongs to (run, patch, judge model) (docs/contract.md §5): an archived attempt of this run with the same
 * patch, judged by the space's judge model, gives its verdict to the row, and no call is spent. Only the row's
 * host's own attempts count: another host's row archived by a reassign was judged on what that host sent (its
 * summary), never the owner's run. Only a run with archived attempts is looked up.
 */
async function sameVerdictJudged(deps: JudgeDeps, row: RunRow): Promise<RunRow | null> {
  // A reassign leaves the other host's attempts (foreignCount) and may bring back one of this host's own.
  if ((row.attemptCount ?? 1) <= 1 && !row.foreignCount) return null;
  const model = judgeModelOf(deps.config, row.space);
  const attempts = (await deps.attempts.listAttempts(row.space, row.id)).map(judgeAsAttempted);
  return (
    attempts.find(
      (a) =>
        a.host === row.host &&
        !a.collision &&
        !a.foreign &&
        a.patchSha256 === row.patchSha256 &&
        (a.judgeState === 'judged' || a.judgeState === 'flagged') &&
        a.judgeModel === model,
    ) ?? null
  );
}

/** A row or attempt as its judge left it: under a no-call verdict, the judge's fields it set aside (§4). */
export const judgeAsAttempted = <T extends RunRow>(row: T): T =>
  row.judgeState === 'not-needed' && row.judgeSetAside ? { ...row, ...row.judgeSetAside } : row;

/**
 * `current` with an attempt's judge fields written where the attempt is: on the row, or, when a no-call verdict set
 * it aside meanwhile, into `judgeSetAside`, the row keeping the attempts and cost as the no-call verdict does.
 */
export function withAttemptFields(current: RunRow, fields: Partial<JudgeFields>, now: Date): RunRow {
  if (judgeAsAttempted(current) === current) return update(current, fields, now);
  const judgeSetAside = { ...current.judgeSetAside!, ...fields };
  const { judgeAttempts, judgeCostUsd } = judgeSetAside;
  return { ...current, judgeSetAside, judgeAttempts, judgeCostUsd, updatedAt: now.toISOString() };
}

/**
 * The row's next state after an attempt, written only while the row is still the landing that was judged (and,
 * for a batched attempt, still waits for that batch: `stillHeld`).
 */
export async function settle(
  deps: JudgeDeps,
  row: RunRow,
  attempt: AttemptResult,
  stillHeld?: (current: RunRow) => boolean,
): Promise<JudgeOutcome> {
  const settings = settingsOf(deps, row.space);
  const now = () => deps.clock.now();
  const finish = (
    judged: RunRow,
    change: (current: RunRow) => Partial<JudgeFields>,
    result: JudgeResult,
    problem?: JudgeProblem,
  ) => finishIf(deps, judged, change, result, problem, stillHeld);
  switch (attempt.kind) {
    case 'not-called':
      return finish(
        row,
        (r) => failedAttempt(r, attempt.problem, settings, settings.model, now()),
        'attempt-failed',
        attempt.problem,
      );
    case 'over-budget':
      return finish(
        row,
        (r) => ({ ...waiting('waiting-budget', attempt.problem, attempt.resumeAt), ...returnedAttempt(r) }),
        'waiting-budget',
      );
    case 'rate-limited':
      return finish(
        row,
        (r) => ({ ...waiting('waiting-github', attempt.problem, attempt.resumeAt), ...returnedAttempt(r) }),
        'waiting-github',
      );
    case 'pauses-judging': {
      const newly = await holdJudging(deps.judging, row.space, 'paused', attempt.problem, now());
      await finish(
        row,
        (r) => ({ ...waiting('paused', attempt.problem, now().toISOString()), ...returnedAttempt(r) }),
        'paused',
      );
      return { result: 'paused', modelCall: 'refused', ...(newly ? { judging: 'paused' as const } : {}) };
    }
    case 'failed': {
      const outcome = await finish(
        row,
        (r) => ({
          ...failedAttempt(r, attempt.problem, settings, settings.model, now()),
          ...withCallCost(r, attempt.costUsd),
        }),
        'attempt-failed',
        attempt.problem,
      );
      return { ...outcome, modelCall: attempt.answered ? 'answered' : 'failed', ...costOf(attempt.costUsd) };
    }
    case 'answered': {
      const outcome = await finish(
        row,
        (r) => ({
          ...verdict(attempt.answer, attempt.checks, r, settings.model, now()),
          ...withCallCost(r, attempt.costUsd),
        }),
        'judged',
      );
      return { ...outcome, modelCall: 'answered', ...costOf(attempt.costUsd) };
    }
  }
}

const costOf = (costUsd: number | null) => (costUsd ? { costUsd } : {});

/**
 * The stale-proof write: change the row only while it is still the landing that was judged (same
 * finishedAt and patch) and still undecided; a re-run that landed meanwhile wins.
 */
function finishIf(
  deps: JudgeDeps,
  judged: RunRow,
  change: (row: RunRow) => Partial<JudgeFields>,
  result: JudgeResult,
  problem: JudgeProblem | undefined,
  stillHeld: ((current: RunRow) => boolean) | undefined,
): Promise<JudgeOutcome> {
  return optimisticUpdate(
    runRecord(deps.runs, judged.space, judged.id),
    (current): UpdateDecision<RunRow, JudgeOutcome> => {
      // A retry that landed a no-call verdict meanwhile set this attempt aside: the answer settles there (§4).
      const attempted = current && judgeAsAttempted(current.value);
      if (
        !attempted ||
        attempted.host !== judged.host ||
        attempted.finishedAt !== judged.finishedAt ||
        attempted.patchSha256 !== judged.patchSha256 ||
        isDecided(attempted) ||
        (stillHeld && !stillHeld(attempted))
      ) {
        return { done: { result: 'stale' } };
      }
      // A settled row no longer names a batch.
      const fields = { ...change(attempted), ...(stillHeld ? { judgeBatchId: null } : {}) };
      const outcome: JudgeOutcome =
        fields.judgeState === 'error'
          ? { result: 'gave-up', problem }
          : fields.judgeState === 'flagged'
            ? { result: 'flagged', flags: fields.judgeFlags }
            : { result, problem };
      return { write: withAttemptFields(current.value, fields, deps.clock.now()), result: outcome };
    },
    { what: `writing the judgement of ${judged.id}` },
  );
}

export const update = (row: RunRow, fields: Partial<JudgeFields>, now: Date): RunRow => ({
  ...row,
  ...fields,
  updatedAt: now.toISOString(),
});

export function settingsOf(deps: JudgeDeps, space: string) {
  const model = judgeModelOf(deps.config, space);
  return {
    ...deps.config.spaces[space]!.judge,
    ...judgeCapsOf(deps.config, space),
    allSpacesDailyCap: deps.config.judgeDailyCapAllSpaces,
    model,
    price: Object.hasOwn(deps.config.prices, model) ? deps.config.prices[model] : undefined,
  };
}

const PROVIDER_REFUSED: JudgeProblem = {
  code: 'bad-credentials',
  message: 'The judge model provider refused the credentials; judging of this space is paused.',
};

function missingCredentials(model: boolean, github: boolean): JudgeProblem {
  const missing = [
    model ? 'an Anthropic API key' : null,
    github ? 'GitHub credentials (a GitHub App, or GITHUB_TOKEN locally)' : null,
  ].filter(Boolean);
  return {
    code: 'no-credentials',
    message: `The judge is missing ${missing.join(' and ')}; the run waits until they are configured.`,
  };
}

function missingIssue(taskId: string, issue: StoredIssue | null): JudgeProblem {
  // With both SHAs present, the record is missing only because the space no longer lists its repository.
  if (issue?.baseSha && issue.mergeSha) {
    return {
      code: 'repo-not-allowed',
      message:
        `The issue record of task ${taskId} names repository ${issue.repo}, which the space's "repos" does not ` +
        'list; the run waits for an issue record of a listed repository.',
    };
  }
  return issue
    ? {
        code: 'issue-without-shas',
        message:
          `The issue record of task ${taskId} has no baseSha and mergeSha to fetch the reference fix with; ` +
          'the run waits for an issue delivery that has them.',
      }
    : {
        code: 'no-issue-record',
        message: `No issue record for task ${taskId} has been delivered; the run waits for it.`,
      };
}
