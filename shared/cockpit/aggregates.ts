// Every figure the cockpit shows, computed from a RunTable and a selection of its rows. The rules of
// docs/contract.md §2 and §6 live here and are unit-tested: a rate always carries its denominator and its
// 95 % Wilson interval, and agreement its Cohen's κ, both from the one statistics module; the resolve rate
// counts resolved / (resolved + partial + wrong + no_change) and keeps excluded, error, flagged and unjudged
// runs beside it; unknown figures are left out of medians (and the count of known values travels with them).
// Runs of different harness versions are never pooled: a group is one (model, harness version).
import {
  cohensKappa,
  outcomeReader,
  outcomeRate,
  proportion,
  RESOLVED,
  type Agreement,
  type AgreementTable,
  type OutcomeRate,
  type Proportion,
  type ResolveOutcome,
} from './statistics.ts';
import type { IssueRecord } from '../schema/issue.ts';
import { codeOf, HIDDEN_TEST_STATUSES as HIDDEN_TESTS, VERDICTS as VERDICT_NAMES, type Tier } from './columns.ts';
import type { FigureColumn, RunTable } from './run-table.ts';
import { gatherRoom, medianOfKnown, medianOfRows, quartilesOfKnown, type MedianFigure } from './quantiles.ts';

export { medianOf, medianOfRows, type MedianFigure } from './quantiles.ts';

export interface RunFilters {
  models: string[];
  tiers: Tier[];
  waves: number[];
  harnessVersions: string[];
}

export const NO_FILTERS: RunFilters = { models: [], tiers: [], waves: [], harnessVersions: [] };

/** What the issue records add to a run: the task's tier and wave when the row lacks them, its order, the original fix's time. */
export type IssueFacts = Pick<IssueRecord, 'taskId' | 'order' | 'tier' | 'wave' | 'prToMergeHours'>;

/** Issue facts laid out by the table's task dictionary index. */
export interface TaskFacts {
  tier: Uint8Array;
  wave: Float64Array;
  order: Float64Array;
  prToMergeHours: Float64Array;
}

export function taskFacts(table: RunTable, issues: readonly IssueFacts[]): TaskFacts {
  const tasks = table.dictionaries.taskId;
  const n = tasks.values.length;
  const facts: TaskFacts = {
    tier: new Uint8Array(n),
    wave: new Float64Array(n).fill(NaN),
    order: new Float64Array(n).fill(NaN),
    prToMergeHours: new Float64Array(n).fill(NaN),
  };
  for (const issue of issues) {
    const t = tasks.indexOf(issue.taskId);
    if (t < 0) continue;
    facts.tier[t] = codeOf('tier', issue.tier);
    facts.wave[t] = issue.wave ?? NaN;
    facts.order[t] = issue.order ?? NaN;
    facts.prToMergeHours[t] = issue.prToMergeHours ?? NaN;
  }
  return facts;
}

/** The row's own tier, else its task's. */
export function tierCode(table: RunTable, facts: TaskFacts | null, i: number): number {
  const own = table.codes.tier[i]!;
  return own || (facts?.tier[table.text.taskId[i]!] ?? 0);
}

export function waveOf(table: RunTable, facts: TaskFacts | null, i: number): number {
  const own = table.numbers.wave[i]!;
  return Number.isNaN(own) && facts ? (facts.wave[table.text.taskId[i]!] ?? NaN) : own;
}

