// What a configuration's runs cost against what they resolved (docs/contract.md §6 "Cost"). A run's cost is known
// only where the configuration prices its model and its token counts are known; the figures are over those
// priced runs alone and say how many they are ("priced k of n"), so an unknown price is never a $0 and a
// partial pricing never passes for the whole. Browser-safe.
import { medianOf } from './quantiles.ts';

export interface RunCostFigure {
  /** Runs of the configuration. */
  runs: number;
  /** Runs whose cost is known. */
  priced: number;
  /** Sum of the known run costs; null when none is known. */
  totalUsd: number | null;
  medianUsd: number | null;
  /** totalUsd ÷ priced: the mean run cost per task (one run per task). */
  meanUsd: number | null;
  /** Runs resolved on the outcome among the priced runs. */
  resolved: number;
  /** totalUsd ÷ resolved: cost per resolved task; null when nothing priced was resolved. */
  perResolvedUsd: number | null;
  /** 10 × resolved ÷ totalUsd: resolved tasks per $10; null when nothing is priced or it cost nothing. */
  resolvedPer10Usd: number | null;
}

/** From each run's cost (NaN: unknown) and whether it resolved its task on the outcome. */
export function runCostFigure(costs: ArrayLike<number>, resolved: ArrayLike<boolean>): RunCostFigure {
  let priced = 0;
  let total = 0;
  let resolvedPriced = 0;
  for (let r = 0; r < costs.length; r++) {
    const cost = costs[r]!;
    if (Number.isNaN(cost)) continue;
    priced++;
    total += cost;
    if (resolved[r]) resolvedPriced++;
  }
  return runCostOfTotals({
    runs: costs.length,
    priced,
    totalUsd: priced ? total : null,
    medianUsd: medianOf(costs).median,
    resolved: resolvedPriced,
  });
}

/** The figure from its totals (the read API's engine path sums in SQL): the means and ratios follow from them. */
export function runCostOfTotals(
  totals: Pick<RunCostFigure, 'runs' | 'priced' | 'totalUsd' | 'medianUsd' | 'resolved'>,
): RunCostFigure {
  const { priced, totalUsd, resolved } = totals;
  return {
    ...totals,
    meanUsd: totalUsd === null ? null : totalUsd / priced,
    perResolvedUsd: totalUsd === null || resolved === 0 ? null : totalUsd / resolved,
    resolvedPer10Usd: totalUsd === null || totalUsd === 0 ? null : (10 * resolved) / totalUsd,
  };
}

/**
 * The points no other point beats: none cheaper (or as cheap) with a rate at least as high, one of the two
 * strictly. Returned in order of cost.
 */
export function paretoFront<T>(points: T[], cost: (p: T) => number, rate: (p: T) => number): T[] {
  const sorted = [...points].sort((a, b) => cost(a) - cost(b) || rate(b) - rate(a));
  const front: T[] = [];
  let best = -Infinity;
  for (const p of sorted) {
    if (rate(p) > best) {
      front.push(p);
      best = rate(p);
    }
  }
  return front;
}
