// One judge attempt for one landed run (SPEC §5): reference → budget → one model call → stale-proof write.
// Every step that costs nothing (credentials, issue record, pause) is checked before the row is claimed,
// and every write is conditional on the row's revision, so duplicate messages, concurrent invocations and a
// re-run landing mid-call all converge: the verdict lands only on the exact patch that was judged.
import { sha256Hex } from '../sha256.ts';
import { runObjectPrefix } from '../landing/land.ts';
import { judgeModelOf, repoAllowed, spaceOf, type ReplayConfig } from '../schema/config.ts';
import type { StoredIssue } from '../schema/issue.ts';
import type { JudgeFields, RunRow } from '../schema/run.ts';
import {
  JudgeModelError,
  ReferenceFetchError,
  type BudgetStore,
  type Clock,
  type IssueStore,
  type JudgeMessage,
  type JudgeModel,
  type JudgeModelAnswer,
  type JudgingStatus,
  type JudgingStatusStore,
  type ObjectStore,
  type ReferenceSource,
  type RunStore,
  type ServiceProvider,
  type Versioned,
} from '../ports.ts';
import { isLockFile } from '../reference/lock-files.ts';
import { touchedPaths } from '../reference/diff.ts';
import { referenceDiff, referenceDiffKey, type ReferenceDiff } from '../reference/reference-fix.ts';
import { parseJudgeAnswer, type ParsedAnswer } from './answer.ts';
import { auditedAnswerText } from './reason-guard.ts';
import { buildPrompt, type JudgePrompt } from './prompt.ts';
import { claimed, failedAttempt, isDecided, nextUtcDay, utcDay, verdict, waiting, type JudgeProblem } from './transitions.ts';

export interface JudgeDeps {
  config: ReplayConfig;
  runs: RunStore;
  issues: IssueStore;
  budget: BudgetStore;
  judging: JudgingStatusStore;
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
  | 'attempt-failed'
  | 'gave-up'
  | 'paused'
  | 'waiting-credentials'
  | 'waiting-issue'
  | 'waiting-budget'
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
}

type ReferencedIssue = StoredIssue & { baseSha: string; mergeSha: string };

/** Longer than an attempt can take (the function's timeout); a crashed attempt is retried after it. */
export const CLAIM_SECONDS = 300;
export const DEFAULT_MAX_DIFF_CHARS = 100_000;
/** A run whose issue record is missing looks again after this long (or the space's retry base, if shorter). */
const ISSUE_RECHECK_SECONDS = 300;
const MAX_OUTPUT_TOKENS = 1024;
const MAX_CONFLICTS = 20;

export class JudgeConflictError extends Error {}

export async function judgeRun(deps: JudgeDeps, message: JudgeMessage): Promise<JudgeOutcome> {
  if (!spaceOf(deps.config, message.space)) return { result: 'skipped' };
  for (let i = 0; i < MAX_CONFLICTS; i++) {
    const current = await deps.runs.getRun(message.space, message.id);
    const now = deps.clock.now();
    if (!current || !isDue(current.value, message, now)) return { result: 'skipped' };
    const outcome = await tryRow(deps, current, now);
    if (outcome) return outcome;
  }
  throw new JudgeConflictError(`Gave up judging ${message.id} after ${MAX_CONFLICTS} conflicting writes.`);
}

/** Only the landing the message is about, only once, and only when its attempt is due. */
function isDue(row: RunRow, message: JudgeMessage, now: Date): boolean {
  return row.finishedAt === message.finishedAt && !isDecided(row) && row.judgeNextAttemptAt !== null && row.judgeNextAttemptAt <= now.toISOString();
}