/** Indexes of the rows that pass every filter; an empty filter list lets everything through. */
export function selectRuns(table: RunTable, filters: RunFilters, facts: TaskFacts | null = null): Uint32Array {
  const allow = (field: 'model' | 'harnessVersion', wanted: string[]) => {
    if (!wanted.length) return null;
    const ok = new Uint8Array(table.dictionaries[field].values.length);
    for (const w of wanted) {
      const i = table.dictionaries[field].indexOf(w);
      if (i >= 0) ok[i] = 1;
    }
    return ok;
  };
  const models = allow('model', filters.models);
  const harnesses = allow('harnessVersion', filters.harnessVersions);
  const tiers = filters.tiers.length ? new Set(filters.tiers.map((t) => codeOf('tier', t))) : null;
  const waves = filters.waves.length ? new Set(filters.waves) : null;
  const out = new Uint32Array(table.size);
  let n = 0;
  for (let i = 0; i < table.size; i++) {
    if (models && !models[table.text.model[i]!]) continue;
    if (harnesses && !harnesses[table.text.harnessVersion[i]!]) continue;
    if (tiers && !tiers.has(tierCode(table, facts, i))) continue;
    if (waves && !waves.has(waveOf(table, facts, i))) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}

// ---------------------------------------------------------------------------------------------------
// Figures

/** hits / n and its 95 % Wilson interval, both null when there is nothing to divide by. */
export type RateFigure = Proportion;

export type VerdictCounts = Record<(typeof VERDICT_NAMES)[number] | 'unjudged', number>;

export interface ResolveFigure extends RateFigure {
  /** Outside the denominator, counted beside it. */
  excluded: number;
  error: number;
  /** Runs whose "resolved" a flag rule withheld (judgeState "flagged"); not among `unjudged`. */
  flagged: number;
  unjudged: number;
}

export interface HiddenTestFigure extends RateFigure {
  /** Test runs that errored and runs without a hidden-test result: outside the denominator. */
  errored: number;
  missing: number;
}

export const rate = (hits: number, n: number): RateFigure => proportion(hits, n);

export const emptyVerdictCounts = (): VerdictCounts => ({
  resolved: 0,
  partial: 0,
  wrong: 0,
  no_change: 0,
  error: 0,
  excluded: 0,
  unjudged: 0,
});

const NO_TESTS = { pass: 0, fail: 0, error: 0, none: 0 };
const NO_VERDICTS = emptyVerdictCounts();

/** `flagged`: how many of the runs without a verdict (`c.unjudged`) are flagged ones. */
export function resolveRate(c: VerdictCounts, flagged = 0): ResolveFigure {
  const { outcome: _, outside: __, ...judged } = outcomeRate({ verdicts: c, hiddenTests: NO_TESTS }, 'judge');
  return {
    ...judged,
    excluded: c.excluded,
    error: c.error,
    flagged,
    unjudged: c.unjudged - flagged,
  };
}

export function hiddenTestRate(c: Record<HiddenColumn, number>): HiddenTestFigure {
  const { outcome: _, outside: __, ...tested } = outcomeRate({ verdicts: NO_VERDICTS, hiddenTests: c }, 'tests');
  return { ...tested, errored: c.error, missing: c.none };
}

// ---------------------------------------------------------------------------------------------------
// Groups: one (model, harness version) each

export interface Group {
  model: string;
  harnessVersion: string;
}

export interface Grouping {
  groups: Group[];
  /** Group index of each selected row, in selection order. */
  of: Int32Array;
}

export function groupRuns(table: RunTable, selection: Uint32Array): Grouping {
  const harnessCount = table.dictionaries.harnessVersion.values.length;
  // Group index by model × harness version dictionary indexes (-1: none yet): an array lookup per run.
  const byKey = new Int32Array(table.dictionaries.model.values.length * harnessCount).fill(-1);
  const groups: Group[] = [];
  const of = new Int32Array(selection.length);
  const { model, harnessVersion } = table.text;
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const key = model[i]! * harnessCount + harnessVersion[i]!;
    let g = byKey[key]!;
    if (g < 0) {
      g = byKey[key] = groups.length;
      groups.push({ model: table.string('model', i)!, harnessVersion: table.string('harnessVersion', i)! });
    }
    of[s] = g;
  }
  return { groups, of };
}

// ---------------------------------------------------------------------------------------------------
// Counts: one pass over runs, from which the cockpit's figures, its calibration table and `/stats`
// (shared/read/group-stats.ts) all derive, so none of them can count a run differently.

export type HiddenColumn = 'pass' | 'fail' | 'error' | 'none';

