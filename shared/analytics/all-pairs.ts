// Every pair of the configurations in view (docs/contract.md §6 "All pairs"): each pair's paired comparison over the
// tasks both have a result on, with its p (McNemar's exact p, or the sign-flip p where samples repeat) adjusted by
// Holm's step-down over the pairs compared, so
// that reading the smallest of many p values is not reading noise. At most MAX_ALL_PAIRS configurations (66
// pairs); the read API (`/pairs`) and the cockpit's Compare view both run it.
import type { Group } from './run-grouping.ts';
import { figuresOfKinds, pairFigures, pOf, type PairFigures } from './compare-groups.ts';
import { compareRepoMeans, pairedKindsOf, type ClusterUnit, type PairedKind } from './reliability.ts';
import type { RunTable } from './run-table.ts';
import { holmAdjust, type ResolveOutcome } from './statistics.ts';
import { sampleCountsOf, type SampleCounts } from './task-samples.ts';

export const MAX_ALL_PAIRS = 12;

export const HARNESS_CAVEAT = 'different harness versions: the difference mixes model and harness';

export interface PairRow extends PairFigures {
  a: Group;
  b: Group;
  /** Holm-adjusted over the pairs compared; null without a p (fewer than MIN_SHARED_TASKS pairs). */
  holmP: number | null;
  /** Said when A and B ran different harness versions. */
  caveat: string | null;
}

export type AllPairs =
  | { outcome: ResolveOutcome; configurations: number; compared: number; rows: PairRow[]; refused: null }
  | { outcome: ResolveOutcome; configurations: number; compared: 0; rows: []; refused: string };

/** The sentence that refuses more than MAX_ALL_PAIRS configurations. */
export const tooManyConfigurations = (n: number) =>
  `${n} configurations are in view; all pairs compares at most ${MAX_ALL_PAIRS} (${(MAX_ALL_PAIRS * (MAX_ALL_PAIRS - 1)) / 2} ` +
  `pairs). Narrow the filter (model or harness version) to ${MAX_ALL_PAIRS} or fewer.`;

/** The answer for more than MAX_ALL_PAIRS configurations: none compared, and the sentence saying why. */
export const refusedPairs = (outcome: ResolveOutcome, configurations: number): AllPairs => ({
  outcome,
  configurations,
  compared: 0,
  rows: [],
  refused: tooManyConfigurations(configurations),
});

/**
 * Each pair of the groups with tasks in common, A being the one with the higher resolve rate on the outcome
 * (ties by name), so a difference reads as A's lead; pairs with fewer than MIN_SHARED_TASKS tasks in common
 * are listed with no statistics and left out of the Holm family. Sorted by the adjusted p, then by p, then
 * by pairs; those without one last.
 */
export function allPairs(
  table: RunTable,
  selection: Uint32Array,
  unordered: readonly Group[],
  outcome: ResolveOutcome,
  cluster: ClusterUnit = 'task',
): AllPairs {
  if (unordered.length > MAX_ALL_PAIRS) return refusedPairs(outcome, unordered.length);
  return allPairsOf(sampleCountsOf(table, selection, unordered, outcome), unordered, outcome, cluster);
}

/** allPairs from the groups' samples of each task (the read API's engine path counts them in SQL by repository). */
export function allPairsOf(
  counts: SampleCounts,
  unordered: readonly Group[],
  outcome: ResolveOutcome,
  cluster: ClusterUnit = 'task',
): AllPairs {
  const totals = unordered.map((_, g) => ({
    counted: counts.n[g]!.reduce((s, x) => s + x, 0),
    resolved: counts.c[g]!.reduce((s, x) => s + x, 0),
  }));
  return pairsOf(unordered, totals, outcome, (x, y) => pairFigures(counts, x, y, cluster).figures);
}

/**
 * allPairs from each pair's shared tasks by paired kind in each cluster (`clustersOf(x, y)`, A being group x;
 * clustered by task, one list of every kind; by repository, one list per repository, in the order of its smallest
 * shared task id) and each group's samples with a result and resolved: what the read API's engine path counts in
 * SQL, however many tasks there are.
 */
export function allPairsOfKinds(
  unordered: readonly Group[],
  totals: readonly GroupTotals[],
  outcome: ResolveOutcome,
  cluster: ClusterUnit,
  clustersOf: (x: number, y: number) => PairedKind[][],
): AllPairs {
  return pairsOf(unordered, totals, outcome, (x, y) => {
    const clusters = clustersOf(x, y);
    return figuresOfKinds(pairedKindsOf(clusters.flat()), cluster === 'repo' ? compareRepoMeans(clusters) : null);
  });
}

/** A group's samples with a result on the outcome, and those resolved. */
export interface GroupTotals {
  counted: number;
  resolved: number;
}

function pairsOf(
  unordered: readonly Group[],
  totals: readonly GroupTotals[],
  outcome: ResolveOutcome,
  figuresOf: (x: number, y: number) => PairFigures,
): AllPairs {
  if (unordered.length > MAX_ALL_PAIRS) return refusedPairs(outcome, unordered.length);
  const rateOf = totals.map(({ counted, resolved }) => (counted ? resolved / counted : -1));
  const order = [...unordered.keys()].sort(
    (x, y) =>
      rateOf[y]! - rateOf[x]! ||
      unordered[x]!.model.localeCompare(unordered[y]!.model) ||
      unordered[x]!.harnessVersion.localeCompare(unordered[y]!.harnessVersion),
  );
  const groups = order.map((k) => unordered[k]!);
  const rows: PairRow[] = [];
  for (let x = 0; x < groups.length; x++)
    for (let y = x + 1; y < groups.length; y++) {
      const figures = figuresOf(order[x]!, order[y]!);
      if (figures.pairs === 0) continue;
      const [a, b] = [groups[x]!, groups[y]!];
      rows.push({
        ...figures,
        a,
        b,
        holmP: null,
        caveat: a.harnessVersion === b.harnessVersion ? null : HARNESS_CAVEAT,
      });
    }
  const family = rows.filter((r) => pOf(r) !== null);
  holmAdjust(family.map((r) => pOf(r)!)).forEach((p, k) => (family[k]!.holmP = p));
  rows.sort(
    (r, s) =>
      (r.holmP ?? Infinity) - (s.holmP ?? Infinity) || (pOf(r) ?? Infinity) - (pOf(s) ?? Infinity) || s.pairs - r.pairs,
  );
  return { outcome, configurations: groups.length, compared: family.length, rows, refused: null };
}
