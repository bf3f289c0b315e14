// The run row: what the runner sends (RunnerRow), what the judge and hidden tests add, and what the
// pipeline keeps. Ownership matters: a delivery can only set runner fields; anything else is dropped.
import * as z from './zod.ts';
import { HIDDEN_TEST_STATUSES, JUDGE_STATES, METRICS_SOURCES, OUTCOMES, VERDICTS } from './enums.ts';
import {
  amount,
  count,
  identity,
  instant,
  longText,
  optionalAmount,
  optionalCount,
  optionalText,
  orNull,
  pathSafeIdentity,
  positiveCount,
  repoName,
  printableName,
  shortText,
  tier,
} from './primitives.ts';
import { harnessKeepsIdsApart, modelKeepsIdsApart } from './run-id.ts';

export const outcome = z.enum(OUTCOMES);
export const metricsSource = z.enum(METRICS_SOURCES);

export const contaminationEntry = z.object({
  step: count,
  path: shortText(2000).check(z.minLength(1)),
  reason: z.optional(shortText(2000)),
});

export const runnerRowSchema = z.object({
  // task
  taskId: pathSafeIdentity,
  repo: orNull(repoName),
  issueNumber: optionalCount,
  tier: orNull(tier),
  wave: optionalCount,
  // model
  model: identity.check(
    z.refine(
      modelKeepsIdsApart,
      'its run-id form (":" and "/" written "_") must not contain "__" or end with "_": the id could name another run',
    ),
  ),
  modelFamily: optionalText(),
  parameters: optionalText(),
  activeParameters: optionalText(),
  quantization: optionalText(),
  runtime: optionalText(),
  // machine
  host: pathSafeIdentity,
  hostHardware: optionalText(500),
  contextWindow: optionalCount,
  historyCharsKept: optionalCount,
  // harness
  harnessVersion: pathSafeIdentity.check(
    z.refine(
      harnessKeepsIdsApart,
      'must not contain "__", start with "_" or be "s" and a number (a sample\'s ending): the run id could name another run',
    ),
  ),
  // Which of the task's repeated samples under this harness (docs/contract.md §2); 1 keeps the id of before.
  sample: z._default(positiveCount, 1),
  maxSteps: optionalCount,
  maxOutputTokensPerCall: optionalCount,
  wallBudgetSeconds: optionalAmount,
  // time
  startedAt: instant,
  finishedAt: instant,
  wallSeconds: optionalAmount,
  steps: optionalCount,
  outcome,
  // tokens
  promptTokens: optionalCount,
  completionTokens: optionalCount,
  maxPromptTokensPerCall: optionalCount,
  // cost
  costUsd: optionalAmount,
  // throughput
  outputTokensPerMinute: optionalAmount,
  medianCallSeconds: optionalAmount,
  medianCallOutputTokensPerSecond: optionalAmount,
  medianStepSeconds: optionalAmount,
  promptTokensPerSecond: optionalAmount,
  generationTokensPerSecond: optionalAmount,
  // work
  bashCalls: optionalCount,
  readCalls: optionalCount,
  editCalls: optionalCount,
  writeCalls: optionalCount,
  dotnetCommands: optionalCount,
  patchFilesChanged: optionalCount,
  patchLinesAdded: optionalCount,
  patchLinesRemoved: optionalCount,
  // contamination and provenance
  contamination: z._default(z.array(contaminationEntry).check(z.maxLength(10_000)), []),
  metricsSource: orNull(metricsSource),
});
export type RunnerRow = z.output<typeof runnerRowSchema>;

export const verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof verdict>;

export const judgeState = z.enum(JUDGE_STATES);
export type JudgeState = z.infer<typeof judgeState>;

export const judgeError = z.object({ code: z.string(), message: z.string() });

/** docs/contract.md §2: a hidden-test result may name its tests, each id at most this long… */
export const TEST_NAME_MAX_CHARS = 300;
/** …and at most this many in all (failing and passing together). */
export const TEST_NAMES_MAX = 2000;

const testNames = z.array(printableName(TEST_NAME_MAX_CHARS)).check(z.maxLength(TEST_NAMES_MAX));

export const hiddenTestResultSchema = z
  .object({
    status: z.enum(HIDDEN_TEST_STATUSES),
    passed: z.optional(count),
    failed: z.optional(count),
    total: z.optional(count),
    ranAt: instant,
    details: z.optional(longText(2048)),
    failedTests: z.optional(testNames),
    passedTests: z.optional(testNames),
  })
  .check(
    z.refine((r) => (r.failedTests?.length ?? 0) + (r.passedTests?.length ?? 0) <= TEST_NAMES_MAX, {
      message: `failedTests and passedTests together may name at most ${TEST_NAMES_MAX} tests`,
      path: ['passedTests'],
    }),
  );
export type HiddenTestResult = z.output<typeof hiddenTestResultSchema>;

/**
 * The result as the row keeps it: test names too long for the row are kept beside it in object storage
 * (docs/contract.md §4), and `testsKey` says where.
 */
