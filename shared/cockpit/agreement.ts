// Where the judge and the hidden tests disagree (docs/contract.md §6 "Agreement"): a run with a counted verdict and
// a pass or fail test agrees when the judge said resolved exactly when the tests passed, and disagrees
// otherwise; any other run has no agreement to speak of. κ is shown only from MIN_KAPPA_N such runs up: below
// that its interval spans most of [−1, 1] and the page says why it shows none. Browser-safe.
import type { ResolveOutcome } from './outcome.ts';
import { OUTCOME_RULES, OUTSIDE } from './outcome.ts';
import type { RunTable } from './run-table.ts';

export const AGREEMENTS = ['disagree', 'agree'] as const;
export type AgreementFilter = (typeof AGREEMENTS)[number];

export const isAgreementFilter = (value: string): value is AgreementFilter =>
  (AGREEMENTS as readonly string[]).includes(value);

/** Below this many runs with both results, κ is not shown. */
export const MIN_KAPPA_N = 10;

const classes = (outcome: ResolveOutcome) => OUTCOME_RULES[outcome];

/** 'agree', 'disagree', or null when the run lacks a counted verdict or a pass/fail test. */
export function agreementOf(table: RunTable, i: number): AgreementFilter | null {
  const judge = classes('judge');
  const tests = classes('tests');
  const j = judge.classOf[table.codes[judge.field][i]!]!;
  const t = tests.classOf[table.codes[tests.field][i]!]!;
  if (j === OUTSIDE || t === OUTSIDE) return null;
  return j === t ? 'agree' : 'disagree';
}

/** The rows of `rows` that agree, or disagree, as asked. */
export function selectByAgreement(table: RunTable, rows: Uint32Array, which: AgreementFilter): Uint32Array {
  return rows.filter((i) => agreementOf(table, i) === which);
}

/** Why κ is not shown, or null when it is: fewer than MIN_KAPPA_N runs, or chance agreement of 1. */
export function kappaWithheld(agreement: { n: number; kappa: number | null }): string | null {
  if (agreement.n < MIN_KAPPA_N)
    return `n = ${agreement.n}: too few runs with both a verdict and a test result (κ needs ${MIN_KAPPA_N})`;
  if (agreement.kappa === null) return 'the judge or the tests said the same thing every time';
  return null;
}
