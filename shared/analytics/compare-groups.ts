// The paired comparison of docs/contract.md §6 (`GET …/compare`): two groups over the tasks both ran with a result on
// the chosen outcome, their statistics from the one statistics module. Where every shared task has one run on
// each side, the four counts, Newcombe's interval and McNemar's p; where either side has repeated samples
// (or the reader clusters by repository), the per-task means with a clustered standard error and a sign-flip
// permutation p. The read API answers with it and the cockpit's Compare view runs it on its own table, so the
// two cannot disagree.
import type { Group } from './run-grouping.ts';
import type { RunTable } from './run-table.ts';
import {
  compareKindMeans,
  compareTaskMeans,
  fewClustersWarning,
  MIN_CLUSTERS,
  pairedKindsOf,
  RESAMPLES,
  type ClusterUnit,
  type PairedKind,
  type TaskMeansComparison,
} from './reliability.ts';
import { MIN_SHARED_TASKS, pairedComparison, type PairedComparison, type ResolveOutcome } from './statistics.ts';
import { sampleCountsOf, type SampleCounts } from './task-samples.ts';

export const COMPARISON_METHODS = ['mcnemar', 'task-means'] as const;

/** A against B, by either method; the fields of the other method are null. */
export interface PairFigures extends PairedComparison {
  /** `mcnemar` where every shared task has one run on each side and clusters are tasks, else `task-means`. */
  method: (typeof COMPARISON_METHODS)[number];
  cluster: ClusterUnit;
  /** Clusters the shared tasks fall in (the tasks themselves, or their repositories). */
  clusters: number;
  /** task-means: each side's mean over the shared tasks of its per-task mean outcome. */
  meanA: number | null;
  meanB: number | null;
  /** task-means: the clustered standard error of the difference. */
  se: number | null;
  /** task-means: the sign-flip permutation p, and whether it counted every sign pattern. */
  permutationP: number | null;
  exactPermutation: boolean;
  /** Said when a clustered figure rests on fewer than 30 clusters. */
  warning: string | null;
}

/** A McNemar comparison's per-task means fields: none. */
const NO_TASK_MEANS = {
  meanA: null,
  meanB: null,
  se: null,
  permutationP: null,
  exactPermutation: false,
  warning: null,
};

/** The p a pair is judged by: McNemar's or the permutation p, whichever its method gives. */
export const pOf = (f: PairFigures): number | null => f.mcnemarP ?? f.permutationP;

/**
 * Whether the pair's p is a random sign-flip p at its least, 1/(1 + RESAMPLES): no random pattern reached the
 * observed sum, so the p of every pattern is smaller still.
 */
export const pAtFloor = (f: PairFigures): boolean =>
  f.mcnemarP === null && f.permutationP !== null && !f.exactPermutation && f.permutationP * (1 + RESAMPLES) < 1 + 1e-9;

/**
 * Groups a and b of the counts over the tasks both have a result on: the pair's figures (figuresOfKinds), and the
 * tasks each side did better on (by index).
 */
export function pairFigures(counts: SampleCounts, a: number, b: number, cluster: ClusterUnit = 'task') {
  const [nA, cA, nB, cB] = [counts.n[a]!, counts.c[a]!, counts.n[b]!, counts.c[b]!];
  const shared: Omit<PairedKind, 'tasks'>[] = [];
  const aOnlyTasks: number[] = [];
  const bOnlyTasks: number[] = [];
  for (let t = 0; t < nA.length; t++) {
    if (!nA[t] || !nB[t]) continue;
    shared.push({ nA: nA[t]!, cA: cA[t]!, nB: nB[t]!, cB: cB[t]! });
    const ahead = aheadOf(shared.at(-1)!);
    if (ahead > 0) aOnlyTasks.push(t);
    else if (ahead < 0) bOnlyTasks.push(t);
  }
  const sharedOf = (n: Int32Array, c: Int32Array) =>
    counts.tasks.flatMap((task, t) => (nA[t] && nB[t] ? [{ task, n: n[t]!, c: c[t]!, repo: counts.repos[t]! }] : []));
  const byRepo = cluster === 'repo' ? compareTaskMeans(sharedOf(nA, cA), sharedOf(nB, cB), cluster) : null;
  return { figures: figuresOfKinds(pairedKindsOf(shared), byRepo), aOnlyTasks, bOnlyTasks };
}

