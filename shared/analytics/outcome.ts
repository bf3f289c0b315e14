// Which check says a run resolved its task (docs/contract.md §6 "Outcome"): the hidden tests, the objective check,
// or the judge. Every figure that says "resolved" is counted on one of them, named beside it. A run is
// resolved, not resolved, or outside n on an outcome; the rule is a table by code, so a pass over 100k runs
// reads one byte per run.
import { codeOf, OUTCOMES, type CodeField } from './columns.ts';
import type { RunTable } from './run-table.ts';

export const RESOLVE_OUTCOMES = ['tests', 'judge'] as const;
export type ResolveOutcome = (typeof RESOLVE_OUTCOMES)[number];

/** How a figure names its outcome: "resolve rate · hidden tests". */
export const OUTCOME_LABELS: Record<ResolveOutcome, string> = { tests: 'hidden tests', judge: 'judge' };

/** The runs an outcome leaves outside n, as the page names them. */
export const OUTSIDE_LABELS: Record<ResolveOutcome, string> = {
  tests: 'no test result',
  judge: 'excluded, error or not judged',
};

export const isResolveOutcome = (value: string): value is ResolveOutcome =>
  (RESOLVE_OUTCOMES as readonly string[]).includes(value);

/** A run on an outcome: resolved, counted but not resolved, or outside n. */
export const RESOLVED = 1;
export const NOT_RESOLVED = 0;
export const OUTSIDE = -1;

/** The column an outcome reads, and its class (RESOLVED, NOT_RESOLVED, OUTSIDE) by code. */
export interface OutcomeRule {
  field: Extract<CodeField, 'verdict' | 'hiddenTest' | 'outcome'>;
  classOf: Int8Array;
}

function ruleOf(field: OutcomeRule['field'], resolved: number[], counted: number[]): OutcomeRule {
  const classOf = new Int8Array(8).fill(OUTSIDE);
  for (const code of counted) classOf[code] = NOT_RESOLVED;
  for (const code of resolved) classOf[code] = RESOLVED;
  return { field, classOf };
}

/**
 * A run's budget running out, counted as the per-model table counts it (run-counts.ts): every run is in n, and a
 * run "resolves" when it ended because a step or wall-time budget ran out. Its samples of a task are counted so.
 */
export const BUDGET_RULE: OutcomeRule = ruleOf(
  'outcome',
  [codeOf('outcome', 'budget')],
  Array.from({ length: OUTCOMES.length + 1 }, (_, code) => code),
);

/**
 * tests: resolved when the hidden tests pass; n counts pass and fail (an errored test run and a run without
 * a result are outside n, "no test result"). judge: resolved when the verdict is resolved; n counts resolved,
 * partial, wrong and no_change (excluded, error and not yet judged are outside n).
 */
export const OUTCOME_RULES: Record<ResolveOutcome, OutcomeRule> = {
  tests: ruleOf('hiddenTest', [codeOf('hiddenTest', 'pass')], [codeOf('hiddenTest', 'fail')]),
  judge: ruleOf(
    'verdict',
    [codeOf('verdict', 'resolved')],
    (['partial', 'wrong', 'no_change'] as const).map((v) => codeOf('verdict', v)),
  ),
};

/** Each row's class on the outcome (RESOLVED, NOT_RESOLVED or OUTSIDE), the rule and column read once. */
export function outcomeReader(table: RunTable, outcome: ResolveOutcome): (i: number) => number {
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  return (i) => classOf[codes[i]!]!;
}

/**
 * The outcome a view gets when none is chosen: tests when any of its runs has a hidden-test result of pass
 * or fail, else judge. The read API applies the same rule to the runs its filters select.
 */
export const defaultOutcome = (table: RunTable, rows: ArrayLike<number>): ResolveOutcome =>
  anyCounted(table, rows, 'tests') ? 'tests' : 'judge';

/** Whether any of the rows has a result on the outcome (a pass/fail test, a counted verdict). */
export function anyCounted(table: RunTable, rows: ArrayLike<number>, outcome: ResolveOutcome): boolean {
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  for (let r = 0; r < rows.length; r++) if (classOf[codes[rows[r]!]!] !== OUTSIDE) return true;
  return false;
}