/** One pass over the current row; undefined when a conditional write lost a race and the row must be re-read. */
async function tryRow(deps: JudgeDeps, current: Versioned<RunRow>, now: Date): Promise<JudgeOutcome | undefined> {
  const row = current.value;
  const wait = async (result: 'paused' | 'waiting-credentials' | 'waiting-issue', problem: JudgeProblem, nextAttemptAt: string, judging?: JudgingStatus['state']) => {
    const unchanged = row.judgeState === result && row.judgeLastError?.code === problem.code && row.judgeNextAttemptAt === nextAttemptAt;
    if (!unchanged && !(await deps.runs.putRun(update(row, waiting(result, problem, nextAttemptAt), now), current.rev))) return undefined;
    return { result, judging };
  };

  const [model, reference] = await Promise.all([deps.model(), deps.reference()]);
  if (!model || !reference) {
    const problem = missingCredentials(!model, !reference);
    const held = await holdJudging(deps.judging, row.space, 'waiting-credentials', problem, now);
    return wait('waiting-credentials', problem, row.judgeNextAttemptAt!, held ? 'waiting-credentials' : undefined);
  }

  const status = await deps.judging.getJudgingStatus(row.space);
  let resumedFrom: JudgingStatus['state'] | null = null;
  if (status?.value.state === 'waiting-credentials') {
    // Credentials are here now: checking them was the probe.
    if (await deps.judging.putJudgingStatus(judgingAgain(row.space, now), status.rev)) resumedFrom = 'waiting-credentials';
  } else if (status?.value.state === 'paused') {
    // Only the sweeper's chosen probe may spend a call on credentials the provider refused.
    const isProbe = status.value.probeRunId === row.id && (await deps.judging.putJudgingStatus({ ...status.value, probeRunId: null }, status.rev));
    if (!isProbe) return wait('paused', status.value.reason ?? PROVIDER_REFUSED, row.judgeNextAttemptAt!);
    resumedFrom = 'paused';
  }

  const issue = await deps.issues.getIssue(row.space, row.taskId);
  if (!issue?.baseSha || !issue.mergeSha || !repoAllowed(spaceOf(deps.config, row.space)!, issue.repo)) {
    const recheck = Math.min(ISSUE_RECHECK_SECONDS, settingsOf(deps, row.space).retryBaseSeconds);
    const retryAt = new Date(now.getTime() + recheck * 1000).toISOString();
    return wait('waiting-issue', missingIssue(row.taskId, issue), retryAt);
  }

  const claimedRow = update(row, claimed(now, CLAIM_SECONDS), now);
  if (!(await deps.runs.putRun(claimedRow, current.rev))) return undefined;
  const outcome = await attempt(deps, claimedRow, issue as ReferencedIssue, model, reference);
  // A probe resumes a paused space only when the provider actually answered it.
  if (resumedFrom === 'paused' && outcome.modelCall === 'answered') {
    await resume(deps.judging, row.space, now);
    return { ...outcome, judging: 'judging' };
  }
  return resumedFrom === 'waiting-credentials' && !outcome.judging ? { ...outcome, judging: 'judging' } : outcome;
}

async function attempt(
  deps: JudgeDeps,
  row: RunRow,
  issue: ReferencedIssue,
  model: JudgeModel,
  source: ReferenceSource,
): Promise<JudgeOutcome> {
  const settings = settingsOf(deps, row.space);
  const fail = (problem: JudgeProblem) => finish(deps, row, (r) => failedAttempt(r, problem, settings, settings.model, deps.clock.now()), 'attempt-failed', problem);

  let reference: ReferenceDiff;
  let issueText: string;
  try {
    [reference, issueText] = await Promise.all([
      referenceDiff(deps.objects, source, issue.repo, issue.baseSha, issue.mergeSha),
      source.issueText(issue.repo, issue.issueNumber),
    ]);
  } catch (error) {
    if (error instanceof ReferenceFetchError) return fail({ code: error.code, message: error.message });
    throw error;
  }
  const candidate = row.patchKey ? await deps.objects.getText(row.patchKey) : null;
  if (candidate === null) return fail({ code: 'patch-missing', message: 'The stored patch of this run could not be read.' });

  const now = deps.clock.now();
  if (!(await deps.budget.reserve(row.space, utcDay(now), settings.dailyCap))) {
    const problem = { code: 'daily-cap-reached', message: `The space's judge budget of ${settings.dailyCap} calls for ${utcDay(now)} (UTC) is used up; judging resumes the next day.` };
    return finish(deps, row, () => waiting('waiting-budget', problem, nextUtcDay(now)), 'waiting-budget');
  }

  const prompt = buildPrompt({
    issueText,
    referenceDiff: reference.diff,
    omittedLockFiles: reference.omittedLockFiles,
    candidateDiff: candidate,
    candidateTruncated: row.patchTruncated,
    maxDiffChars: deps.maxDiffChars,
  });
  const { parsed, callError } = await askAndAudit(deps, row, issue, model, settings.model, prompt, issueText);

  if (callError?.refused) return { ...(await pause(deps, row, { code: callError.code, message: callError.message })), modelCall: 'refused' };
  if (callError) return { ...(await fail({ code: callError.code, message: callError.message })), modelCall: 'failed' };
  if (!parsed!.ok) return { ...(await fail({ code: 'unparsable-answer', message: parsed!.problem })), modelCall: 'answered' };
  const sameFiles = sameFilesComputed(candidate, reference.diff);
  const judgedAnswer = parsed!.answer;
  return { ...(await finish(deps, row, (r) => verdict(judgedAnswer, sameFiles, r, settings.model, deps.clock.now()), 'judged')), modelCall: 'answered' };
}

