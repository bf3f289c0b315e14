// Every figure the cockpit shows, computed from a RunTable and a selection of its rows. The rules of
// SPEC §2 and §6 live here and are unit-tested: a rate always carries its denominator; the resolve rate
// counts resolved / (resolved + partial + wrong + no_change) and keeps excluded, error and unjudged runs
// beside it; unknown figures are left out of medians (and the count of known values travels with them).
// Runs of different harness versions are never pooled: a group is one (model, harness version).
import type { IssueRecord } from '../schema/issue.ts';
import { codeOf, valueOfCode, type Tier, type VERDICTS } from './columns.ts';
import type { RunTable } from './run-table.ts';

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
  const facts: TaskFacts = { tier: new Uint8Array(n), wave: new Float64Array(n).fill(NaN), order: new Float64Array(n).fill(NaN), prToMergeHours: new Float64Array(n).fill(NaN) };
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

/** hits / n, with null when there is nothing to divide by. */
export interface RateFigure {
  rate: number | null;
  hits: number;
  n: number;
}

export type VerdictCounts = Record<(typeof VERDICTS)[number] | 'unjudged', number>;

export interface ResolveFigure extends RateFigure {
  /** Outside the denominator, counted beside it. */
  excluded: number;
  error: number;
  unjudged: number;
}

export interface HiddenTestFigure extends RateFigure {
  /** Test runs that errored and runs without a hidden-test result: outside the denominator. */
  errored: number;
  missing: number;
}

export interface MedianFigure {
  median: number | null;
  p25: number | null;
  p75: number | null;
  /** Values that were known, out of n runs. */
  known: number;
  n: number;
}

export const rate = (hits: number, n: number): RateFigure => ({ rate: n ? hits / n : null, hits, n });

export const emptyVerdictCounts = (): VerdictCounts => ({ resolved: 0, partial: 0, wrong: 0, no_change: 0, error: 0, excluded: 0, unjudged: 0 });

export function resolveRate(c: VerdictCounts): ResolveFigure {
  return { ...rate(c.resolved, c.resolved + c.partial + c.wrong + c.no_change), excluded: c.excluded, error: c.error, unjudged: c.unjudged };
}

/** Linear-interpolated quantile of sorted values. */
function quantile(sorted: Float64Array, q: number): number | null {
  if (!sorted.length) return null;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** Median and quartiles of the known values (NaN is unknown and skipped); `n` counts all values offered. */
export function medianOf(values: ArrayLike<number>): MedianFigure {
  const known = new Float64Array(values.length);
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isNaN(v)) known[k++] = v;
  }
  const sorted = known.subarray(0, k).sort();
  return { median: quantile(sorted, 0.5), p25: quantile(sorted, 0.25), p75: quantile(sorted, 0.75), known: k, n: values.length };
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
  const byKey = new Map<number, number>();
  const groups: Group[] = [];
  const of = new Int32Array(selection.length);
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const key = table.text.model[i]! * harnessCount + table.text.harnessVersion[i]!;
    let g = byKey.get(key);
    if (g === undefined) {
      g = groups.length;
      byKey.set(key, g);
      groups.push({ model: table.string('model', i)!, harnessVersion: table.string('harnessVersion', i)! });
    }
    of[s] = g;
  }
  return { groups, of };
}

export interface GroupFigures extends Group {
  runs: number;
  /** Runs whose figures were generated (demo data), not measured. */
  generated: number;
  verdicts: VerdictCounts;
  resolve: ResolveFigure;
  hiddenTests: HiddenTestFigure;
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

const GENERATED = codeOf('metricsSource', 'generated');
const BUDGET = codeOf('outcome', 'budget');
const PASS = codeOf('hiddenTest', 'pass');
const FAIL = codeOf('hiddenTest', 'fail');
const TEST_ERROR = codeOf('hiddenTest', 'error');

function figuresOf(table: RunTable, group: Group, rows: Uint32Array): GroupFigures {
  const verdicts = emptyVerdictCounts();
  let generated = 0;
  let budget = 0;
  let pass = 0;
  let fail = 0;
  let errored = 0;
  const column = (field: 'wallSeconds' | 'steps' | 'outputTokensPerMinute' | 'completionTokens') => {
    const source = table.numbers[field];
    const out = new Float64Array(rows.length);
    for (let r = 0; r < rows.length; r++) out[r] = source[rows[r]!]!;
    return medianOf(out);
  };
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    const verdict = valueOfCode('verdict', table.codes.verdict[i]!);
    verdicts[verdict ?? 'unjudged']++;
    if (table.codes.metricsSource[i] === GENERATED) generated++;
    if (table.codes.outcome[i] === BUDGET) budget++;
    const test = table.codes.hiddenTest[i];
    if (test === PASS) pass++;
    else if (test === FAIL) fail++;
    else if (test === TEST_ERROR) errored++;
  }
  return {
    ...group,
    runs: rows.length,
    generated,
    verdicts,
    resolve: resolveRate(verdicts),
    hiddenTests: { ...rate(pass, pass + fail), errored, missing: rows.length - pass - fail - errored },
    wallSeconds: column('wallSeconds'),
    steps: column('steps'),
    outputTokensPerMinute: column('outputTokensPerMinute'),
    completionTokens: column('completionTokens'),
    budgetExhausted: rate(budget, rows.length),
  };
}

/** Rows of each group, in selection order. */
export function rowsByGroup(grouping: Grouping, selection: Uint32Array): Uint32Array[] {
  const sizes = new Uint32Array(grouping.groups.length);
  for (const g of grouping.of) sizes[g]!++;
  const rows = Array.from(sizes, (n) => new Uint32Array(n));
  const fill = new Uint32Array(grouping.groups.length);
  for (let s = 0; s < selection.length; s++) {
    const g = grouping.of[s]!;
    rows[g]![fill[g]!++] = selection[s]!;
  }
  return rows;
}