export interface RunCounts {
  runs: number;
  /** byVerdictAndTest[verdict or 'unjudged'][hidden-test status or 'none'] */
  byVerdictAndTest: Record<keyof VerdictCounts, Record<HiddenColumn, number>>;
  verdicts: VerdictCounts;
  /** Each run's first attempt's verdict (its current one when it was never re-run). */
  firstVerdicts: VerdictCounts;
  hiddenTests: Record<HiddenColumn, number>;
  /** Runs with a counted verdict and a pass/fail hidden test: judge resolved or not × tests pass or fail. */
  agreement: AgreementTable;
  /** Runs with more than one attempt. */
  reruns: number;
  /** Runs whose "resolved" was flagged (no verdict: they are among `verdicts.unjudged`). */
  flagged: number;
  /** Patches archived as conflicts, over the runs (docs/contract.md §4). */
  conflicts: number;
  /** Runs whose figures were generated (demo data). */
  generated: number;
  /** Runs that ended because a step or wall-time budget ran out. */
  budget: number;
}

const GENERATED = codeOf('metricsSource', 'generated');
const BUDGET = codeOf('outcome', 'budget');
const FLAGGED = codeOf('judgeState', 'flagged');
/** Verdict and hidden-test names by code (0 is unknown). */
const VERDICT_BY_CODE = ['unjudged', ...VERDICT_NAMES] as const;
const HIDDEN_BY_CODE = ['none', ...HIDDEN_TESTS] as const;

export function countRuns(table: RunTable, rows: Uint32Array): RunCounts {
  // Counted by code (verdict code × hidden-test code) and named afterwards: a pass over 100k runs without string keys.
  const tests = HIDDEN_BY_CODE.length;
  const byCode = new Uint32Array(VERDICT_BY_CODE.length * tests);
  const firstByCode = new Uint32Array(VERDICT_BY_CODE.length);
  const { verdict, firstVerdict, hiddenTest, metricsSource, outcome, judgeState } = table.codes;
  const attempts = table.numbers.attemptCount;
  const conflictCounts = table.numbers.conflicts;
  let reruns = 0;
  let flagged = 0;
  let conflicts = 0;
  let generated = 0;
  let budget = 0;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    byCode[verdict[i]! * tests + hiddenTest[i]!]!++;
    firstByCode[firstVerdict[i]!]!++;
    if (attempts[i]! > 1) reruns++;
    if (judgeState[i] === FLAGGED) flagged++;
    // Unknown (NaN, rows landed before conflicts were counted) is none.
    if (conflictCounts[i]! > 0) conflicts += conflictCounts[i]!;
    if (metricsSource[i] === GENERATED) generated++;
    if (outcome[i] === BUDGET) budget++;
  }
  const byVerdictAndTest = {} as RunCounts['byVerdictAndTest'];
  const verdicts = emptyVerdictCounts();
  const firstVerdicts = emptyVerdictCounts();
  const hiddenTests: Record<HiddenColumn, number> = { pass: 0, fail: 0, error: 0, none: 0 };
  VERDICT_BY_CODE.forEach((v, vc) => {
    const row = (byVerdictAndTest[v] = {} as Record<HiddenColumn, number>);
    HIDDEN_BY_CODE.forEach((t, tc) => {
      const n = byCode[vc * tests + tc]!;
      row[t] = n;
      verdicts[v] += n;
      hiddenTests[t] += n;
    });
    firstVerdicts[v] = firstByCode[vc]!;
  });
  const m = byVerdictAndTest;
  const others = (t: 'pass' | 'fail') => m.partial[t] + m.wrong[t] + m.no_change[t];
  const agreement = {
    resolvedPass: m.resolved.pass,
    resolvedFail: m.resolved.fail,
    otherPass: others('pass'),
    otherFail: others('fail'),
  };
  return {
    runs: rows.length,
    byVerdictAndTest,
    verdicts,
    firstVerdicts,
    hiddenTests,
    agreement,
    reruns,
    flagged,
    conflicts,
    generated,
    budget,
  };
}

