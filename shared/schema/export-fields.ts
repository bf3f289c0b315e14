// The fields a run export may carry (docs/contract.md §6), in their default order. A plain constant, like enums.ts:
// the configuration schema checks `exports.fields` against it and the read API's exports project rows
// through it. Nothing outside this list ever leaves in an export (no patch, summary, reason or paths).
export const EXPORT_FIELDS = [
  'id',
  'model',
  'modelFamily',
  'parameters',
  'activeParameters',
  'quantization',
  'runtime',
  'taskId',
  'repo',
  'issueNumber',
  'tier',
  'wave',
  'harnessVersion',
  'host',
  'startedAt',
  'finishedAt',
  'wallSeconds',
  'steps',
  'outcome',
  'promptTokens',
  'completionTokens',
  'maxPromptTokensPerCall',
  'outputTokensPerMinute',
  'bashCalls',
  'readCalls',
  'editCalls',
  'writeCalls',
  'patchFilesChanged',
  'patchLinesAdded',
  'patchLinesRemoved',
  'contaminationCount',
  'metricsSource',
  'judgeVerdict',
  'judgeModel',
  'judgedAt',
  'hiddenTestStatus',
  'attemptCount',
  'judgeCostUsd',
  'runCostUsd',
] as const;

export type ExportField = (typeof EXPORT_FIELDS)[number];

export const isExportField = (name: string): name is ExportField => (EXPORT_FIELDS as readonly string[]).includes(name);