/** Per-group figures, best resolve rate first (groups with no rate last), and the same figures over all. */
export function computeFigures(table: RunTable, selection: Uint32Array, grouping = groupRuns(table, selection)): Figures {
  const rows = rowsByGroup(grouping, selection);
  const groups = grouping.groups.map((g, k) => figuresOf(table, g, rows[k]!));
  groups.sort((a, b) => (b.resolve.rate ?? -1) - (a.resolve.rate ?? -1) || a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion));
  const harnessVersions = [...new Set(grouping.groups.map((g) => g.harnessVersion))].sort();
  return { groups, all: figuresOf(table, { model: 'all', harnessVersion: harnessVersions.join(', ') }, selection), harnessVersions };
}

// ---------------------------------------------------------------------------------------------------
// Judge against hidden tests

export type HiddenColumn = 'pass' | 'fail' | 'error' | 'none';

export interface Calibration {
  /** counts[verdict or 'unjudged'][hidden-test status or 'none'] */
  counts: Record<keyof VerdictCounts, Record<HiddenColumn, number>>;
  /**
   * Among runs with a judged resolve-rate verdict and a pass/fail hidden test: the judge said resolved
   * exactly when the tests passed.
   */
  agreement: RateFigure;
}

export function calibration(table: RunTable, selection: Uint32Array): Calibration {
  const row = (): Record<HiddenColumn, number> => ({ pass: 0, fail: 0, error: 0, none: 0 });
  const counts = Object.fromEntries(Object.keys(emptyVerdictCounts()).map((k) => [k, row()])) as Calibration['counts'];
  let agree = 0;
  let n = 0;
  for (const i of selection) {
    const verdict = valueOfCode('verdict', table.codes.verdict[i]!) ?? 'unjudged';
    const test = valueOfCode('hiddenTest', table.codes.hiddenTest[i]!) ?? 'none';
    counts[verdict][test]++;
    if ((verdict === 'resolved' || verdict === 'partial' || verdict === 'wrong' || verdict === 'no_change') && (test === 'pass' || test === 'fail')) {
      n++;
      if ((verdict === 'resolved') === (test === 'pass')) agree++;
    }
  }
  return { counts, agreement: rate(agree, n) };
}

// ---------------------------------------------------------------------------------------------------
// Model time next to the original fix's PR-open-to-merge time

export interface OriginalFixComparison extends Group {
  /** Pairs: resolved runs whose task has a known PR-open-to-merge time and whose wall time is known. */
  pairs: number;
  modelHours: number | null;
  originalHours: number | null;
}

export function originalFixComparison(table: RunTable, grouping: Grouping, selection: Uint32Array, facts: TaskFacts): OriginalFixComparison[] {
  const resolved = codeOf('verdict', 'resolved');
  return rowsByGroup(grouping, selection).map((rows, g) => {
    const model: number[] = [];
    const original: number[] = [];
    for (const i of rows) {
      if (table.codes.verdict[i] !== resolved) continue;
      const wall = table.numbers.wallSeconds[i]!;
      const pr = facts.prToMergeHours[table.text.taskId[i]!] ?? NaN;
      if (Number.isNaN(wall) || Number.isNaN(pr)) continue;
      model.push(wall / 3600);
      original.push(pr);
    }
    return { ...grouping.groups[g]!, pairs: model.length, modelHours: medianOf(model).median, originalHours: medianOf(original).median };
  });
}

// ---------------------------------------------------------------------------------------------------
// Scatter and matrix projections

export interface ScatterLayer {
  /** completionTokens and wallSeconds of the runs where both are known. */
  x: Float64Array;
  y: Float64Array;
  /** Runs left off because a value is unknown (or, on log axes, not positive). */
  leftOff: number;
}

/** Wall time against completion tokens, split into layers by `layerOf` (e.g. the verdict code). */
export function scatterLayers(table: RunTable, selection: Uint32Array, layerCount: number, layerOf: (i: number) => number, positiveOnly: boolean): ScatterLayer[] {
  const sizes = new Uint32Array(layerCount);
  for (const i of selection) sizes[layerOf(i)]!++;
  const layers = Array.from(sizes, (n) => ({ x: new Float64Array(n), y: new Float64Array(n), leftOff: 0, n: 0 }));
  for (const i of selection) {
    const layer = layers[layerOf(i)]!;
    const cx = table.numbers.completionTokens[i]!;
    const cy = table.numbers.wallSeconds[i]!;
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
 * Task columns for the model × issue matrix: tasks with an issue record in published order (wave, then
 * order), then tasks without one by id. Returns dictionary indexes of the tasks present in the selection.
 */
export function taskOrder(table: RunTable, selection: Uint32Array, facts: TaskFacts | null): number[] {
  const present = new Uint8Array(table.dictionaries.taskId.values.length);
  for (const i of selection) present[table.text.taskId[i]!] = 1;
  const tasks: number[] = [];
  present.forEach((p, t) => p && tasks.push(t));
  const names = table.dictionaries.taskId.values;
  const key = (t: number) => [facts?.wave[t] ?? NaN, facts?.order[t] ?? NaN] as const;
  return tasks.sort((a, b) => {
    const [wa, oa] = key(a);
    const [wb, ob] = key(b);
    const hasA = !Number.isNaN(oa);
    const hasB = !Number.isNaN(ob);
    if (hasA !== hasB) return hasA ? -1 : 1;
    if (hasA) return (Number.isNaN(wa) ? Infinity : wa) - (Number.isNaN(wb) ? Infinity : wb) || oa - ob;
    return names[a]!.localeCompare(names[b]!);
  });
}
