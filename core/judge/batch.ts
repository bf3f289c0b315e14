// Batch mode (`judge.mode: "batch"`, docs/contract.md §5): the sweeper sends a space's due runs in one message, and
// the judge takes each through the live path's steps up to the call — the same checks before the claim, the claim
// (the attempt counts), one unit of each budget, the reference fix, the screen and the prompt — then submits their
// requests as one Message Batch and leaves each row `waiting-batch`, naming the batch. No Lambda waits on the model.
// A later sweep sends the batch to be collected: once it has ended, each result is read exactly as a live answer
// (attempt.ts readCall: same verdict rules, flags and audit), its tokens priced at the batch rate, and an errored,
// expired or canceled request is a failed attempt retried with backoff, as a failed live call is.
//
// A submission is recorded, and its rows wait on it, before the provider is asked, under an id of the judge's own
// (`unconfirmed-…`); the provider's id replaces it once known. A submission whose answer was lost (or whose
// function ended first) is collected like any batch: the provider's batch holding its requests is found by their
// custom_ids (exactly its own), or, if none does, its runs' attempts fail. A batch the provider took is never paid
// for twice.
//
// Collecting is idempotent: a row is written only while it still waits for this batch at this attempt (custom_id
// names the run and the attempt, and is checked against the batch's record), the spend and the audit follow only
// that write, and the batch is closed last, so a collect killed at any step and sent again ends in the same state.
// An answer to an attempt whose row another attempt took meanwhile is not written, but its spend counts, once:
// the batch's record notes it.
// The issue text is never stored: collecting fetches it again and rebuilds the request, and reads the answer only
// if the rebuilt request and checks match the fingerprint taken at submission. Otherwise the screen, the facts and
// the reason guard would read other text than the model did (an injection edited out after submission would go
// unflagged), so such an answer is a failed attempt and the run is judged again on what it reads now.
import { sha256Hex } from '#shared/sha256.ts';
import { spaceOf } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { BATCH_PRICE_FACTOR } from '../cost.ts';
import { optimisticUpdate, runRecord, type UpdateDecision } from '../optimistic-update.ts';
import {
  BATCH_NOT_FOUND,
  JudgeModelError,
  type JudgeBatch,
  type JudgeBatchResult,
  type JudgeMessage,
  type JudgeModel,
} from '../ports.ts';
import { TIMINGS } from '../operations.ts';
import {
  billedCostUsd,
  isReferencedIssue,
  prepareCall,
  readCall,
  recordCall,
  reserveBudget,
  type AttemptResult,
  type CallOutcome,
  type PreparedCall,
  type ReferencedIssue,
} from './attempt.ts';
import { resumeJudging } from './judging-status.ts';
import {
  gatherFacts,
  isDue,
  judgeAsAttempted,
  nextRow,
  settingsOf,
  settle,
  withAttemptFields,
  type JudgeDeps,
  type JudgeOutcome,
} from './judge-run.ts';
import { nextUtcDay, utcDay, type JudgeProblem } from './transitions.ts';

/**
 * How long a submitted row waits before it is due again without its batch collected: a batch ends within 24 hours
 * (its requests then expire), so a row still waiting after this has a batch that is not being collected, and is
 * claimed again, its attempt spent.
 */
export const BATCH_WAIT_SECONDS = 25 * 3600;

/** One run's outcome, named, for the handler's logs and metrics. */
export interface BatchRunOutcome {
  id: string;
  outcome: JudgeOutcome;
}

interface Submission {
  row: RunRow;
  issue: ReferencedIssue;
  call: PreparedCall;
  customId: string;
}

/** What a request was built from, as the model and the checks read it: the request itself and the checks' findings. */
export const callFingerprint = (call: PreparedCall) =>
  sha256Hex(JSON.stringify({ request: call.request, checks: call.checks }));

/**
 * The request's name in the batch: the run (its space, id and finishedAt, hashed: the API takes at most 64 letters,
 * digits, `_` and `-`) and the attempt, so a result is matched to exactly the attempt it answers, and no other
 * space's or attempt's request, in a batch the same key sent, carries the same name.
 */
export const batchCustomId = (row: Pick<RunRow, 'space' | 'id' | 'finishedAt' | 'judgeAttempts'>) =>
  `${sha256Hex(JSON.stringify([row.space, row.id, row.finishedAt])).slice(0, 40)}-${row.judgeAttempts}`;

