// One judge attempt on a claimed row: reference fix and issue text → the candidate rebuilt from its parsed
// diff → the pipeline's own checks of it and of the issue text → budget →
// one model call → audit. It writes no row: it returns what happened as a tagged result, and judge-run.ts
// turns that into the row's next state (a verdict, or a flag the checks raise against a "resolved").
import { callCostUsd, type TokenUsage } from '../cost.ts';
import {
  JudgeModelError,
  ReferenceFetchError,
  type BudgetStore,
  type JudgeModel,
  type ObjectStore,
  type ReferenceSource,
} from '../../ports.ts';
import type { ModelPrice } from '../../schema/config.ts';
import type { StoredIssue } from '../../schema/issue.ts';
import type { RunRow } from '../../schema/run.ts';
import { rebuiltDiff } from '../../cockpit/diff.ts';
import { referenceDiff } from '../reference/reference-fix.ts';
import { JUDGE_ANSWER_JSON_SCHEMA, parseJudgeAnswer, type JudgeAnswer } from './answer.ts';
import { auditedAnswerText } from './reason-guard.ts';
import { writeAudit } from './audit.ts';
import { buildPrompt } from './prompt.ts';
import { nextUtcDay, utcDay, type JudgeProblem } from './transitions.ts';
import { verdictChecks, verdictFlags, type VerdictChecks } from './verdict-checks.ts';

export type ReferencedIssue = StoredIssue & { baseSha: string; mergeSha: string };

export interface AttemptDeps {
  objects: ObjectStore;
  budget: BudgetStore;
  clock: { now(): Date };
  maxDiffChars: number;
}

export interface AttemptSettings {
  model: string;
  dailyCap: number;
  /** The deployment's cap on calls of all spaces together per UTC day; undefined: none. */
  allSpacesDailyCap: number | undefined;
  price: ModelPrice | undefined;
}

export type AttemptResult =
  /** Nothing was called: the reference or the patch could not be read. A failed attempt. */
  | { kind: 'not-called'; problem: JudgeProblem }
  /** The day's budget is used up: the row waits for the next UTC day, and the attempt is given back. */
  | { kind: 'over-budget'; problem: JudgeProblem; resumeAt: string }
  /** The provider refused the key or the model: the space pauses, and the attempt is given back. */
  | { kind: 'pauses-judging'; problem: JudgeProblem }
  /** The call failed (network, 5xx, 429, timeout) or its answer could not be read. A failed attempt. */
  | { kind: 'failed'; problem: JudgeProblem; answered: boolean; costUsd: number | null }
  | { kind: 'answered'; answer: JudgeAnswer; checks: VerdictChecks; costUsd: number | null };

const MAX_OUTPUT_TOKENS = 1024;

/**
 * One unit of the space's day and, when the deployment caps all spaces together, one of the day across
 * spaces: null when both were taken, else why not. A space unit taken when the shared cap refuses is given back.
 */
async function reserveBudget(
  budget: BudgetStore,
  space: string,
  day: string,
  { dailyCap, allSpacesDailyCap }: AttemptSettings,
): Promise<JudgeProblem | null> {
  if (!(await budget.reserve(space, day, dailyCap)))
    return {
      code: 'daily-cap-reached',
      message: `The space's judge budget of ${dailyCap} calls for ${day} (UTC) is used up; judging resumes the next day.`,
    };
  if (allSpacesDailyCap === undefined || (await budget.reserveAcrossSpaces(day, allSpacesDailyCap))) return null;
  await budget.release(space, day);
  return {
    code: 'all-spaces-daily-cap-reached',
    message: `The deployment's judge budget of ${allSpacesDailyCap} calls across all spaces for ${day} (UTC) is used up; judging resumes the next day.`,
  };
}