export interface GroupFigures extends Group {
  runs: number;
  /** Runs whose figures were generated (demo data), not measured. */
  generated: number;
  verdicts: VerdictCounts;
  /** The judge's resolve rate, with the runs outside its n by kind. */
  resolve: ResolveFigure;
  /** The resolve rate on each outcome (docs/contract.md §6 "Outcome"). */
  outcomes: Record<ResolveOutcome, OutcomeRate>;
  /** The resolve rate of each run's first attempt (its current one when it was never re-run). */
  firstResolve: ResolveFigure;
  /** Runs with more than one attempt: delivered again after a first attempt had landed. */
  reruns: number;
  /** Patches archived as conflicts over the runs: never judged, never current. */
  conflicts: number;
  hiddenTests: HiddenTestFigure;
  /** Judge against hidden tests: the 2×2 table of runs with both, and Cohen's κ. */
  kappa: Agreement;
  wallSeconds: MedianFigure;
  steps: MedianFigure;
  outputTokensPerMinute: MedianFigure;
  completionTokens: MedianFigure;
  /** Runs that ended because a step or wall-time budget ran out, out of all runs. */
  budgetExhausted: RateFigure;
}

export interface Figures {
  groups: GroupFigures[];
  all: GroupFigures;
  harnessVersions: string[];
}

type MedianField = 'wallSeconds' | 'steps' | 'outputTokensPerMinute' | 'completionTokens';
const MEDIAN_FIELDS = [
  'wallSeconds',
  'steps',
  'outputTokensPerMinute',
  'completionTokens',
] as const satisfies readonly MedianField[];

function figuresOf(
  table: RunTable,
  group: Group,
  rows: Uint32Array,
  medianFor: (field: MedianField) => MedianFigure,
): GroupFigures {
  const counts = countRuns(table, rows);
  // Medians are the costly part and not every view shows them: each is computed when first read.
  const lazy = (field: MedianField) => {
    let figure: MedianFigure | undefined;
    return () => (figure ??= medianFor(field));
  };
  const [wallSeconds, steps, outputTokensPerMinute, completionTokens] = MEDIAN_FIELDS.map(lazy);
  return {
    ...group,
    runs: counts.runs,
    generated: counts.generated,
    verdicts: counts.verdicts,
    resolve: resolveRate(counts.verdicts, counts.flagged),
    outcomes: { tests: outcomeRate(counts, 'tests'), judge: outcomeRate(counts, 'judge') },
    firstResolve: resolveRate(counts.firstVerdicts),
    reruns: counts.reruns,
    conflicts: counts.conflicts,
    hiddenTests: hiddenTestRate(counts.hiddenTests),
    kappa: cohensKappa(counts.agreement),
    get wallSeconds() {
      return wallSeconds!();
    },
    get steps() {
      return steps!();
    },
    get outputTokensPerMinute() {
      return outputTokensPerMinute!();
    },
    get completionTokens() {
      return completionTokens!();
    },
    budgetExhausted: rate(counts.budget, counts.runs),
  };
}

/** Rows of each group, in selection order: side by side in one array, each group's a view of its stretch. */
export function rowsByGroup(grouping: Grouping, selection: Uint32Array): Uint32Array[] {
  const { of } = grouping;
  const end = new Uint32Array(grouping.groups.length);
  for (let s = 0; s < of.length; s++) if (of[s]! >= 0) end[of[s]!]!++;
  let from = 0;
  const start = end.map((n) => ((from += n), from - n));
  end.set(start);
  const all = new Uint32Array(from);
  for (let s = 0; s < of.length; s++) {
    const g = of[s]!;
    if (g >= 0) all[end[g]!++] = selection[s]!;
  }
  return Array.from(start, (at, g) => all.subarray(at, end[g]!));
}