/** Submits the due runs among `runs` of a batch-mode space as one Message Batch. */
export async function submitBatch(
  deps: JudgeDeps,
  space: string,
  runs: Pick<JudgeMessage, 'id' | 'finishedAt'>[],
): Promise<BatchRunOutcome[]> {
  if (!Object.hasOwn(deps.config.spaces, space) || deps.config.spaces[space]!.judge.mode !== 'batch') return [];
  const settings = settingsOf(deps, space);
  const outcomes: BatchRunOutcome[] = [];
  const submissions: Submission[] = [];
  let resumedFrom: string | null = null;
  // A few runs at a time: their GitHub reads overlap, so a full message stays well inside the judge's timeout.
  for (let i = 0; i < runs.length; i += PREPARED_AT_ONCE) {
    const slice = runs.slice(i, i + PREPARED_AT_ONCE);
    for (const claimed of await Promise.all(slice.map((run) => claimAndPrepare(deps, space, run, settings)))) {
      if ('outcome' in claimed) outcomes.push(claimed);
      else {
        submissions.push(claimed.submission);
        resumedFrom ??= claimed.resumedFrom;
      }
    }
  }
  if (submissions.length === 0) return outcomes;

  const model = await deps.model();
  const fail = async (error: JudgeModelError, held?: JudgeBatch) => {
    // As a live call that failed: the attempt is spent (or the space pauses), its budget units stay taken.
    const failed: AttemptResult = error.pausesJudging
      ? { kind: 'pauses-judging', problem: problemOf(error) }
      : { kind: 'failed', problem: problemOf(error), answered: false, costUsd: 0 };
    for (const s of submissions) {
      const stillHeld = held && waitsFor(held, { attempt: s.row.judgeAttempts, finishedAt: s.row.finishedAt });
      outcomes.push({ id: s.row.id, outcome: await settle(deps, s.row, failed, stillHeld) });
    }
    return outcomes;
  };
  if (!model) return fail(new JudgeModelError('no-credentials', 'The judge is missing an Anthropic API key.'));

  const submittedAt = deps.clock.now();
  const submitted = submissions.map((s) => ({
    id: s.row.id,
    finishedAt: s.row.finishedAt,
    attempt: s.row.judgeAttempts,
    customId: s.customId,
    inputsSha256: callFingerprint(s.call),
  }));
  // Recorded, and the runs waiting on it, before the provider is asked: a submission cut short after the provider
  // took it (its answer lost, the function ended) is found and collected, not submitted and paid for again.
  const unconfirmed: JudgeBatch = {
    space,
    id: unconfirmedBatchId(submitted),
    submittedAt: submittedAt.toISOString(),
    runs: submitted,
    unconfirmed: true,
  };
  await deps.batches.putJudgeBatch(unconfirmed);
  for (const s of submissions) await markWaiting(deps, s.row, unconfirmed.id, submittedAt);
  let batchId: string;
  try {
    batchId = await model.submitBatch(submissions.map((s) => ({ customId: s.customId, request: s.call.request })));
  } catch (error) {
    if (!(error instanceof JudgeModelError)) throw error;
    // The provider may have taken it: the runs stay waiting, and the collect finds out.
    if (error.unanswered)
      return [
        ...outcomes,
        ...submissions.map((s) => ({
          id: s.row.id,
          outcome: { result: 'waiting-batch' as const, problem: problemOf(error) },
        })),
      ];
    await fail(error, unconfirmed);
    await deps.batches.closeJudgeBatch(space, unconfirmed.id, deps.clock.now());
    return outcomes;
  }
  const { unconfirmed: _unconfirmed, ...confirmed } = { ...unconfirmed, id: batchId };
  await deps.batches.putJudgeBatch(confirmed);
  for (const s of submissions)
    outcomes.push({ id: s.row.id, outcome: await markWaiting(deps, s.row, batchId, submittedAt, unconfirmed) });
  await deps.batches.closeJudgeBatch(space, unconfirmed.id, deps.clock.now());
  // A probe of a paused space resumes it once the provider took the batch.
  if (resumedFrom === 'paused') await resumeJudging(deps.judging, space, deps.clock.now());
  return outcomes;
}

