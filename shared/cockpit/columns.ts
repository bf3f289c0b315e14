// The cockpit's compact, columnar view of a space's runs (docs/contract.md §6: "its own compact endpoint"). One
// module states the wire format, the per-row projection both ends use, and the code tables, so the read
// API and the dashboard cannot drift apart. It imports no runtime library and runs in the browser as well as in
// Node. Only the fields the cockpit aggregates, filters or lists travel here; the detail panel reads the
// full row from the row API.
import { HIDDEN_TEST_STATUSES, JUDGE_STATES, METRICS_SOURCES, OUTCOMES, TIERS, VERDICTS } from '../schema/enums.ts';
import type { HiddenTestResult, JudgeState, RunRow, Verdict } from '../schema/run.ts';
import { snapshotRun, type SnapshotRun } from './run-snapshot.ts';

export const COLUMNS_FORMAT = 'replay-run-columns/3';

export type Tier = NonNullable<RunRow['tier']>;
export type Outcome = RunRow['outcome'];
export type MetricsSource = NonNullable<RunRow['metricsSource']>;
export type HiddenTestStatus = HiddenTestResult['status'];

export { HIDDEN_TEST_STATUSES, JUDGE_STATES, METRICS_SOURCES, OUTCOMES, TIERS, VERDICTS };

/** Enumerated fields travel as small codes: 0 is unknown (null), otherwise the index in the table plus one. */
export const CODE_TABLES = {
  tier: TIERS,
  outcome: OUTCOMES,
  verdict: VERDICTS,
  firstVerdict: VERDICTS,
  judgeState: JUDGE_STATES,
  hiddenTest: HIDDEN_TEST_STATUSES,
  metricsSource: METRICS_SOURCES,
} as const;
export type CodeField = keyof typeof CODE_TABLES;
export const CODE_FIELDS = Object.keys(CODE_TABLES) as CodeField[];

/** Repeated identity strings travel as indexes into a per-response dictionary. */
export const TEXT_FIELDS = ['model', 'taskId', 'harnessVersion', 'host', 'repo'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** Figures, null when unknown. `finishedAt` is in epoch seconds; `contamination` counts the entries (the full list's count). */
export const NUMBER_FIELDS = [
  'finishedAt',
  'wave',
  'wallSeconds',
  'steps',
  'maxSteps',
  'wallBudgetSeconds',
  'promptTokens',
  'completionTokens',
  'outputTokensPerMinute',
  'patchFilesChanged',
  'patchLinesAdded',
  'patchLinesRemoved',
  'contamination',
  'attemptCount',
  'judgeCostUsd',
] as const;
export type NumberField = (typeof NUMBER_FIELDS)[number];

/** One run as the cockpit sees it. */
export type CompactRun = {
  model: string;
  taskId: string;
  harnessVersion: string;
  host: string;
  repo: string | null;
  tier: Tier | null;
  outcome: Outcome;
  verdict: Verdict | null;
  /** The first attempt's verdict (the current one when there was no re-run). */
  firstVerdict: Verdict | null;
  judgeState: JudgeState;
  hiddenTest: HiddenTestStatus | null;
  metricsSource: MetricsSource | null;
} & Record<NumberField, number | null>;

export const compactRun = (row: RunRow): CompactRun => compactOf(snapshotRun(row));

/** The cockpit's fields of the read side's projection (run-snapshot.ts). */
export function compactOf(run: SnapshotRun): CompactRun {
  return {
    model: run.model,
    taskId: run.taskId,
    harnessVersion: run.harnessVersion,
    host: run.host,
    repo: run.repo,
    tier: run.tier,
    outcome: run.outcome,
    verdict: run.judgeVerdict,
    firstVerdict: run.firstVerdict,
    judgeState: run.judgeState,
    hiddenTest: run.hiddenTestStatus,
    metricsSource: run.metricsSource,
    finishedAt: Math.round(Date.parse(run.finishedAt) / 1000),
    wave: run.wave,
    wallSeconds: run.wallSeconds,
    steps: run.steps,
    maxSteps: run.maxSteps,
    wallBudgetSeconds: run.wallBudgetSeconds,
    promptTokens: run.promptTokens,
    completionTokens: run.completionTokens,
    outputTokensPerMinute: run.outputTokensPerMinute,
    patchFilesChanged: run.patchFilesChanged,
    patchLinesAdded: run.patchLinesAdded,
    patchLinesRemoved: run.patchLinesRemoved,
    contamination: run.contaminationCount,
    attemptCount: run.attemptCount,
    judgeCostUsd: run.judgeCostUsd,
  };
}

/**
 * Which part of a space's columns a body is. A big space's persisted snapshot is served in parts, each
 * within what one answer can carry (docs/contract.md §10): the first answer is part 0 and names the
 * snapshot, whose other parts are asked for by index and that name.
 */
export interface ColumnsPart {
  index: number;
  count: number;
  /** The persisted snapshot the parts belong to; null for a body the server encoded whole. */
  snapshot: string | null;
}

export const WHOLE_COLUMNS: ColumnsPart = { index: 0, count: 1, snapshot: null };

/** The body of `GET /api/spaces/{space}/columns`: the runs of the space (or of one part), one array per field. */
export interface RunColumns {
  format: typeof COLUMNS_FORMAT;
  part: ColumnsPart;
  /** Pass as `since` to the row API to get every change after this snapshot (ids repeat: dedupe). */
  asOf: string;
  count: number;
  strings: Record<TextField, string[]>;
  /** Index into `strings[field]`; -1 is unknown. */
  text: Record<TextField, number[]>;
  codes: Record<CodeField, number[]>;
  numbers: Record<NumberField, (number | null)[]>;
}

export const codeOf = <F extends CodeField>(field: F, value: (typeof CODE_TABLES)[F][number] | null): number =>
  value === null ? 0 : (CODE_TABLES[field] as readonly string[]).indexOf(value) + 1;

export const valueOfCode = <F extends CodeField>(field: F, code: number): (typeof CODE_TABLES)[F][number] | null =>
  code === 0 ? null : ((CODE_TABLES[field] as readonly string[])[code - 1] as (typeof CODE_TABLES)[F][number]);

export function encodeColumns(runs: Iterable<CompactRun>, asOf: string, part: ColumnsPart = WHOLE_COLUMNS): RunColumns {
  const dictionaries = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Map<string, number>()])) as Record<TextField, Map<string, number>>;
  const text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, [] as number[]])) as RunColumns['text'];
  const codes = Object.fromEntries(CODE_FIELDS.map((f) => [f, [] as number[]])) as RunColumns['codes'];
  const numbers = Object.fromEntries(NUMBER_FIELDS.map((f) => [f, [] as (number | null)[]])) as RunColumns['numbers'];
  let count = 0;
  for (const run of runs) {
    count++;
    for (const f of TEXT_FIELDS) {
      const value = run[f];
      if (value === null) {
        text[f].push(-1);
        continue;
      }
      const dictionary = dictionaries[f];
      let index = dictionary.get(value);
      if (index === undefined) dictionary.set(value, (index = dictionary.size));
      text[f].push(index);
    }
    for (const f of CODE_FIELDS) codes[f].push(codeOf(f, run[f] as never));
    for (const f of NUMBER_FIELDS) numbers[f].push(run[f]);
  }
  const strings = Object.fromEntries(TEXT_FIELDS.map((f) => [f, [...dictionaries[f].keys()]])) as RunColumns['strings'];
  return { format: COLUMNS_FORMAT, part, asOf, count, strings, text, codes, numbers };
}
