// How a rate reads with its uncertainty: the rate, its 95 % Wilson interval and its n, in one place so
// tiles, tooltips, tables and the Compare view say it the same way. The interval itself always comes from
// shared/analytics/statistics.ts; this module only writes it down.
import type { Interval, Proportion } from '#analytics/statistics.ts';
import { count, percent } from './format.ts';

export type RateWithInterval = Pick<Proportion, 'rate' | 'n' | 'ci'>;

/** "29%–46%", or for a difference "−1.2 to +14.6 points". */
export function intervalText([lo, hi]: Interval, unit: 'percent' | 'points' = 'percent'): string {
  if (unit === 'percent') return `${percent(lo)}–${percent(hi)}`;
  const points = (d: number) => `${d > 0 ? '+' : d < 0 ? '−' : ''}${(Math.abs(d) * 100).toFixed(1)}`;
  return `${points(lo)} to ${points(hi)} points`;
}

/** "95% CI 29%–46%", or nothing to say when there is no n. */
export const ciText = (r: RateWithInterval): string => (r.ci ? `95% CI ${intervalText(r.ci)}` : 'no interval (n=0)');

/** "37% (95% CI 29%–46%, n=120)"; with no n, "unknown (n=0)". */
export const percentOf = (r: RateWithInterval): string =>
  r.rate === null || !r.ci ? 'unknown (n=0)' : `${percent(r.rate)} (95% CI ${intervalText(r.ci)}, n=${count(r.n)})`;