/** The judge's own name for a submission before the provider's batch is known: its requests' names, hashed. */
export const unconfirmedBatchId = (runs: JudgeBatch['runs']) =>
  `unconfirmed-${sha256Hex(runs.map((r) => r.customId).join('\n')).slice(0, 40)}`;

/**
 * How long after an unconfirmed submission began the provider may still create its batch: until the judge
 * function that sent it has ended, and a minute either side for the provider's clock.
 */
const SUBMISSION_SETTLES_MS = (TIMINGS.judgeFunction + 60) * 1000;
const CLOCK_SKEW_MS = 60_000;

/** Whether `row` still waits on `batch` for this attempt of this run. */
const waitsFor =
  (batch: Pick<JudgeBatch, 'id'>, run: { attempt: number; finishedAt: string }) =>
  (row: RunRow): boolean =>
    row.judgeState === 'waiting-batch' &&
    row.judgeBatchId === batch.id &&
    row.judgeAttempts === run.attempt &&
    row.finishedAt === run.finishedAt;

/** How many runs of a message are claimed and prepared side by side. */
const PREPARED_AT_ONCE = 5;

/** One due run claimed and its request prepared, or what became of it instead. */
async function claimAndPrepare(
  deps: JudgeDeps,
  space: string,
  run: Pick<JudgeMessage, 'id' | 'finishedAt'>,
  settings: ReturnType<typeof settingsOf>,
): Promise<BatchRunOutcome | { submission: Submission; resumedFrom: string | null }> {
  const message = { space, ...run };
  const record = runRecord(deps.runs, space, run.id);
  const current = await record.read();
  const now = deps.clock.now();
  if (!current || !isDue(current.value, message, now)) return { id: run.id, outcome: { result: 'skipped' } };
  const facts = await gatherFacts(deps, current.value, now);
  const step = await optimisticUpdate(record, (latest) => nextRow(latest, message, facts, settings, now), {
    what: `judging ${run.id}`,
    current,
  });
  if (step.kind === 'done') return { id: run.id, outcome: step.outcome };
  const prepared = await prepareSubmission(deps, step.row, step.issue, step.reference, settings);
  return 'outcome' in prepared
    ? { id: run.id, outcome: prepared.outcome }
    : { submission: prepared, resumedFrom: step.resumedFrom };
}

/** The budget units and the request of one claimed run, or how its attempt ended without one. */
async function prepareSubmission(
  deps: JudgeDeps,
  row: RunRow,
  issue: ReferencedIssue,
  reference: Parameters<typeof prepareCall>[4],
  settings: ReturnType<typeof settingsOf>,
): Promise<Submission | { outcome: JudgeOutcome }> {
  const now = deps.clock.now();
  const reserved = await reserveBudget(deps.budget, row, utcDay(now), settings);
  if ('refused' in reserved) {
    const overBudget: AttemptResult = { kind: 'over-budget', problem: reserved.refused, resumeAt: nextUtcDay(now) };
    return { outcome: await settle(deps, row, overBudget) };
  }
  const prepared = await prepareCall(deps, row, issue, settings, reference);
  if (prepared.kind !== 'prepared') {
    await reserved.release();
    return { outcome: await settle(deps, row, prepared) };
  }
  return { row, issue, call: prepared.call, customId: batchCustomId(row) };
}

/**
 * The claimed row now waits for its batch; no attempt is spent while it waits. Moved from an unconfirmed
 * submission's record to the provider's batch only while it still waits on that record.
 */
async function markWaiting(
  deps: JudgeDeps,
  claimed: RunRow,
  batchId: string,
  at: Date,
  from?: JudgeBatch,
): Promise<JudgeOutcome> {
  const claim = { attempt: claimed.judgeAttempts, finishedAt: claimed.finishedAt };
  return optimisticUpdate(
    runRecord(deps.runs, claimed.space, claimed.id),
    (current): UpdateDecision<RunRow, JudgeOutcome> => {
      // A retry that landed a no-call verdict meanwhile set the claimed attempt aside: the batch is recorded there.
      const row = current && judgeAsAttempted(current.value);
      if (
        !row ||
        row.host !== claimed.host ||
        row.finishedAt !== claimed.finishedAt ||
        row.judgeAttempts !== claimed.judgeAttempts
      )
        return { done: { result: 'stale' } };
      if (from && !waitsFor(from, claim)(row)) return { done: { result: 'stale' } };
      const fields = {
        judgeState: 'waiting-batch' as const,
        judgeBatchId: batchId,
        judgeNextAttemptAt: new Date(at.getTime() + BATCH_WAIT_SECONDS * 1000).toISOString(),
        judgeLastError: {
          code: 'waiting-batch',
          message: from
            ? `The judge's request is in Message Batch ${batchId}; a sweep collects its answer once the batch has ended.`
            : "The judge's request is being sent as a Message Batch; a sweep collects its answer once the batch has ended.",
        },
      };
      return {
        write: withAttemptFields(current!.value, fields, deps.clock.now()),
        result: { result: 'waiting-batch' },
      };
    },
    { what: `recording the batch of ${claimed.id}` },
  );
}

