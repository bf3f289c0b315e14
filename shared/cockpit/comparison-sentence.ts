// The sentence a reader can quote for a paired comparison (docs/contract.md §6), and how its figures are written.
import { MIN_SHARED_TASKS } from './ranking.ts';
import type { PairedComparison } from './statistics.ts';

const percent = (x: number) => `${(x * 100).toFixed(1)}`;
/** A bound of the interval, with the same minus sign the difference is written with. */
const bound = (x: number) => `${x < 0 ? '−' : ''}${percent(Math.abs(x))}`;
const signedPoints = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${percent(Math.abs(x))} points`;
/** A p value as the page writes it: "< 0.001", "0.004", "0.02". */
export const pText = (p: number) => (p < 0.001 ? '< 0.001' : p < 0.01 ? p.toFixed(3) : p.toFixed(2));
const pValue = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${pText(p)}`);

/** The sentence a reader can quote (docs/contract.md §6), e.g. "A resolved 12 tasks B did not, … p = 0.08". */
export function describeComparison(a: string, b: string, c: PairedComparison): string {
  if (c.pairs === 0) return `${a} and ${b} have no task with a counted verdict in common.`;
  if (c.pairs < MIN_SHARED_TASKS || c.difference === null || c.ci === null || c.mcnemarP === null)
    return `${a} and ${b} share ${c.pairs} ${c.pairs === 1 ? 'task' : 'tasks'}: too few to compare (Compare needs at least ${MIN_SHARED_TASKS}).`;
  const [lo, hi] = c.ci;
  return (
    `${a} resolved ${c.aOnly} ${c.aOnly === 1 ? 'task' : 'tasks'} ${b} did not, ${b} resolved ${c.bOnly} ${a} did not, ` +
    `of ${c.pairs} ${c.pairs === 1 ? 'task' : 'tasks'} both ran: ${signedPoints(c.difference)}, ` +
    `95% CI ${bound(lo)} to ${bound(hi)} points, ${pValue(c.mcnemarP)}.`
  );
}