export async function runAttempt(
  deps: AttemptDeps,
  row: RunRow,
  issue: ReferencedIssue,
  settings: AttemptSettings,
  model: JudgeModel,
  source: ReferenceSource,
): Promise<AttemptResult> {
  let reference;
  let issueText: string;
  try {
    [reference, issueText] = await Promise.all([
      referenceDiff(deps.objects, source, row.space, issue.repo, issue.baseSha, issue.mergeSha),
      source.issueText(issue.repo, issue.issueNumber),
    ]);
  } catch (error) {
    if (error instanceof ReferenceFetchError)
      return { kind: 'not-called', problem: { code: error.code, message: error.message } };
    throw error;
  }
  const [candidate, summary] = await Promise.all([
    row.patchKey ? deps.objects.getText(row.patchKey) : null,
    row.summaryKey ? deps.objects.getText(row.summaryKey) : null,
  ]);
  if (candidate === null)
    return {
      kind: 'not-called',
      problem: { code: 'patch-missing', message: 'The stored patch of this run could not be read.' },
    };
  // The model reads the candidate rebuilt from its parsed diff, and the screen reads exactly that.
  const judgedCandidate = rebuiltDiff(candidate);
  const checks = verdictChecks(judgedCandidate, summary ?? '', reference.diff, issueText);

  const now = deps.clock.now();
  const budgetDay = utcDay(now);
  const overBudget = await reserveBudget(deps.budget, row.space, budgetDay, settings);
  if (overBudget) return { kind: 'over-budget', problem: overBudget, resumeAt: nextUtcDay(now) };

  const prompt = buildPrompt(
    {
      issueText,
      referenceDiff: reference.diff,
      omittedLockFiles: reference.omittedLockFiles,
      candidateDiff: judgedCandidate,
      candidateTruncated: row.patchTruncated,
      maxDiffChars: deps.maxDiffChars,
    },
    reference.nonce,
  );
  const startedAt = deps.clock.now();
  let answerText: string | null = null;
  let usage: TokenUsage | null = null;
  let callError: JudgeModelError | null = null;
  try {
    ({ text: answerText, usage } = await model.ask({
      model: settings.model,
      ...prompt,
      maxTokens: MAX_OUTPUT_TOKENS,
      answerSchema: JUDGE_ANSWER_JSON_SCHEMA,
    }));
  } catch (error) {
    if (!(error instanceof JudgeModelError)) throw error;
    callError = error;
  }
  const latencyMs = deps.clock.now().getTime() - startedAt.getTime();
  // A call that got no answer reported no tokens and was not billed.
  const costUsd = usage ? callCostUsd(usage, settings.price) : 0;
  // The day's spend beside its calls, for the budget view (a call without a price makes the day's unknown).
  if (costUsd !== 0) await deps.budget.addCost(row.space, budgetDay, costUsd);
  const parsed = answerText === null ? null : parseJudgeAnswer(answerText, issueText);

  const result: AttemptResult = callError
    ? callError.pausesJudging
      ? { kind: 'pauses-judging', problem: { code: callError.code, message: callError.message } }
      : { kind: 'failed', problem: { code: callError.code, message: callError.message }, answered: false, costUsd }
    : !parsed || !parsed.ok
      ? {
          kind: 'failed',
          problem: { code: 'unparsable-answer', message: parsed?.problem ?? 'The judge model gave no answer.' },
          answered: true,
          costUsd,
        }
      : { kind: 'answered', answer: parsed.answer, checks, costUsd };

  await writeAudit(deps.objects, row, issue, {
    model: settings.model,
    prompt,
    startedAt,
    latencyMs,
    // The audit keeps the answer with its reason treated like the row's: no issue text in any object.
    answerText: answerText === null ? null : auditedAnswerText(answerText, issueText),
    usage,
    costUsd,
    parsed: result.kind === 'answered' ? result.answer : null,
    flags: result.kind === 'answered' ? verdictFlags(result.answer.verdict, checks) : checks.screenHits,
    problem: result.kind === 'answered' ? null : { ...result.problem, pausesJudging: result.kind === 'pauses-judging' },
  });
  return result;
}
