// One judge attempt on a claimed row: budget (host, space, all spaces) → reference fix and issue text → the
// candidate rebuilt from its parsed diff → the pipeline's own checks of it and of the issue text → one model
// call → audit. It writes no row: it returns what happened as a tagged result, and judge-run.ts
// turns that into the row's next state (a verdict, or a flag the checks raise against a "resolved"). Batch mode
// (batch.ts) takes the same steps apart: the budget and the request when it submits, the reading of the answer
// (`readCall`, `recordCall`) when it collects.
import { callCostUsd } from '../cost.ts';
import type { TokenUsage } from '../ports.ts';
import {
  JudgeModelError,
  ReferenceFetchError,
  type BudgetStore,
  type JudgeModel,
  type JudgeModelRequest,
  type ObjectStore,
  type ReferenceSource,
} from '../ports.ts';
import { repoAllowed, type ModelPrice, type SpaceConfig } from '#schema/config.ts';
import type { StoredIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import { rebuiltDiff } from '#shared/diff.ts';
import { referenceDiff } from '../reference/reference-fix.ts';
import { readRunTexts } from '../run-texts.ts';
import { JUDGE_ANSWER_JSON_SCHEMA, parseJudgeAnswer, type JudgeAnswer } from './answer.ts';
import { auditedAnswerText } from './reason-guard.ts';
import { writeAudit } from './audit.ts';
import { buildPrompt, type JudgePrompt } from './prompt.ts';
import { nextUtcDay, utcDay, type JudgeProblem } from './transitions.ts';
import { verdictChecks, verdictFlags, type VerdictChecks } from './verdict-checks.ts';

export type ReferencedIssue = StoredIssue & { baseSha: string; mergeSha: string };

/** An issue record the judge may read the merged fix of: both SHAs, in a repository the space lists. */
export const isReferencedIssue = (space: SpaceConfig, issue: StoredIssue | null): issue is ReferencedIssue =>
  !!issue?.baseSha && !!issue.mergeSha && repoAllowed(space, issue.repo);

export interface AttemptDeps {
  objects: ObjectStore;
  budget: BudgetStore;
  clock: { now(): Date };
  maxDiffChars: number;
}

export interface AttemptSettings {
  model: string;
  /** The space's own `judge.dailyCap`. */
  dailyCap: number;
  /** The space's calls per UTC day: its cap, or its share of the all-spaces cap when that is lower. */
  spaceCap: number;
  /** The calls per UTC day one host's runs may take in the space. */
  hostCap: number;
  /** The deployment's cap on calls of all spaces together per UTC day; undefined: none. */
  allSpacesDailyCap: number | undefined;
  price: ModelPrice | undefined;
}

export type AttemptResult =
  /** Nothing was called: the reference or the patch could not be read. A failed attempt. */
  | { kind: 'not-called'; problem: JudgeProblem }
  /** A budget of the day is used up: the row waits for the next UTC day, and the attempt is given back. */
  | { kind: 'over-budget'; problem: JudgeProblem; resumeAt: string }
  /** GitHub limits the rate: the row waits as long as GitHub says, and the attempt is given back. */
  | { kind: 'rate-limited'; problem: JudgeProblem; resumeAt: string }
  /** The provider refused the key or the model: the space pauses, and the attempt is given back. */
  | { kind: 'pauses-judging'; problem: JudgeProblem }
  /** The call failed (network, 5xx, 429, timeout) or its answer could not be read. A failed attempt. */
  | { kind: 'failed'; problem: JudgeProblem; answered: boolean; costUsd: number | null }
  | { kind: 'answered'; answer: JudgeAnswer; checks: VerdictChecks; costUsd: number | null };

const MAX_OUTPUT_TOKENS = 1024;

/** What a call is made of, worked out from the reference, the issue text and the stored candidate. */
export interface PreparedCall {
  request: JudgeModelRequest;
  prompt: JudgePrompt;
  /** Read into the prompt and the screen, never stored. */
  issueText: string;
  checks: VerdictChecks;
}

/** How one call went: its answer text and usage, or the failure that left it without one. */
export interface CallOutcome {
  answerText: string | null;
  usage: TokenUsage | null;
  callError: JudgeModelError | null;
  startedAt: Date;
  latencyMs: number;
}

interface BudgetUnit {
  take(): Promise<boolean>;
  giveBack(): Promise<void>;
  refusal: JudgeProblem;
}

/**
 * One unit of each budget the call counts against — the host's part of the space, the space, and the
 * deployment across spaces — or, at the first that refuses, why not (the units taken are given back).
 * Taken, it answers how to give them all back for a call that is then not made.
 */
export async function reserveBudget(
  budget: BudgetStore,
  row: RunRow,
  day: string,
  { dailyCap, spaceCap, hostCap, allSpacesDailyCap }: AttemptSettings,
): Promise<{ refused: JudgeProblem } | { release: () => Promise<void> }> {
  const resumes = 'judging resumes the next day.';
  const hostUnits: BudgetUnit[] = [
    {
      take: () => budget.reserveForHost(row.space, row.host, day, hostCap),
      giveBack: () => budget.releaseForHost(row.space, row.host, day),
      refusal: {
        code: 'host-share-reached',
        message: `Host ${row.host}'s runs have taken their share of the space's judge budget for ${day} (UTC), ${hostCap} of ${spaceCap} calls (judge.hostShare); ${resumes}`,
      },
    },
  ];
  const units: BudgetUnit[] = [
    // A host limited to the whole space needs no count of its own.
    ...(hostCap < spaceCap ? hostUnits : []),
    {
      take: () => budget.reserve(row.space, day, spaceCap),
      giveBack: () => budget.release(row.space, day),
      refusal:
        spaceCap < dailyCap
          ? {
              code: 'space-share-reached',
              message: `The space's share of the deployment's judge budget, ${spaceCap} of ${allSpacesDailyCap} calls across spaces for ${day} (UTC), is used up; ${resumes}`,
            }
          : {
              code: 'daily-cap-reached',
              message: `The space's judge budget of ${dailyCap} calls for ${day} (UTC) is used up; ${resumes}`,
            },
    },
    ...(allSpacesDailyCap === undefined
      ? []
      : [
          {
            take: () => budget.reserveAcrossSpaces(day, allSpacesDailyCap),
            giveBack: () => budget.releaseAcrossSpaces(day),
            refusal: {
              code: 'all-spaces-daily-cap-reached',
              message: `The deployment's judge budget of ${allSpacesDailyCap} calls across all spaces for ${day} (UTC) is used up; ${resumes}`,
            },
          },
        ]),
  ];
  const taken: BudgetUnit[] = [];
  const release = async () => {
    for (const unit of taken.reverse()) await unit.giveBack();
  };
  for (const unit of units) {
    if (!(await unit.take())) {
      await release();
      return { refused: unit.refusal };
    }
    taken.push(unit);
  }
  return { release };
}

export async function runAttempt(
  deps: AttemptDeps,
  row: RunRow,
  issue: ReferencedIssue,
  settings: AttemptSettings,
  model: JudgeModel,
  source: ReferenceSource,
): Promise<AttemptResult> {
  // The budget first: past a cap, a backlog costs no GitHub call.
  const now = deps.clock.now();
  const reserved = await reserveBudget(deps.budget, row, utcDay(now), settings);
  if ('refused' in reserved) return { kind: 'over-budget', problem: reserved.refused, resumeAt: nextUtcDay(now) };
  const prepared = await prepareCall(deps, row, issue, settings, source);
  if (prepared.kind !== 'prepared') {
    await reserved.release();
    return prepared;
  }
  const startedAt = deps.clock.now();
  let answerText: string | null = null;
  let usage: TokenUsage | null = null;
  let callError: JudgeModelError | null = null;
  try {
    ({ text: answerText, usage } = await model.ask(prepared.call.request));
  } catch (error) {
    if (!(error instanceof JudgeModelError)) throw error;
    callError = error;
  }
  const latencyMs = deps.clock.now().getTime() - startedAt.getTime();
  const call: CallOutcome = { answerText, usage, callError, startedAt, latencyMs };
  const read = readCall(prepared.call, call, settings, 1);
  await recordCall(deps, row, issue, settings, prepared.call, call, read);
  return read.result;
}

/**
 * The reference fix and issue text, the candidate rebuilt from its parsed diff, the checks and the prompt: all a
 * call needs, or why it cannot be made (a failed fetch, GitHub's rate limit, a missing patch).
 */
export async function prepareCall(
  deps: AttemptDeps,
  row: RunRow,
  issue: ReferencedIssue,
  settings: AttemptSettings,
  source: ReferenceSource,
): Promise<Extract<AttemptResult, { kind: 'not-called' | 'rate-limited' }> | { kind: 'prepared'; call: PreparedCall }> {
  const now = deps.clock.now();
  let reference;
  let issueText: string;
  try {
    [reference, issueText] = await Promise.all([
      referenceDiff(deps.objects, source, row.space, issue.repo, issue.baseSha, issue.mergeSha),
      source.issueText(issue.repo, issue.issueNumber),
    ]);
  } catch (error) {
    if (!(error instanceof ReferenceFetchError)) throw error;
    const problem = { code: error.code, message: error.message };
    if (error.retryAfterSeconds === undefined) return { kind: 'not-called', problem };
    const resumeAt = new Date(now.getTime() + error.retryAfterSeconds * 1000).toISOString();
    return { kind: 'rate-limited', problem, resumeAt };
  }
  const { patch: candidate, summary } = await readRunTexts(deps.objects, row);
  if (candidate === null) {
    return {
      kind: 'not-called',
      problem: { code: 'patch-missing', message: 'The stored patch of this run could not be read.' },
    };
  }
  // The model reads the candidate rebuilt from its parsed diff, and the screen reads exactly that.
  const judgedCandidate = rebuiltDiff(candidate);
  const checks = verdictChecks(judgedCandidate, summary ?? '', reference, issueText);

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
  const request = {
    model: settings.model,
    ...prompt,
    maxTokens: MAX_OUTPUT_TOKENS,
    answerSchema: JUDGE_ANSWER_JSON_SCHEMA,
  };
  return { kind: 'prepared', call: { request, prompt, issueText, checks } };
}

/**
 * What a call's outcome means, with no side effect: its cost (the tokens at the model's price times
 * `priceFactor`, ½ for a Message Batch) and the attempt's result, read by the same rules live and batched.
 */
export function readCall(
  prepared: PreparedCall,
  { answerText, usage, callError }: CallOutcome,
  settings: AttemptSettings,
  priceFactor: number,
): { result: AttemptResult; costUsd: number | null } {
  const costUsd = billedCostUsd(usage, settings, priceFactor);
  const parsed = answerText === null ? null : parseJudgeAnswer(answerText, prepared.issueText);
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
      : { kind: 'answered', answer: parsed.answer, checks: prepared.checks, costUsd };
  return { result, costUsd };
}

/** A call's tokens at the model's price times `priceFactor`; null when the model has no price. */
export function billedCostUsd(usage: TokenUsage | null, settings: AttemptSettings, priceFactor: number): number | null {
  // A call that got no answer reported no tokens and was not billed.
  const fullCost = usage ? callCostUsd(usage, settings.price) : 0;
  return fullCost === null ? null : fullCost * priceFactor;
}

/** The call's spend on the day's budget record and its audit object. */
export async function recordCall(
  deps: AttemptDeps,
  row: RunRow,
  issue: ReferencedIssue,
  settings: AttemptSettings,
  prepared: PreparedCall,
  call: CallOutcome,
  { result, costUsd }: { result: AttemptResult; costUsd: number | null },
): Promise<void> {
  // The day's spend beside its calls, for the budget view (a call without a price makes the day's unknown).
  if (costUsd !== 0) await deps.budget.addCost(row.space, utcDay(call.startedAt), costUsd);
  const { checks } = prepared;
  await writeAudit(deps.objects, row, issue, {
    model: settings.model,
    prompt: prepared.prompt,
    startedAt: call.startedAt,
    latencyMs: call.latencyMs,
    // The audit keeps the answer with its reason treated like the row's: no issue text in any object.
    answerText: call.answerText === null ? null : auditedAnswerText(call.answerText, prepared.issueText),
    usage: call.usage,
    costUsd,
    parsed: result.kind === 'answered' ? result.answer : null,
    flags: result.kind === 'answered' ? verdictFlags(result.answer.verdict, checks) : checks.screenHits,
    problem: result.kind === 'answered' ? null : { ...result.problem, pausesJudging: result.kind === 'pauses-judging' },
  });
}
