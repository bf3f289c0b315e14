// The judge held against the hidden tests: agreement and Cohen's κ over the runs that have both.
import { cohensKappa, type Agreement } from './statistics.ts';
import type { RunTable } from './run-table.ts';
import { rate, type RateFigure } from './rate-figures.ts';
import { countRuns, type RunCounts } from './run-counts.ts';

export interface Calibration {
  counts: RunCounts['byVerdictAndTest'];
  /**
   * Among runs with a judged resolve-rate verdict and a pass/fail hidden test: the judge said resolved
   * exactly when the tests passed.
   */
  agreement: RateFigure;
  /** The same runs as a 2×2 table (judge resolved or not × tests pass or fail) with Cohen's κ and its interval. */
  kappa: Agreement;
  /** Runs whose "resolved" a flag rule withheld: no verdict, so outside the 2×2 table and κ. */
  flagged: number;
}

export function calibration(table: RunTable, selection: Uint32Array): Calibration {
  const { byVerdictAndTest, agreement: a, flagged } = countRuns(table, selection);
  return {
    counts: byVerdictAndTest,
    agreement: rate(a.resolvedPass + a.otherFail, a.resolvedPass + a.resolvedFail + a.otherPass + a.otherFail),
    kappa: cohensKappa(a),
    flagged,
  };
}
