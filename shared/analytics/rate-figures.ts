// Rates as the cockpit shows them (docs/contract.md §6): hits / n with the 95 % Wilson interval, and the
// runs left outside the denominator counted beside it.
import { outcomeRate, proportion, type Proportion } from './statistics.ts';
import type { VERDICTS as VERDICT_NAMES } from './columns.ts';

/** hits / n and its 95 % Wilson interval, both null when there is nothing to divide by. */
export type RateFigure = Proportion;

/** Runs by verdict; `flagged`: a "resolved" a flag rule withheld (judgeState "flagged", no verdict), apart from `unjudged`. */
export type VerdictCounts = Record<(typeof VERDICT_NAMES)[number] | 'flagged' | 'unjudged', number>;

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
  flagged: 0,
  unjudged: 0,
});

const NO_TESTS = { pass: 0, fail: 0, error: 0, none: 0 };
const NO_VERDICTS = emptyVerdictCounts();

export function resolveRate(c: VerdictCounts): ResolveFigure {
  const { outcome: _, outside: __, ...judged } = outcomeRate({ verdicts: c, hiddenTests: NO_TESTS }, 'judge');
  return {
    ...judged,
    excluded: c.excluded,
    error: c.error,
    flagged: c.flagged,
    unjudged: c.unjudged,
  };
}

export function hiddenTestRate(c: Record<HiddenColumn, number>): HiddenTestFigure {
  const { outcome: _, outside: __, ...tested } = outcomeRate({ verdicts: NO_VERDICTS, hiddenTests: c }, 'tests');
  return { ...tested, errored: c.error, missing: c.none };
}

export type HiddenColumn = 'pass' | 'fail' | 'error' | 'none';
