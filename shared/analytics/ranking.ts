// Small samples (docs/contract.md §6 "Small samples"): a configuration whose n on the outcome is below its cockpit's
// minimum is shown but not ranked, and sorts after the ranked ones; a paired comparison needs at least
// MIN_SHARED_TASKS tasks both sides have a result on. Browser-safe.

export { DEFAULT_MIN_N } from '#schema/defaults.ts';

/** Fewer tasks with a result on both sides than this, and Compare shows no difference, interval or p. */
export const MIN_SHARED_TASKS = 10;

export const tooFewToRank = (n: number, minN: number) => n < minN;

/** "n = 4 — too few to rank". */
export const tooFewText = (n: number) => `n = ${n} — too few to rank`;

export interface Ranked<T> {
  /** Ranked items best first, then the unranked ones (best rate first, no rate last). */
  ordered: T[];
  /** 1 for the best; equal rates share a rank (1, 2, 2, 4); null when n is below minN or there is no rate. */
  rankOf: Map<T, number | null>;
}

/** Orders and ranks items by rate, best first; `tie` orders equal rates (by name, say). */
export function rankByRate<T>(
  items: readonly T[],
  rate: (item: T) => number | null,
  n: (item: T) => number,
  minN: number,
  tie: (a: T, b: T) => number,
): Ranked<T> {
  const byRate = (a: T, b: T) => (rate(b) ?? -1) - (rate(a) ?? -1) || tie(a, b);
  const ranked = items.filter((i) => rate(i) !== null && !tooFewToRank(n(i), minN)).sort(byRate);
  const inRank = new Set(ranked);
  const rest = items.filter((i) => !inRank.has(i)).sort(byRate);
  const rankOf = new Map<T, number | null>();
  ranked.forEach((item, k) => {
    const previous = ranked[k - 1];
    rankOf.set(item, previous !== undefined && rate(previous) === rate(item) ? rankOf.get(previous)! : k + 1);
  });
  for (const item of rest) rankOf.set(item, null);
  return { ordered: [...ranked, ...rest], rankOf };
}
