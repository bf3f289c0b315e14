// The statistics of docs/contract.md §6 in one module that the read API and the cockpit both import, so the server
// and the page never disagree on a figure: plain arithmetic on counts, running in Node and the browser.
// Sources: Wilson's interval as in Newcombe (1998a, Stat Med 17:857); the paired difference by Newcombe's method
// 10 (1998b, Stat Med 17:2635) as worked in Altman et al., *Statistics with Confidence* (2000), ch. 6; McNemar's
// exact test; Cohen's κ (1960) with the large-sample standard error. What is counted lives in the sibling
// modules re-exported here: outcome, run cost, agreement, ranking, difficulty, Holm's adjustment, the sentence.
import { valueOfCode } from './columns.ts';
import { OUTCOME_RULES, OUTSIDE, RESOLVED, type ResolveOutcome } from './outcome.ts';

export * from './agreement.ts';
export * from './difficulty.ts';
export * from './multiple-comparisons.ts';
export * from './outcome.ts';
export * from './ranking.ts';
export * from './run-cost.ts';

/** The standard normal quantile for a two-sided 95 % interval. */
export const Z95 = 1.959964;

/** [lower, upper]. */
export type Interval = [number, number];

export interface Proportion {
  hits: number;
  n: number;
  /** hits / n; null when n is 0. */
  rate: number | null;
  /** 95 % Wilson score interval; null when n is 0. */
  ci: Interval | null;
}

const clip = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** The Wilson score interval of hits out of n (null when n is 0). It never leaves [0, 1]. */
export function wilsonInterval(hits: number, n: number, z = Z95): Interval | null {
  if (!(n > 0)) return null;
  const p = hits / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt(Math.max(0, (p * (1 - p)) / n + z2 / (4 * n * n)));
  // Clipped only against rounding: exactly 0 or n hits put a limit on the bound up to an ulp.
  return [clip(centre - half, 0, p), clip(centre + half, p, 1)];
}

export function proportion(hits: number, n: number): Proportion {
  return { hits, n, rate: n > 0 ? hits / n : null, ci: wilsonInterval(hits, n) };
}

// ---------------------------------------------------------------------------------------------------
// The resolve rate on an outcome

/** Runs by verdict (code 0: 'unjudged', or 'flagged' when a flag rule withheld it) and by hidden-test result (code 0: 'none'). */
export interface OutcomeCounts {
  verdicts: Record<
    'resolved' | 'partial' | 'wrong' | 'no_change' | 'error' | 'excluded' | 'flagged' | 'unjudged',
    number
  >;
  hiddenTests: Record<'pass' | 'fail' | 'error' | 'none', number>;
}

export interface OutcomeRate extends Proportion {
  outcome: ResolveOutcome;
  /** Runs outside n on this outcome, counted beside it. */
  outside: number;
}

/** Resolved ÷ n on the outcome, with its Wilson interval, and the runs it leaves outside n. */
export function outcomeRate(counts: OutcomeCounts, outcome: ResolveOutcome): OutcomeRate {
  const { field, classOf } = OUTCOME_RULES[outcome];
  const byName: Record<string, number> = field === 'verdict' ? counts.verdicts : counts.hiddenTests;
  let hits = 0;
  let n = 0;
  let outside = 0;
  classOf.forEach((cls, code) => {
    const name = code === 0 ? (field === 'verdict' ? 'unjudged' : 'none') : valueOfCode(field, code);
    // A flagged run has no verdict (code 0), so it is classed as the unjudged are.
    const runs = (name ? (byName[name] ?? 0) : 0) + (field === 'verdict' && code === 0 ? counts.verdicts.flagged : 0);
    if (cls === OUTSIDE) outside += runs;
    else n += runs;
    if (cls === RESOLVED) hits += runs;
  });
  return { ...proportion(hits, n), outcome, outside };
}

// ---------------------------------------------------------------------------------------------------
// Agreement of the judge and the hidden tests

/** Runs with a counted verdict and a pass/fail hidden test: judge resolved or not × tests pass or fail. */
export interface AgreementTable {
  resolvedPass: number;
  resolvedFail: number;
  otherPass: number;
  otherFail: number;
}

export interface Agreement {
  n: number;
  /**
   * Cohen's κ; null when n is 0 or a margin is empty: one rater said the same thing every time, so there
   * is no agreement beyond chance to measure (κ would read 0, or 0/0 when both did).
   */
  kappa: number | null;
  /** κ ± z·√(po(1−po) / (n(1−pe)²)), clipped to [−1, 1]; null with κ. */
  ci: Interval | null;
  table: AgreementTable;
}

