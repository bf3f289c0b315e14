// The run row: what the runner sends (RunnerRow), what the judge and hidden tests add, and what the
// pipeline keeps. Ownership matters: a delivery can only set runner fields; anything else is dropped.
import * as z from 'zod';
import { HIDDEN_TEST_STATUSES, JUDGE_STATES, METRICS_SOURCES, OUTCOMES, VERDICTS } from './enums.ts';
import {
  identity,
  instant,
  optionalAmount,
  optionalCount,
  optionalText,
  pathSafeIdentity,
  repoName,
  tier,
} from './primitives.ts';

export const outcome = z.enum(OUTCOMES);
export const metricsSource = z.enum(METRICS_SOURCES);

export const contaminationEntry = z.object({
  step: z.number().int().nonnegative(),
  path: z.string().min(1).max(2000),
  reason: z.string().max(2000).optional(),
});

export const runnerRowSchema = z.object({
  // task
  taskId: pathSafeIdentity,
  repo: repoName.nullish().transform((v) => v ?? null),
  issueNumber: optionalCount,
  tier: tier.nullish().transform((v) => v ?? null),
  wave: optionalCount,
  // model
  model: identity,
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
  harnessVersion: pathSafeIdentity,
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
  contamination: z.array(contaminationEntry).max(10_000).default([]),
  metricsSource: metricsSource.nullish().transform((v) => v ?? null),
});
export type RunnerRow = z.output<typeof runnerRowSchema>;

export const verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof verdict>;

export const judgeState = z.enum(JUDGE_STATES);
export type JudgeState = z.infer<typeof judgeState>;

export const judgeError = z.object({ code: z.string(), message: z.string() });

export const hiddenTestResultSchema = z.object({
  status: z.enum(HIDDEN_TEST_STATUSES),
  passed: z.number().int().nonnegative().optional(),
  failed: z.number().int().nonnegative().optional(),
  total: z.number().int().nonnegative().optional(),
  ranAt: instant,
  details: z.string().max(2048).optional(),
});
export type HiddenTestResult = z.output<typeof hiddenTestResultSchema>;

export const judgeFieldsSchema = z.object({
  judgeVerdict: verdict.nullable(),
  judgeRootCauseFound: z.boolean().nullable(),
  judgeSameFilesAsReference: z.boolean().nullable(),
  judgeSameFilesComputed: z.boolean().nullable(),
  judgeTestAdded: z.boolean().nullable(),
  judgeWouldCompile: z.boolean().nullable(),
  judgeReason: z.string().nullable(),
  judgeModel: z.string().nullable(),
  judgedAt: z.string().nullable(),
  judgeAttempts: z.number().int().nonnegative(),
  judgeNextAttemptAt: z.string().nullable(),
  judgeState: judgeState,
  judgeLastError: judgeError.nullable(),
  /** USD over the judge calls of the current run: 0 before any call, null once any call's cost is unknown. */
  judgeCostUsd: z.number().nonnegative().nullable(),
});
export type JudgeFields = z.infer<typeof judgeFieldsSchema>;

export const pipelineFieldsSchema = z.object({
  id: z.string(),
  space: z.string(),
  landedAt: z.string(),
  updatedAt: z.string(),
  deliveries: z.array(z.string()),
  patchKey: z.string().nullable(),
  summaryKey: z.string().nullable(),
  patchTruncated: z.boolean(),
  patchSha256: z.string(),
  hiddenTestResult: hiddenTestResultSchema.nullable(),
  /** docs/contract.md §4 bounds: the row keeps the first contamination entries and the last delivery ids; the counts are whole. */
  contaminationCount: z.number().int().nonnegative(),
  /** The full contamination list, when the row could keep only part of it. */
  contaminationKey: z.string().nullable(),
  deliveryCount: z.number().int().nonnegative(),
  /** Distinct (finishedAt, patch) attempts of this run id: the current one and those archived. */
  attemptCount: z.number().int().positive(),
  /** The earliest archived attempt, when the current one is not the first (for retry accounting). */
  firstAttempt: z.object({ finishedAt: z.string(), judgeVerdict: verdict.nullable() }).nullable(),
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
  judgeWouldCompile: null,
  judgeReason: null,
  judgeModel: null,
  judgedAt: null,
  judgeAttempts: 0,
  judgeNextAttemptAt: null,
  judgeState: 'pending',
  judgeLastError: null,
  judgeCostUsd: 0,
});