/** The one model call, and its audit object beside the run's patch whatever the call's fate. */
async function askAndAudit(deps: JudgeDeps, row: RunRow, issue: ReferencedIssue, model: JudgeModel, modelName: string, prompt: JudgePrompt, issueText: string) {
  const startedAt = deps.clock.now();
  let answer: JudgeModelAnswer | null = null;
  let callError: JudgeModelError | null = null;
  try {
    answer = await model.ask({ model: modelName, system: prompt.system, prompt: prompt.prompt, maxTokens: MAX_OUTPUT_TOKENS });
  } catch (error) {
    if (!(error instanceof JudgeModelError)) throw error;
    callError = error;
  }
  const latencyMs = deps.clock.now().getTime() - startedAt.getTime();
  const parsed = answer ? parseJudgeAnswer(answer.text, issueText) : null;
  const audited = answer && { ...answer, text: auditedAnswerText(answer.text, issueText) };
  const audit = auditRecord(row, issue, modelName, prompt, startedAt, latencyMs, audited, parsed, callError);
  const key = `${runObjectPrefix(row.space, row.id, row.finishedAt)}/judge-${startedAt.toISOString()}-attempt-${row.judgeAttempts + 1}.json`;
  await deps.objects.put(key, JSON.stringify(audit, null, 2), 'application/json');
  return { parsed, callError };
}

/** The provider refused the key: the space pauses, the row waits due (a probe candidate), no attempt counted. */
async function pause(deps: JudgeDeps, row: RunRow, problem: JudgeProblem): Promise<JudgeOutcome> {
  const now = deps.clock.now();
  const newly = await holdJudging(deps.judging, row.space, 'paused', problem, now);
  await finish(deps, row, () => waiting('paused', problem, now.toISOString()), 'paused');
  return newly ? { result: 'paused', judging: 'paused' } : { result: 'paused' };
}

/**
 * The stale-proof write: re-read, and change the row only while it is still the landing that was judged
 * (same finishedAt and patch) and still undecided; a re-run that landed meanwhile wins.
 */
async function finish(deps: JudgeDeps, judged: RunRow, change: (row: RunRow) => Partial<JudgeFields>, result: JudgeResult, problem?: JudgeProblem): Promise<JudgeOutcome> {
  for (let i = 0; i < MAX_CONFLICTS; i++) {
    const current = await deps.runs.getRun(judged.space, judged.id);
    if (!current || current.value.finishedAt !== judged.finishedAt || current.value.patchSha256 !== judged.patchSha256 || isDecided(current.value)) {
      return { result: 'stale' };
    }
    const fields = change(current.value);
    if (await deps.runs.putRun(update(current.value, fields, deps.clock.now()), current.rev)) {
      return { result: fields.judgeState === 'error' ? 'gave-up' : result, problem };
    }
  }
  throw new JudgeConflictError(`Gave up writing the judgement of ${judged.id} after ${MAX_CONFLICTS} conflicting writes.`);
}

const update = (row: RunRow, fields: Partial<JudgeFields>, now: Date): RunRow => ({ ...row, ...fields, updatedAt: now.toISOString() });