export function cohensKappa(table: AgreementTable, z = Z95): Agreement {
  const { resolvedPass: a, resolvedFail: b, otherPass: c, otherFail: d } = table;
  const n = a + b + c + d;
  if (a + b === 0 || c + d === 0 || a + c === 0 || b + d === 0) return { n, kappa: null, ci: null, table };
  const observed = (a + d) / n;
  const chance = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
  const kappa = (observed - chance) / (1 - chance);
  const se = Math.sqrt((observed * (1 - observed)) / (n * (1 - chance) ** 2));
  return { n, kappa, ci: [clip(kappa - z * se, -1, 1), clip(kappa + z * se, -1, 1)], table };
}

// ---------------------------------------------------------------------------------------------------
// Paired comparison of two groups over the tasks both ran

export interface PairedCounts {
  bothResolved: number;
  aOnly: number;
  bOnly: number;
  neither: number;
}

export interface PairedComparison extends PairedCounts {
  pairs: number;
  /** Resolve rate of A minus that of B, (aOnly − bOnly) / pairs; null when there are no pairs. */
  difference: number | null;
  /** Newcombe's 95 % interval for the paired difference (method 10); null when there are no pairs. */
  ci: Interval | null;
  /** McNemar's exact two-sided p; null when there are no pairs. */
  mcnemarP: number | null;
}

export function pairedComparison(counts: PairedCounts, z = Z95): PairedComparison {
  const pairs = counts.bothResolved + counts.aOnly + counts.bOnly + counts.neither;
  if (pairs === 0) return { ...counts, pairs, difference: null, ci: null, mcnemarP: null };
  return {
    ...counts,
    pairs,
    difference: (counts.aOnly - counts.bOnly) / pairs,
    ci: newcombePairedInterval(counts, z),
    mcnemarP: mcnemarExactP(counts.aOnly, counts.bOnly),
  };
}

/**
 * Newcombe's method 10: the Wilson limits of both rates, combined with φ, a correlation of the pairs
 * corrected for continuity (Altman et al. 2000, p. 52). Null when there are no pairs.
 */
export function newcombePairedInterval(
  { bothResolved: e, aOnly: f, bOnly: g, neither: h }: PairedCounts,
  z = Z95,
): Interval | null {
  const n = e + f + g + h;
  if (n === 0) return null;
  const margins = (e + f) * (g + h) * (e + g) * (f + h);
  let phi = 0;
  if (margins > 0) {
    const cross = e * h - f * g;
    const corrected = cross > n / 2 ? cross - n / 2 : cross < 0 ? cross : 0;
    phi = corrected / Math.sqrt(margins);
  }
  return differenceInterval((e + f) / n, wilsonInterval(e + f, n, z)!, (e + g) / n, wilsonInterval(e + g, n, z)!, phi);
}

/**
 * The interval of p1 − p2 from each rate's own interval and φ, the correlation of the two estimates: each limit of
 * the difference adds in square the distances from the two rates to the limits that move it that way (Newcombe's
 * method 10; Zou & Donner 2008, "Construction of confidence limits about effect measures", Stat Med 27:1693).
 */
export function differenceInterval(
  p1: number,
  [l1, u1]: Interval,
  p2: number,
  [l2, u2]: Interval,
  phi: number,
): Interval {
  const d = p1 - p2;
  const below = Math.sqrt(Math.max(0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2));
  const above = Math.sqrt(Math.max(0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2));
  return [clip(d - below, -1, d), clip(d + above, d, 1)];
}

/**
 * P[X ≤ k] for X ~ Binomial(n, p). Term by term from q^n, each the one before × (n − i + 1)/i × p/q: for
 * p = ½ and the n of a benchmark the terms are exact binary fractions, so a tail that is exactly ½ comes
 * out ½. Where q^n would underflow (n in the tens of thousands), the terms are summed in log space.
 */
export function binomialLowerTail(k: number, n: number, p = 0.5): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const first = (1 - p) ** n;
  if (first > 1e-290) {
    let term = first;
    let sum = first;
    for (let i = 1; i <= k; i++) {
      term *= ((n - i + 1) / i) * (p / (1 - p));
      sum += term;
    }
    return Math.min(1, sum);
  }
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  // log of C(n, i) p^i q^(n−i), term by term; then a log-sum-exp around the largest term.
  const logs: number[] = [];
  let log = n * logQ;
  for (let i = 0; i <= k; i++) {
    if (i > 0) log += Math.log((n - i + 1) / i) + logP - logQ;
    logs.push(log);
  }
  const top = Math.max(...logs);
  const sum = logs.reduce((s, l) => s + Math.exp(l - top), 0);
  return Math.min(1, Math.exp(top) * sum);
}

/** McNemar's exact two-sided p: min(1, 2·P[X ≤ min(b, c)]) with X ~ Binomial(b + c, ½); 1 when b + c is 0. */
export function mcnemarExactP(b: number, c: number): number {
  if (b + c === 0) return 1;
  return Math.min(1, 2 * binomialLowerTail(Math.min(b, c), b + c));
}
