// Resolve rates of each group split by a property of the run's task (its tier, its wave, its empirical difficulty),
// on the outcome in view: one pass over the runs in view, every cell a rate with its n and Wilson interval.
import type { Grouping } from './run-grouping.ts';
import type { RunTable } from './run-table.ts';
import { OUTCOME_RULES, OUTSIDE, proportion, RESOLVED, type Proportion, type ResolveOutcome } from './statistics.ts';

/**
 * cells[g][k]: the rate of group g among its runs whose key is k (`keyOf` gives 0 to keys − 1, or −1 for
 * none), counted on the outcome.
 */
export function breakdown(
  table: RunTable,
  selection: Uint32Array,
  grouping: Grouping,
  outcome: ResolveOutcome,
  keys: number,
  keyOf: (i: number) => number,
): Proportion[][] {
  const groups = grouping.groups.length;
  const hits = new Uint32Array(groups * keys);
  const n = new Uint32Array(groups * keys);
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const k = keyOf(i);
    const c = classOf[codes[i]!]!;
    if (k < 0 || c === OUTSIDE) continue;
    const cell = grouping.of[s]! * keys + k;
    n[cell]!++;
    if (c === RESOLVED) hits[cell]!++;
  }
  return Array.from({ length: groups }, (_, g) =>
    Array.from({ length: keys }, (_, k) => proportion(hits[g * keys + k]!, n[g * keys + k]!)),
  );
}