/**
 * What collecting one batch found: still in progress, already collected, not collectable now (and why, when the
 * provider said), or each run's outcome.
 */
export type BatchCollection =
  | { state: 'in-progress' | 'unknown' }
  | { state: 'not-collected'; problem?: JudgeProblem }
  | { state: 'collected'; runs: BatchRunOutcome[] };

/** Collects an ended batch: each waiting run's result onto its row, then the batch is closed. */
export async function collectBatch(deps: JudgeDeps, space: string, batchId: string): Promise<BatchCollection> {
  if (!Object.hasOwn(deps.config.spaces, space)) return { state: 'unknown' };
  const batch = (await deps.batches.listJudgeBatches(space)).find((b) => b.id === batchId);
  if (!batch) return { state: 'unknown' };
  const [model, reference] = await Promise.all([deps.model(), deps.reference()]);
  // Without credentials the batch stays open; the sweeper sends it again.
  if (!model || !reference) return { state: 'not-collected' };
  let results: JudgeBatchResult[] | null;
  try {
    results = await resultsOf(model, batch, deps.clock.now());
  } catch (error) {
    if (!(error instanceof JudgeModelError)) throw error;
    // A refused key, a 5xx or no answer: the batch stays open and the next sweep asks again, where a thrown
    // message would end in the dead-letter queue every sweep. A batch the provider no longer has (results are
    // kept 29 days) never ends: each waiting run's attempt fails with that, and the batch is closed.
    if (error.code !== BATCH_NOT_FOUND) return { state: 'not-collected', problem: problemOf(error) };
    results = batch.runs.map((run) => ({ customId: run.customId, error }));
  }
  if (results === null) return { state: 'in-progress' };
  const byCustomId = new Map(results.map((r) => [r.customId, r]));
  const runs: BatchRunOutcome[] = [];
  for (const run of batch.runs) {
    const outcome = await collectRun(deps, batch, run, byCustomId.get(run.customId), reference);
    // GitHub limits the rate: the rest waits for the next collect, the batch stays open.
    if (outcome === 'rate-limited') return { state: 'not-collected' };
    runs.push({ id: run.id, outcome });
  }
  await deps.batches.closeJudgeBatch(space, batchId, deps.clock.now());
  return { state: 'collected', runs };
}

/**
 * The batch's results. An unconfirmed submission's are those of the provider's batch that holds its requests, once
 * its submitter has surely ended; if the provider holds none, each request failed (the run is judged again).
 */
async function resultsOf(model: JudgeModel, batch: JudgeBatch, now: Date): Promise<JudgeBatchResult[] | null> {
  if (!batch.unconfirmed) return model.batchResults(batch.id);
  const submittedAt = Date.parse(batch.submittedAt);
  if (now.getTime() < submittedAt + SUBMISSION_SETTLES_MS) return null;
  const customIds = batch.runs.map((run) => run.customId);
  const window = [new Date(submittedAt - CLOCK_SKEW_MS), new Date(submittedAt + SUBMISSION_SETTLES_MS)] as const;
  const found = await model.findBatch(customIds, ...window);
  if (found === 'in-progress') return null;
  if (found !== null) return model.batchResults(found);
  const error = new JudgeModelError(
    'batch-not-submitted',
    'The judge model provider holds no batch with this request: its submission did not reach the provider.',
  );
  return customIds.map((customId) => ({ customId, error }));
}

