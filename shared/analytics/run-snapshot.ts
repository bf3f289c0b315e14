// What the read side keeps of each run (docs/contract.md §6): the exportable fields of the row plus the few the
// cockpit's columns need, never the patch, summary, judge reason or contamination paths. The persisted
// snapshot, the cockpit's columns, `/stats`, `/compare` and the exports are all computed from this one
// projection, so they cannot disagree about a run.
// Its persisted form, which only the server reads and writes, is core/read/snapshot-format.ts.
import type { RunRow } from '#schema/run.ts';
import { sampleOf } from '#schema/run-id.ts';

export const SNAPSHOT_TEXT_FIELDS = [
  'id',
  'model',
  'modelFamily',
  'parameters',
  'activeParameters',
  'quantization',
  'runtime',
  'taskId',
  'repo',
  'tier',
  'harnessVersion',
  'host',
  'startedAt',
  'finishedAt',
  'outcome',
  'metricsSource',
  'judgeVerdict',
  'judgeModel',
  'judgedAt',
  'hiddenTestStatus',
  'judgeState',
  'judgeFlags',
  'firstVerdict',
  'landedAt',
] as const;

/** The run's wave and what it spent against its budget: figures the cockpit's columns carry as they are. */
export const EFFORT_FIELDS = [
  'wave',
  'wallSeconds',
  'steps',
  'maxSteps',
  'wallBudgetSeconds',
  'promptTokens',
  'completionTokens',
] as const;

export const SNAPSHOT_NUMBER_FIELDS = [
  'sample',
  'issueNumber',
  ...EFFORT_FIELDS,
  'maxPromptTokensPerCall',
  'costUsd',
  'outputTokensPerMinute',
  'bashCalls',
  'readCalls',
  'editCalls',
  'writeCalls',
  'patchFilesChanged',
  'patchLinesAdded',
  'patchLinesRemoved',
  'contaminationCount',
  'attemptCount',
  'conflictCount',
  'foreignCount',
  'judgeCostUsd',
  'hiddenTestsPassed',
  'hiddenTestsFailed',
  'hiddenTestsTotal',
] as const;

/** The judge's rubric answers and the computed same-files fact: true, false or null, persisted as 1, 0 or null. */
export const SNAPSHOT_FLAG_FIELDS = [
  'judgeRootCauseFound',
  'judgeSameFilesAsReference',
  'judgeSameFilesComputed',
  'judgeTestAdded',
  'judgeWouldCompile',
] as const;

type RowFields = Pick<
  RunRow,
  Exclude<
    | (typeof SNAPSHOT_TEXT_FIELDS)[number]
    | (typeof SNAPSHOT_NUMBER_FIELDS)[number]
    | (typeof SNAPSHOT_FLAG_FIELDS)[number],
    | 'hiddenTestStatus'
    | 'judgeFlags'
    | 'firstVerdict'
    | 'contaminationCount'
    | 'attemptCount'
    | 'conflictCount'
    | 'foreignCount'
    | 'judgeCostUsd'
    | 'hiddenTestsPassed'
    | 'hiddenTestsFailed'
    | 'hiddenTestsTotal'
  >
>;

export interface SnapshotRun extends RowFields {
  hiddenTestStatus: NonNullable<RunRow['hiddenTestResult']>['status'] | null;
  /** The ids of the rules that flagged the judge's answer, comma-separated; '' when none fired, null on rows judged before the rules existed. */
  judgeFlags: string | null;
  /** The verdict of the run's first attempt (the earliest finishedAt), for retry accounting (docs/contract.md §4). */
  firstVerdict: RunRow['judgeVerdict'];
  contaminationCount: number;
  /** Null on rows landed before attempts were counted. */
  attemptCount: number | null;
  /** Patches archived as conflicts (0 on rows landed before conflicts were counted). */
  conflictCount: number;
  /** Attempts other hosts sent for this run id, kept apart (0 on rows landed before they were counted). */
  foreignCount: number;
  /** Null when unknown: a price was missing, or the row predates cost recording. */
  judgeCostUsd: number | null;
  /** The hidden-test result's counts, null where it has none. */
  hiddenTestsPassed: number | null;
  hiddenTestsFailed: number | null;
  hiddenTestsTotal: number | null;
}

export function snapshotRun(row: RunRow): SnapshotRun {
  return {
    id: row.id,
    model: row.model,
    modelFamily: row.modelFamily,
    parameters: row.parameters,
    activeParameters: row.activeParameters,
    quantization: row.quantization,
    runtime: row.runtime,
    taskId: row.taskId,
    repo: row.repo,
    tier: row.tier,
    harnessVersion: row.harnessVersion,
    // Rows landed before samples existed have none: they are sample 1.
    sample: sampleOf(row),
    host: row.host,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    outcome: row.outcome,
    metricsSource: row.metricsSource,
    judgeVerdict: row.judgeVerdict,
    judgeModel: row.judgeModel,
    judgedAt: row.judgedAt,
    hiddenTestStatus: row.hiddenTestResult?.status ?? null,
    judgeState: row.judgeState,
    judgeFlags: row.judgeFlags?.join(',') ?? null,
    // Rows landed before attempts were archived have no firstAttempt: their current attempt is the only one known.
    firstVerdict: row.firstAttempt ? row.firstAttempt.judgeVerdict : row.judgeVerdict,
    landedAt: row.landedAt,
    issueNumber: row.issueNumber,
    wave: row.wave,
    wallSeconds: row.wallSeconds,
    steps: row.steps,
    maxSteps: row.maxSteps,
    wallBudgetSeconds: row.wallBudgetSeconds,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    maxPromptTokensPerCall: row.maxPromptTokensPerCall,
    // Rows landed before the runner could send a cost have none.
    costUsd: row.costUsd ?? null,
    outputTokensPerMinute: row.outputTokensPerMinute,
    bashCalls: row.bashCalls,
    readCalls: row.readCalls,
    editCalls: row.editCalls,
    writeCalls: row.writeCalls,
    patchFilesChanged: row.patchFilesChanged,
    patchLinesAdded: row.patchLinesAdded,
    patchLinesRemoved: row.patchLinesRemoved,
    contaminationCount: row.contaminationCount ?? row.contamination.length,
    attemptCount: row.attemptCount ?? null,
    conflictCount: row.conflictCount ?? 0,
    foreignCount: row.foreignCount ?? 0,
    judgeCostUsd: row.judgeCostUsd ?? null,
    hiddenTestsPassed: row.hiddenTestResult?.passed ?? null,
    hiddenTestsFailed: row.hiddenTestResult?.failed ?? null,
    hiddenTestsTotal: row.hiddenTestResult?.total ?? null,
    judgeRootCauseFound: row.judgeRootCauseFound,
    judgeSameFilesAsReference: row.judgeSameFilesAsReference,
    judgeSameFilesComputed: row.judgeSameFilesComputed,
    judgeTestAdded: row.judgeTestAdded,
    judgeWouldCompile: row.judgeWouldCompile,
  };
}