/** Above 0 where A's per-task mean cA/nA is the higher, below 0 where B's is (multiplied out). */
const aheadOf = (k: Omit<PairedKind, 'tasks'>) => k.cA * k.nB - k.cB * k.nA;

/**
 * A pair's figures from its paired kinds (the shared tasks alike on both sides), clustered by task; clustered by
 * repository, with `byRepo`'s per-task means in place of the kinds'. The counts sort the tasks by their per-task
 * means: A's higher (aOnly), B's higher (bOnly), equal and above 0 (bothResolved), both 0 (neither); with one run
 * each they are McNemar's table. Fewer than MIN_SHARED_TASKS shared tasks give the counts and null statistics.
 */
export function figuresOfKinds(kinds: readonly PairedKind[], byRepo: TaskMeansComparison | null = null): PairFigures {
  const table = { bothResolved: 0, aOnly: 0, bOnly: 0, neither: 0 };
  for (const kind of kinds) {
    const ahead = aheadOf(kind);
    table[ahead > 0 ? 'aOnly' : ahead < 0 ? 'bOnly' : kind.cA > 0 ? 'bothResolved' : 'neither'] += kind.tasks;
  }
  const cluster: ClusterUnit = byRepo ? 'repo' : 'task';
  const paired = pairedComparison(table);
  const oneEach = !byRepo && kinds.every((k) => k.nA === 1 && k.nB === 1);
  const byTaskMeans = oneEach ? null : (byRepo ?? compareKindMeans(kinds));
  const figures: PairFigures = !byTaskMeans
    ? { ...paired, method: 'mcnemar', cluster, clusters: paired.pairs, ...NO_TASK_MEANS }
    : {
        ...table,
        pairs: paired.pairs,
        method: 'task-means',
        cluster,
        clusters: byTaskMeans.clusters,
        meanA: byTaskMeans.meanA,
        meanB: byTaskMeans.meanB,
        difference: byTaskMeans.difference,
        ci: byTaskMeans.ci,
        mcnemarP: null,
        se: byTaskMeans.se,
        permutationP: byTaskMeans.permutationP,
        exactPermutation: byTaskMeans.exact,
        warning:
          paired.pairs > 0 && byTaskMeans.clusters < MIN_CLUSTERS
            ? fewClustersWarning(byTaskMeans.clusters, cluster)
            : null,
      };
  if (paired.pairs < MIN_SHARED_TASKS)
    Object.assign(figures, { difference: null, ci: null, mcnemarP: null, se: null, permutationP: null });
  return figures;
}

/** `GET …/compare`'s figures (its body adds `asOf`). */
export interface GroupComparison extends PairFigures {
  outcome: ResolveOutcome;
  /** Below this many pairs, difference, ci and the p values are null: too few tasks to compare on. */
  minPairs: number;
  aOnlyTasks: string[];
  bOnlyTasks: string[];
}

/**
 * A against B over the tasks both ran with a result on the outcome. A group that is not in the selection,
 * the same group twice, or no common task answer pairs 0 with null statistics (never NaN).
 */
export function compareGroups(
  table: RunTable,
  selection: Uint32Array,
  a: Group,
  b: Group,
  outcome: ResolveOutcome,
  cluster: ClusterUnit = 'task',
): GroupComparison {
  const same = a.model === b.model && a.harnessVersion === b.harnessVersion;
  const counts = sampleCountsOf(table, same ? new Uint32Array(0) : selection, [a, b], outcome);
  const { figures, aOnlyTasks, bOnlyTasks } = pairFigures(counts, 0, 1, cluster);
  const names = (tasks: number[]) => tasks.map((t) => counts.tasks[t]!).sort();
  return {
    outcome,
    minPairs: MIN_SHARED_TASKS,
    ...figures,
    aOnlyTasks: names(aOnlyTasks),
    bOnlyTasks: names(bOnlyTasks),
  };
}