async function collectRun(
  deps: JudgeDeps,
  batch: JudgeBatch,
  run: JudgeBatch['runs'][number],
  result: JudgeBatchResult | undefined,
  reference: Parameters<typeof prepareCall>[4],
): Promise<JudgeOutcome | 'rate-limited'> {
  const waits = waitsFor(batch, run);
  const stored = (await deps.runs.getRun(batch.space, run.id))?.value;
  // An attempt a no-call verdict set aside still has its answer collected (docs/contract.md §4).
  const row = stored && judgeAsAttempted(stored);
  const settings = settingsOf(deps, batch.space);
  if (!row || !waits(row)) {
    // Already collected: its spend counted with its row's write. Otherwise another attempt holds the row (a
    // re-run, a reassign, a claim after the batch was given up): nothing to write, but an answer was billed.
    const collected = row && row.finishedAt === run.finishedAt && row.judgeAttempts === run.attempt;
    const usage = result && 'answer' in result ? result.answer.usage : null;
    if (!collected && usage) {
      const costUsd = billedCostUsd(usage, settings, BATCH_PRICE_FACTOR);
      if (costUsd !== 0 && (await deps.batches.recordBatchSpend(batch.space, batch.id, run.customId)))
        await deps.budget.addCost(batch.space, utcDay(new Date(batch.submittedAt)), costUsd);
    }
    return { result: 'skipped' };
  }
  // The answer cannot be read, but a succeeded request was billed: its tokens count in the row and the day.
  const unreadable = async (problem: JudgeProblem): Promise<JudgeOutcome> => {
    const usage = result && 'answer' in result ? result.answer.usage : null;
    const costUsd = billedCostUsd(usage, settings, BATCH_PRICE_FACTOR);
    const failed: AttemptResult = { kind: 'failed', problem, answered: usage !== null, costUsd };
    const outcome = await settle(deps, row, failed, waits);
    if (outcome.result !== 'stale' && costUsd !== 0)
      await deps.budget.addCost(batch.space, utcDay(new Date(batch.submittedAt)), costUsd);
    return outcome;
  };
  const issue = await deps.issues.getIssue(batch.space, row.taskId);
  // As before the claim: GitHub is never asked about a repository the space no longer lists.
  if (!isReferencedIssue(spaceOf(deps.config, batch.space)!, issue))
    return unreadable({
      code: 'no-issue-record',
      message: `The issue record of task ${row.taskId} is gone or names an unlisted repository; the batch's answer cannot be read.`,
    });
  const prepared = await prepareCall(deps, row, issue, settings, reference);
  if (prepared.kind === 'rate-limited') return 'rate-limited';
  if (prepared.kind === 'not-called') return unreadable(prepared.problem);

  const submittedAt = new Date(batch.submittedAt);
  const call: CallOutcome = {
    answerText: result && 'answer' in result ? result.answer.text : null,
    usage: result && 'answer' in result ? result.answer.usage : null,
    callError: !result
      ? new JudgeModelError('batch-result-missing', `Message Batch ${batch.id} ended without a result for this run.`)
      : 'error' in result
        ? result.error
        : null,
    startedAt: submittedAt,
    latencyMs: deps.clock.now().getTime() - submittedAt.getTime(),
  };
  const answered = readCall(prepared.call, call, settings, BATCH_PRICE_FACTOR);
  const changed = callFingerprint(prepared.call) !== run.inputsSha256;
  const read = changed ? inputsChanged(batch.id, call, answered.costUsd) : answered;
  const outcome = await settle(deps, row, read.result, waits);
  // Only the collect that wrote the row records the spend and the audit, so a collect sent twice counts once.
  // An answer to other inputs stays out of the audit: its reason may quote issue text the guard no longer sees.
  const audited = changed ? { ...call, answerText: null } : call;
  if (outcome.result !== 'stale') await recordCall(deps, row, issue, settings, prepared.call, audited, read);
  return outcome;
}

/** An answer given on inputs that changed after submission: a failed attempt, its tokens still spent. */
function inputsChanged(batchId: string, call: CallOutcome, costUsd: number | null) {
  const problem = {
    code: 'batch-inputs-changed',
    message: `The issue text, the reference fix, the patch or the judge model changed between Message Batch ${batchId}'s submission and its collection: its answer was given on other inputs and is not read, and the run is judged again.`,
  };
  const result: AttemptResult = { kind: 'failed', problem, answered: call.answerText !== null, costUsd };
  return { result, costUsd };
}

const problemOf = (error: JudgeModelError): JudgeProblem => ({ code: error.code, message: error.message });