/** Per-group figures, best resolve rate on `outcome` first (groups with no rate last), and the same figures over all. */
export function computeFigures(
  table: RunTable,
  selection: Uint32Array,
  grouping = groupRuns(table, selection),
  rows = rowsByGroup(grouping, selection),
  outcome: ResolveOutcome = 'judge',
): Figures {
  // A field's medians are computed for every group at once, when the first group's is read: one pass
  // reading the column in order, rather than one pass per group reading it scattered.
  const medians = new Map<MedianField, MedianFigure[]>();
  const groupMedian = (g: number) => (field: MedianField) => {
    let perGroup = medians.get(field);
    if (!perGroup) medians.set(field, (perGroup = mediansPerGroup(table.numbers[field], grouping.of, selection, rows)));
    return perGroup[g]!;
  };
  const groups = byRate(
    grouping.groups.map((g, k) => figuresOf(table, g, rows[k]!, groupMedian(k))),
    outcome,
  );
  const harnessVersions = [...new Set(grouping.groups.map((g) => g.harnessVersion))].sort();
  const all = figuresOf(table, { model: 'all', harnessVersion: harnessVersions.join(', ') }, selection, (field) =>
    medianOfRows(table.numbers[field], selection),
  );
  return { groups, all, harnessVersions };
}

/** The groups, best resolve rate on `outcome` first, groups with no rate last, ties by name. */
function byRate(groups: GroupFigures[], outcome: ResolveOutcome): GroupFigures[] {
  return [...groups].sort(
    (a, b) =>
      (b.outcomes[outcome].rate ?? -1) - (a.outcomes[outcome].rate ?? -1) ||
      a.model.localeCompare(b.model) ||
      a.harnessVersion.localeCompare(b.harnessVersion),
  );
}

/** medianOf each group's values of `source`: the known values are gathered side by side, each group in its own stretch of the buffer. */
function mediansPerGroup(
  source: FigureColumn,
  of: Int32Array,
  selection: Uint32Array,
  rows: Uint32Array[],
): MedianFigure[] {
  const known = gatherRoom(selection.length);
  const start = new Uint32Array(rows.length);
  const end = new Uint32Array(rows.length);
  for (let g = 1; g < rows.length; g++) start[g] = end[g] = start[g - 1]! + rows[g - 1]!.length;
  for (let s = 0; s < selection.length; s++) {
    const v = source[selection[s]!]!;
    const g = of[s]!;
    if (!Number.isNaN(v) && g >= 0) known[end[g]!++] = v;
  }
  return rows.map((r, g) => quartilesOfKnown(known.subarray(start[g]!, end[g]!), r.length));
}

// ---------------------------------------------------------------------------------------------------
// Judge against hidden tests

export interface Calibration {
  counts: RunCounts['byVerdictAndTest'];
  /**
   * Among runs with a judged resolve-rate verdict and a pass/fail hidden test: the judge said resolved
   * exactly when the tests passed.
   */
  agreement: RateFigure;
  /** The same runs as a 2×2 table (judge resolved or not × tests pass or fail) with Cohen's κ and its interval. */
  kappa: Agreement;
}

export function calibration(table: RunTable, selection: Uint32Array): Calibration {
  const { byVerdictAndTest, agreement: a } = countRuns(table, selection);
  return {
    counts: byVerdictAndTest,
    agreement: rate(a.resolvedPass + a.otherFail, a.resolvedPass + a.resolvedFail + a.otherPass + a.otherFail),
    kappa: cohensKappa(a),
  };
}

// ---------------------------------------------------------------------------------------------------
// Model time next to the original fix's PR-open-to-merge time

export interface OriginalFixComparison extends Group {
  /** Pairs: runs resolved on the outcome whose task has a known PR-open-to-merge time and whose wall time is known. */
  pairs: number;
  modelHours: number | null;
  originalHours: number | null;
}

