// What the read side keeps of each run (docs/contract.md §6): the exportable fields of the row plus the few the
// cockpit's columns need, never the patch, summary, judge reason or contamination paths. The persisted
// snapshot, the cockpit's columns, `/stats`, `/compare` and the exports are all computed from this one
// projection, so they cannot disagree about a run.
//
// Persisted form: one array per field, strings as indexes into a per-field dictionary (most fields repeat
// a handful of values across 100k runs), gzip around it. Decoding checks every column, so a truncated or
// foreign document is refused (and the caller rebuilds from the table) rather than read as wrong runs.
import type { RunRow } from '#schema/run.ts';
import { sampleOf } from '#schema/run-id.ts';

export const SNAPSHOT_FORMAT = 'replay-run-snapshot/5';

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

export const SNAPSHOT_NUMBER_FIELDS = [
  'sample',
  'issueNumber',
  'wave',
  'wallSeconds',
  'steps',
  'maxSteps',
  'wallBudgetSeconds',
  'promptTokens',
  'completionTokens',
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

/** The persisted body: every run of a space as of `asOf`, one array per field. */
export interface SnapshotDocument {
  format: typeof SNAPSHOT_FORMAT;
  space: string;
  /** Every row updated before this instant is in the document; the table's `since` query covers the rest. */
  asOf: string;
  count: number;
  text: Record<(typeof SNAPSHOT_TEXT_FIELDS)[number], { strings: string[]; index: number[] }>;
  numbers: Record<(typeof SNAPSHOT_NUMBER_FIELDS)[number], (number | null)[]>;
  flags: Record<(typeof SNAPSHOT_FLAG_FIELDS)[number], (0 | 1 | null)[]>;
}

export function encodeSnapshot(space: string, asOf: string, runs: Iterable<SnapshotRun>): SnapshotDocument {
  const dictionaries = SNAPSHOT_TEXT_FIELDS.map(() => new Map<string, number>());
  const indexes = SNAPSHOT_TEXT_FIELDS.map(() => [] as number[]);
  const numbers = SNAPSHOT_NUMBER_FIELDS.map(() => [] as (number | null)[]);
  const flags = SNAPSHOT_FLAG_FIELDS.map(() => [] as (0 | 1 | null)[]);
  let count = 0;
  for (const run of runs) {
    count++;
    SNAPSHOT_TEXT_FIELDS.forEach((field, f) => {
      const value = run[field];
      if (value === null) return indexes[f]!.push(-1);
      const dictionary = dictionaries[f]!;
      let index = dictionary.get(value);
      if (index === undefined) dictionary.set(value, (index = dictionary.size));
      indexes[f]!.push(index);
    });
    SNAPSHOT_NUMBER_FIELDS.forEach((field, f) => numbers[f]!.push(run[field]));
    SNAPSHOT_FLAG_FIELDS.forEach((field, f) => flags[f]!.push(run[field] === null ? null : run[field] ? 1 : 0));
  }
  return {
    format: SNAPSHOT_FORMAT,
    space,
    asOf,
    count,
    text: Object.fromEntries(
      SNAPSHOT_TEXT_FIELDS.map((field, f) => [field, { strings: [...dictionaries[f]!.keys()], index: indexes[f]! }]),
    ) as SnapshotDocument['text'],
    numbers: Object.fromEntries(
      SNAPSHOT_NUMBER_FIELDS.map((field, f) => [field, numbers[f]!]),
    ) as SnapshotDocument['numbers'],
    flags: Object.fromEntries(SNAPSHOT_FLAG_FIELDS.map((field, f) => [field, flags[f]!])) as SnapshotDocument['flags'],
  };
}

export class CorruptSnapshotError extends Error {}

/** The runs of a document, keyed by id. Throws CorruptSnapshotError for anything but a well-formed document of `space`. */
export function decodeSnapshot(document: unknown, space: string): { asOf: string; runs: Map<string, SnapshotRun> } {
  const doc = document as Partial<SnapshotDocument> | null;
  const fail = (why: string): never => {
    throw new CorruptSnapshotError(`The persisted snapshot of space "${space}" is not usable: ${why}.`);
  };
  if (!doc || typeof doc !== 'object' || doc.format !== SNAPSHOT_FORMAT) fail(`its format is not ${SNAPSHOT_FORMAT}`);
  if (doc!.space !== space) fail('it belongs to another space');
  if (typeof doc!.asOf !== 'string' || Number.isNaN(Date.parse(doc!.asOf))) fail('it has no asOf instant');
  const count = doc!.count;
  if (!Number.isInteger(count) || count! < 0) fail('it has no run count');
  const text = SNAPSHOT_TEXT_FIELDS.map((field) => {
    const column = doc!.text?.[field];
    if (!column || !Array.isArray(column.strings) || !Array.isArray(column.index) || column.index.length !== count)
      fail(`column ${field} is missing or of the wrong length`);
    const { strings, index } = column!;
    for (const i of index)
      if (!(i === -1 || (Number.isInteger(i) && i >= 0 && i < strings.length)))
        fail(`column ${field} points outside its dictionary`);
    return column!;
  });
  const numbers = SNAPSHOT_NUMBER_FIELDS.map((field) => {
    const column = doc!.numbers?.[field];
    if (!Array.isArray(column) || column.length !== count) fail(`column ${field} is missing or of the wrong length`);
    for (const v of column!) if (v !== null && typeof v !== 'number') fail(`column ${field} holds a non-number`);
    return column!;
  });
  const flags = SNAPSHOT_FLAG_FIELDS.map((field) => {
    const column = doc!.flags?.[field];
    if (!Array.isArray(column) || column.length !== count) fail(`column ${field} is missing or of the wrong length`);
    for (const v of column!)
      if (v !== null && v !== 0 && v !== 1) fail(`column ${field} holds something but 1, 0 or null`);
    return column!;
  });
  const runs = new Map<string, SnapshotRun>();
  for (let i = 0; i < count!; i++) {
    const run = {} as Record<string, string | number | boolean | null>;
    SNAPSHOT_TEXT_FIELDS.forEach((field, f) => {
      const k = text[f]!.index[i]!;
      run[field] = k < 0 ? null : text[f]!.strings[k]!;
    });
    SNAPSHOT_NUMBER_FIELDS.forEach((field, f) => (run[field] = numbers[f]![i]!));
    SNAPSHOT_FLAG_FIELDS.forEach((field, f) => (run[field] = flags[f]![i] === null ? null : flags[f]![i] === 1));
    if (
      typeof run.id !== 'string' ||
      typeof run.model !== 'string' ||
      typeof run.taskId !== 'string' ||
      typeof run.harnessVersion !== 'string'
    )
      fail(`run ${i} has no identity`);
    runs.set(run.id as string, run as unknown as SnapshotRun);
  }
  return { asOf: doc!.asOf!, runs };
}
