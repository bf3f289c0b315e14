// The fields a run export may carry (docs/contract.md §6), in their order, each with its Parquet column type.
// A plain constant, like enums.ts: the configuration schema checks `exports.fields` against it and the read
// API's exports project rows through it. Nothing outside this list ever leaves in an export (no patch,
// summary or contamination paths); the judge's reason is allowed but leaves only where a space lists it.
export type ExportType = 'STRING' | 'TIMESTAMP' | 'INT64' | 'DOUBLE' | 'BOOLEAN';

const FIELD_TYPES = {
  id: 'STRING',
  model: 'STRING',
  modelFamily: 'STRING',
  parameters: 'STRING',
  activeParameters: 'STRING',
  quantization: 'STRING',
  runtime: 'STRING',
  taskId: 'STRING',
  repo: 'STRING',
  issueNumber: 'INT64',
  tier: 'STRING',
  wave: 'INT64',
  harnessVersion: 'STRING',
  sample: 'INT64',
  host: 'STRING',
  startedAt: 'TIMESTAMP',
  finishedAt: 'TIMESTAMP',
  wallSeconds: 'DOUBLE',
  steps: 'INT64',
  outcome: 'STRING',
  promptTokens: 'INT64',
  completionTokens: 'INT64',
  maxPromptTokensPerCall: 'INT64',
  outputTokensPerMinute: 'DOUBLE',
  bashCalls: 'INT64',
  readCalls: 'INT64',
  editCalls: 'INT64',
  writeCalls: 'INT64',
  patchFilesChanged: 'INT64',
  patchLinesAdded: 'INT64',
  patchLinesRemoved: 'INT64',
  contaminationCount: 'INT64',
  metricsSource: 'STRING',
  judgeVerdict: 'STRING',
  judgeState: 'STRING',
  judgeFlags: 'STRING',
  verdictSource: 'STRING',
  judgeRootCauseFound: 'BOOLEAN',
  judgeSameFilesAsReference: 'BOOLEAN',
  judgeSameFilesComputed: 'BOOLEAN',
  judgeTestAdded: 'BOOLEAN',
  judgeWouldCompile: 'BOOLEAN',
  judgeReason: 'STRING',
  judgeModel: 'STRING',
  judgedAt: 'TIMESTAMP',
  hiddenTestStatus: 'STRING',
  hiddenTestsPassed: 'INT64',
  hiddenTestsFailed: 'INT64',
  hiddenTestsTotal: 'INT64',
  attemptCount: 'INT64',
  judgeCostUsd: 'DOUBLE',
  runCostUsd: 'DOUBLE',
} as const satisfies Record<string, ExportType>;

export type ExportField = keyof typeof FIELD_TYPES;

export const EXPORT_FIELDS = Object.keys(FIELD_TYPES) as ExportField[];

/** What an export carries when a space names no `exports.fields`: every field but the judge's reason. */
export const DEFAULT_EXPORT_FIELDS = EXPORT_FIELDS.filter((f) => f !== 'judgeReason');

export const exportTypeOf = (field: ExportField): ExportType => FIELD_TYPES[field];

export const isExportField = (name: string): name is ExportField => Object.hasOwn(FIELD_TYPES, name);
