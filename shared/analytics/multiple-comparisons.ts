// Holm's step-down adjustment (Holm 1979, "A simple sequentially rejective multiple test procedure", Scand J Stat
// 6:65) of the p values of a family of tests, so that comparing many pairs at once does not find differences
// by chance: the i-th smallest of m p values is multiplied by m − i + 1, each adjusted value is at least the
// one before it, and none exceeds 1. It controls the family-wise error rate under any dependence. Browser-safe.

/** The Holm-adjusted p values, in the order given. */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = [...pValues.keys()].sort((a, b) => pValues[a]! - pValues[b]! || a - b);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}