/** Puts the space on hold; true when this call is the one that did (so it is logged and counted once). */
async function holdJudging(store: JudgingStatusStore, space: string, state: 'paused' | 'waiting-credentials', reason: JudgeProblem, now: Date): Promise<boolean> {
  for (let i = 0; i < MAX_CONFLICTS; i++) {
    const status = await store.getJudgingStatus(space);
    if (status?.value.state === state) return false;
    if (await store.putJudgingStatus({ space, state, since: now.toISOString(), reason, probeRunId: null }, status?.rev ?? null)) return true;
  }
  throw new JudgeConflictError(`Gave up recording that judging of ${space} is ${state}.`);
}

async function resume(store: JudgingStatusStore, space: string, now: Date): Promise<void> {
  for (let i = 0; i < MAX_CONFLICTS; i++) {
    const status = await store.getJudgingStatus(space);
    if (!status || status.value.state === 'judging') return;
    if (await store.putJudgingStatus(judgingAgain(space, now), status.rev)) return;
  }
}

const judgingAgain = (space: string, now: Date): JudgingStatus => ({ space, state: 'judging', since: now.toISOString(), reason: null, probeRunId: null });

function settingsOf(deps: JudgeDeps, space: string) {
  return { ...deps.config.spaces[space]!.judge, model: judgeModelOf(deps.config, space) };
}

/** Whether the candidate changes the same source files as the reference fix, lock files aside. */
export function sameFilesComputed(candidateDiff: string, referenceDiffText: string): boolean {
  const sourceFiles = (diff: string) => [...touchedPaths(diff)].filter((p) => !isLockFile(p)).sort();
  return JSON.stringify(sourceFiles(candidateDiff)) === JSON.stringify(sourceFiles(referenceDiffText));
}

const PROVIDER_REFUSED: JudgeProblem = { code: 'provider-refused', message: 'The judge model provider refused the credentials; judging of this space is paused.' };

function missingCredentials(model: boolean, github: boolean): JudgeProblem {
  const missing = [model ? 'an Anthropic API key' : null, github ? 'GitHub credentials (a GitHub App, or GITHUB_TOKEN locally)' : null].filter(Boolean);
  return { code: 'no-credentials', message: `The judge is missing ${missing.join(' and ')}; the run waits until they are configured.` };
}

function missingIssue(taskId: string, issue: StoredIssue | null): JudgeProblem {
  if (issue && issue.baseSha && issue.mergeSha) {
    return { code: 'repo-not-allowed', message: `The issue record of task ${taskId} names repository ${issue.repo}, which the space's "repos" does not list; the run waits for an issue record of a listed repository.` };
  }
  return issue
    ? { code: 'issue-without-shas', message: `The issue record of task ${taskId} has no baseSha and mergeSha to fetch the reference fix with; the run waits for an issue delivery that has them.` }
    : { code: 'no-issue-record', message: `No issue record for task ${taskId} has been delivered; the run waits for it.` };
}

/** What the call exchanged, minus the prompt text itself (it holds the issue text, which is never stored). */
function auditRecord(
  row: RunRow,
  issue: ReferencedIssue,
  model: string,
  prompt: JudgePrompt,
  startedAt: Date,
  latencyMs: number,
  answer: JudgeModelAnswer | null,
  parsed: ParsedAnswer | null,
  error: JudgeModelError | null,
) {
  return {
    space: row.space,
    id: row.id,
    finishedAt: row.finishedAt,
    patchSha256: row.patchSha256,
    attempt: row.judgeAttempts + 1,
    model,
    reference: { repo: issue.repo, baseSha: issue.baseSha, mergeSha: issue.mergeSha, cacheKey: referenceDiffKey(issue.repo, issue.baseSha, issue.mergeSha) },
    promptSha256: sha256Hex(`${prompt.system}\n\n${prompt.prompt}`),
    promptChars: prompt.system.length + prompt.prompt.length,
    startedAt: startedAt.toISOString(),
    latencyMs,
    answer: answer?.text ?? null,
    usage: answer ? { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens } : null,
    parsed: parsed?.ok ? parsed.answer : null,
    problem: error ? { code: error.code, message: error.message, refused: error.refused } : parsed && !parsed.ok ? { code: 'unparsable-answer', message: parsed.problem } : null,
  };
}
