// Where the judge and the hidden tests disagree (docs/contract.md §6 "Agreement"): a run with a counted verdict and
// a pass or fail test agrees when the judge said resolved exactly when the tests passed, and disagrees
// otherwise; any other run has no agreement to speak of. κ is shown only from MIN_KAPPA_N such runs up: below
// that its interval spans most of [−1, 1] and the page says why it shows none. Browser-safe.
import type { Verdict } from '#schema/run.ts';
import { codeOf } from './columns.ts';
import { OUTCOME_RULES, OUTSIDE, RESOLVED } from './outcome.ts';
import type { RunTable } from './run-table.ts';

export const AGREEMENTS = ['disagree', 'agree'] as const;
export type AgreementFilter = (typeof AGREEMENTS)[number];

export const isAgreementFilter = (value: string): value is AgreementFilter =>
  (AGREEMENTS as readonly string[]).includes(value);

/** Below this many runs with both results, κ is not shown. */
export const MIN_KAPPA_N = 10;

/**
 * Each row's agreement: 'agree', 'disagree', or null when the run lacks a counted verdict or a pass/fail
 * test; the rules and columns read once.
 */
export function agreementReader(table: RunTable): (i: number) => AgreementFilter | null {
  const judge = OUTCOME_RULES.judge;
  const tests = OUTCOME_RULES.tests;
  const verdicts = table.codes[judge.field];
  const results = table.codes[tests.field];
  return (i) => {
    const j = judge.classOf[verdicts[i]!]!;
    const t = tests.classOf[results[i]!]!;
    if (j === OUTSIDE || t === OUTSIDE) return null;
    return j === t ? 'agree' : 'disagree';
  };
}

/** A stored run's agreement, by the same rule: a counted verdict, not flagged, beside a pass or fail test. */
export function agreementOfRun(run: {
  judgeVerdict: Verdict | null;
  judgeState: string | null;
  hiddenTestResult: { status: string } | null;
}): AgreementFilter | null {
  const verdict = run.judgeState === 'flagged' ? null : run.judgeVerdict;
  const j = OUTCOME_RULES.judge.classOf[codeOf('verdict', verdict)]!;
  const status = run.hiddenTestResult?.status;
  if (j === OUTSIDE || (status !== 'pass' && status !== 'fail')) return null;
  return (j === RESOLVED) === (status === 'pass') ? 'agree' : 'disagree';
}

/** Row i's agreement (for one row; a pass over many reads with agreementReader). */
export const agreementOf = (table: RunTable, i: number): AgreementFilter | null => agreementReader(table)(i);

/** The rows of `rows` that agree, or disagree, as asked. */
export function selectByAgreement(table: RunTable, rows: Uint32Array, which: AgreementFilter): Uint32Array {
  const agreement = agreementReader(table);
  return rows.filter((i) => agreement(i) === which);
}

/** Why κ is not shown, or null when it is: fewer than MIN_KAPPA_N runs, or chance agreement of 1. */
export function kappaWithheld(agreement: { n: number; kappa: number | null }): string | null {
  if (agreement.n < MIN_KAPPA_N)
    return `n = ${agreement.n}: too few runs with both a verdict and a test result (κ needs ${MIN_KAPPA_N})`;
  if (agreement.kappa === null) return 'the judge or the tests said the same thing every time';
  return null;
}
