// The figures of each group and of all selected runs together: resolve rates with their denominators and
// intervals, κ against the hidden tests, and medians of the known values (the count of known values travels
// with each median).
import { cohensKappa, outcomeRate, type Agreement, type OutcomeRate, type ResolveOutcome } from './statistics.ts';
import type { FigureColumn, RunTable } from './run-table.ts';
import { gatherRoom, medianOfRows, quartilesOfKnown, type MedianFigure } from './quantiles.ts';
import { hiddenTestRate, rate, resolveRate } from './rate-figures.ts';
import type { HiddenTestFigure, RateFigure, ResolveFigure, VerdictCounts } from './rate-figures.ts';
import { groupRuns, rowsByGroup, type Group } from './run-grouping.ts';
import { countRuns } from './run-counts.ts';
import { BUDGET_RULE, OUTCOME_RULES, RESOLVE_OUTCOMES } from './outcome.ts';
import { clusteredRate } from './reliability.ts';
import { sampleCountsOfGrouping, samplesOfGroup } from './task-samples.ts';

export interface GroupFigures extends Group {
  runs: number;
  /** Runs whose figures were generated (demo data), not measured. */
  generated: number;
  verdicts: VerdictCounts;
  /** The judge's resolve rate, with the runs outside its n by kind. */
  resolve: ResolveFigure;
  /** The resolve rate on each outcome (docs/contract.md §6 "Outcome"); where samples repeat, its interval is clustered by task. */
  outcomes: Record<ResolveOutcome, OutcomeRate>;
  /** The resolve rate of each run's first attempt (its current one when it was never re-run). */
  firstResolve: ResolveFigure;
  /** Runs with more than one attempt: delivered again after a first attempt had landed. */
  reruns: number;
  /** Patches archived as conflicts over the runs: never judged, never current. */
  conflicts: number;
  /** Attempts other hosts sent for the runs' ids, kept apart: never judged, never current. */
  foreign: number;
  hiddenTests: HiddenTestFigure;
  /** Judge against hidden tests: the 2×2 table of runs with both, and Cohen's κ. */
  kappa: Agreement;
  wallSeconds: MedianFigure;
  steps: MedianFigure;
  outputTokensPerMinute: MedianFigure;
  completionTokens: MedianFigure;
  /** Runs that ended because a step or wall-time budget ran out, out of those where that is known (run-counts.ts). */
  budgetExhausted: RateFigure;
}

export interface Figures {
  groups: GroupFigures[];
  all: GroupFigures;
  harnessVersions: string[];
  /** Some run in the selection is a task's second sample or later: the rates' intervals are clustered by task. */
  samplesRepeat: boolean;
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
    resolve: resolveRate(counts.verdicts),
    outcomes: { tests: outcomeRate(counts, 'tests'), judge: outcomeRate(counts, 'judge') },
    firstResolve: resolveRate(counts.firstVerdicts),
    reruns: counts.reruns,
    conflicts: counts.conflicts,
    foreign: counts.foreign,
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
    budgetExhausted: rate(counts.budget, counts.budgetKnown),
  };
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
  const unordered = grouping.groups.map((g, k) => figuresOf(table, g, rows[k]!, groupMedian(k)));
  const repeated = samplesRepeat(table, selection);
  if (repeated) {
    // Samples of one task are not independent draws: the interval is clustered by task, as `/stats`' is.
    for (const o of RESOLVE_OUTCOMES) {
      const counts = sampleCountsOfGrouping(table, selection, grouping, OUTCOME_RULES[o]);
      unordered.forEach((figures, g) => (figures.outcomes[o].ci = clusteredRate(samplesOfGroup(counts, g)).ci));
    }
    // So are a group's runs whose budget ran out, where its budget is known.
    const budget = sampleCountsOfGrouping(table, selection, grouping, BUDGET_RULE);
    unordered.forEach((figures, g) => {
      if (figures.budgetExhausted.n > 0) figures.budgetExhausted.ci = clusteredRate(samplesOfGroup(budget, g)).ci;
    });
  }
  const groups = byRate(unordered, outcome);
  const harnessVersions = [...new Set(grouping.groups.map((g) => g.harnessVersion))].sort();
  const all = figuresOf(table, { model: 'all', harnessVersion: harnessVersions.join(', ') }, selection, (field) =>
    medianOfRows(table.numbers[field], selection),
  );
  return { groups, all, harnessVersions, samplesRepeat: repeated };
}

/** Whether some run in the selection is a task's second sample or later. */
function samplesRepeat(table: RunTable, selection: Uint32Array): boolean {
  for (let s = 0; s < selection.length; s++) if (table.sampleAt(selection[s]!) > 1) return true;
  return false;
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