export function originalFixComparison(
  table: RunTable,
  grouping: Grouping,
  rowsOfGroups: Uint32Array[],
  facts: TaskFacts,
  outcome: ResolveOutcome = 'judge',
): OriginalFixComparison[] {
  const { wallSeconds } = table.numbers;
  const { taskId } = table.text;
  const classOf = outcomeReader(table, outcome);
  return rowsOfGroups.map((rows, g) => {
    // A group's pairs side by side in the gathering buffer: model hours from the start, the original's from the middle.
    const pairs = gatherRoom(2 * rows.length);
    let n = 0;
    for (let r = 0; r < rows.length; r++) {
      const i = rows[r]!;
      if (classOf(i) !== RESOLVED) continue;
      const wall = wallSeconds[i]!;
      const pr = facts.prToMergeHours[taskId[i]!] ?? NaN;
      if (Number.isNaN(wall) || Number.isNaN(pr)) continue;
      pairs[n] = wall / 3600;
      pairs[rows.length + n++] = pr;
    }
    const modelHours = medianOfKnown(pairs.subarray(0, n));
    const originalHours = medianOfKnown(pairs.subarray(rows.length, rows.length + n));
    return { ...grouping.groups[g]!, pairs: n, modelHours, originalHours };
  });
}

// ---------------------------------------------------------------------------------------------------
// Scatter and matrix projections

export interface ScatterLayer {
  /** completionTokens and wallSeconds of the runs where both are known, as float32: positions to plot, half the fresh memory of a million points. */
  x: Float32Array;
  y: Float32Array;
  /** Runs left off because a value is unknown (or, on log axes, not positive). */
  leftOff: number;
}

/** Wall time against completion tokens, split into layers by `layerOf` (e.g. the verdict code). */
export function scatterLayers(
  table: RunTable,
  selection: Uint32Array,
  layerCount: number,
  layerOf: (i: number) => number,
  positiveOnly: boolean,
): ScatterLayer[] {
  // Each row's layer is asked twice (to size the layers, then to fill them) rather than kept: a cheap call costs less than a fresh array as long as the selection.
  const sizes = new Uint32Array(layerCount);
  for (let s = 0; s < selection.length; s++) sizes[layerOf(selection[s]!)]!++;
  const layers = Array.from(sizes, (n) => ({ x: new Float32Array(n), y: new Float32Array(n), leftOff: 0, n: 0 }));
  const { completionTokens, wallSeconds } = table.numbers;
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const layer = layers[layerOf(i)]!;
    const cx = completionTokens[i]!;
    const cy = wallSeconds[i]!;
    if (Number.isNaN(cx) || Number.isNaN(cy) || (positiveOnly && (cx <= 0 || cy <= 0))) {
      layer.leftOff++;
      continue;
    }
    layer.x[layer.n] = cx;
    layer.y[layer.n++] = cy;
  }
  return layers.map((l) => ({ x: l.x.subarray(0, l.n), y: l.y.subarray(0, l.n), leftOff: l.leftOff }));
}

/**
 * Task order for the model × issue matrix: tasks with an issue record in published order (wave, then
 * order), then tasks without one by id. Dictionary indexes of every task of the table; it changes only
 * with the data, so a filter change just leaves out the tasks not in view.
 */
export function taskOrder(table: RunTable, facts: TaskFacts | null): Int32Array {
  const names = table.dictionaries.taskId.values;
  const order = (t: number) => facts?.order[t] ?? NaN;
  const wave = (t: number) => {
    const w = facts?.wave[t] ?? NaN;
    return Number.isNaN(w) ? Infinity : w;
  };
  return Int32Array.from(names.keys()).sort((a, b) => {
    const hasA = !Number.isNaN(order(a));
    const hasB = !Number.isNaN(order(b));
    if (hasA !== hasB) return hasA ? -1 : 1;
    if (hasA) return wave(a) - wave(b) || order(a) - order(b);
    return names[a]!.localeCompare(names[b]!);
  });
}

/** The tasks of `order` that have a run in the selection. */
export function tasksInView(table: RunTable, selection: Uint32Array, order: Int32Array): Int32Array {
  const present = new Uint8Array(table.dictionaries.taskId.values.length);
  const taskOf = table.text.taskId;
  for (let s = 0; s < selection.length; s++) present[taskOf[selection[s]!]!] = 1;
  return order.filter((t) => present[t] === 1);
}