export const storedHiddenTestResultSchema = z.extend(hiddenTestResultSchema, { testsKey: z.optional(z.string()) });
export type StoredHiddenTestResult = z.output<typeof storedHiddenTestResultSchema>;

export const judgeFieldsSchema = z.object({
  judgeVerdict: z.nullable(verdict),
  judgeRootCauseFound: z.nullable(z.boolean()),
  judgeSameFilesAsReference: z.nullable(z.boolean()),
  judgeSameFilesComputed: z.nullable(z.boolean()),
  judgeTestAdded: z.nullable(z.boolean()),
  /** Whether the candidate adds or changes a test file, computed from its diff; absent on rows judged before. */
  judgeTestAddedComputed: z.optional(z.nullable(z.boolean())),
  judgeWouldCompile: z.nullable(z.boolean()),
  judgeReason: z.nullable(z.string()),
  judgeModel: z.nullable(z.string()),
  judgedAt: z.nullable(z.string()),
  judgeAttempts: count,
  judgeNextAttemptAt: z.nullable(z.string()),
  judgeState: judgeState,
  judgeLastError: z.nullable(judgeError),
  /** USD over the judge calls of the current run: 0 before any call, null once any call's cost is unknown. */
  judgeCostUsd: z.nullable(amount),
  /**
   * Ids of the rules that flagged the answer (shared/analytics/flag-rules.ts): with `judgeState` "flagged" they
   * withheld a "resolved"; beside another verdict they are kept for the reader. Absent on rows judged before.
   */
  judgeFlags: z.optional(z.array(z.string())),
  /** The Message Batch that holds the current attempt's request while `judgeState` is "waiting-batch"; else null or absent. */
  judgeBatchId: z.optional(z.nullable(z.string())),
});
export type JudgeFields = z.infer<typeof judgeFieldsSchema>;

export const pipelineFieldsSchema = z.object({
  id: z.string(),
  space: z.string(),
  landedAt: z.string(),
  updatedAt: z.string(),
  deliveries: z.array(z.string()),
  /** The current attempt's patch and summary as one object (core/run-texts.ts); absent on rows landed before. */
  textsKey: z.optional(z.nullable(z.string())),
  /** Where a run landed before `textsKey` keeps its patch and its summary; null on rows landed since. */
  patchKey: z.nullable(z.string()),
  summaryKey: z.nullable(z.string()),
  patchTruncated: z.boolean(),
  patchSha256: z.string(),
  hiddenTestResult: z.nullable(storedHiddenTestResultSchema),
  /** docs/contract.md §4 bounds: the row keeps the first contamination entries and the last delivery ids; the counts are whole. */
  contaminationCount: count,
  /** The full contamination list, when the row could keep only part of it. */
  contaminationKey: z.nullable(z.string()),
  deliveryCount: count,
  /** Distinct (finishedAt, patch) attempts of this run id: the current one and those archived, conflicts aside. */
  attemptCount: positiveCount,
  /**
   * Conflicts of this run id (docs/contract.md §4): patches delivered for a finishedAt after another was accepted for
   * it, archived and never judged. Absent on rows landed before conflicts were counted.
   */
  conflictCount: z.optional(count),
  /** Attempts other hosts sent for this run id, kept apart (docs/contract.md §4). Absent on rows landed before. */
  foreignCount: z.optional(count),
  /** When the delivery that set the current attempt was accepted (the earliest, for its retries). */
  acceptedAt: z.optional(z.string()),
  /** The earliest archived attempt, when the current one is not the first (for retry accounting). */
  firstAttempt: z.nullable(z.object({ finishedAt: z.string(), judgeVerdict: z.nullable(verdict) })),
  /**
   * The judge's fields a no-call verdict overrode on a retry of this attempt (docs/contract.md §4), given back when
   * a later retry needs the judge again: this patch's verdict is never asked for twice. Absent or null otherwise.
   */
  judgeSetAside: z.optional(z.nullable(judgeFieldsSchema)),
});

/** A stored run row as the API returns it. */
export const runRowSchema = z.object({
  ...runnerRowSchema.shape,
  ...judgeFieldsSchema.shape,
  ...pipelineFieldsSchema.shape,
});
export type RunRow = z.output<typeof runRowSchema>;

export const RUNNER_FIELDS = Object.keys(runnerRowSchema.shape) as (keyof RunnerRow)[];

export { runId } from './run-id.ts';

export const emptyJudgeFields = (): JudgeFields => ({
  judgeVerdict: null,
  judgeRootCauseFound: null,
  judgeSameFilesAsReference: null,
  judgeSameFilesComputed: null,
  judgeTestAdded: null,
  judgeTestAddedComputed: null,
  judgeWouldCompile: null,
  judgeReason: null,
  judgeModel: null,
  judgedAt: null,
  judgeAttempts: 0,
  judgeNextAttemptAt: null,
  judgeState: 'pending',
  judgeLastError: null,
  judgeCostUsd: 0,
  judgeFlags: [],
});
