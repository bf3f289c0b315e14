// Repeated samples of a task (docs/contract.md §6 "Reliability"): a configuration may run each task several times,
// and each task's n samples with a result on the outcome, c of them resolved, give
//   - the mean resolve rate over all samples, with a standard error clustered by task (Miller 2024, "Adding error
//     bars to evals", arXiv:2411.00640, §2.2): samples of one task are not independent draws;
//   - pass@k, the chance that at least one of k samples resolves the task, by the unbiased estimator of Chen et al.
//     (2021, "Evaluating large language models trained on code", arXiv:2107.03374, §2.1), and pass^k, the chance
//     that all k do (Yao et al. 2024, "τ-bench", arXiv:2406.12045, §3), each averaged over tasks with a percentile
//     bootstrap interval that resamples tasks (Efron & Tibshirani 1993, ch. 13);
//   - per-task consistency, and the paired comparison of two configurations on per-task mean outcomes with a
//     sign-flip permutation p (Fisher 1935; Phipson & Smyth 2010 for the Monte Carlo p).
// Clusters are tasks unless the reader clusters by repository. Clustered by task, every figure depends only on how
// many tasks have each (n, c), the configuration's sample kinds: the read API's engine counts those, not its
// tasks, and the bootstrap draws how many tasks of each kind a resample holds, kinds in (n, c) order. Resampling
// uses a fixed seed, so a figure computed twice (server and page, either path) is the same figure. Browser-safe;
// plain arithmetic on counts.
import { quantileOfKnown } from './quantiles.ts';
import { binomialSampler, seeded } from './seeded-random.ts';
import { differenceInterval, wilsonInterval, Z95, type Interval } from './statistics.ts';

/** Bootstrap resamples for the pass@k and pass^k intervals, and random sign patterns for a permutation p. */
export const RESAMPLES = 2000;
/** The seed of every resampling: the same counts give the same interval and p everywhere. */
export const RESAMPLING_SEED = 38;
/** Below this many clusters a clustered standard error is itself too uncertain to lean on (Miller 2024, §2.2). */
export const MIN_CLUSTERS = 30;
/** Up to this many tasks (or clusters) that differ, the sign-flip p is exact over all 2^N sign patterns. */
export const EXACT_SIGN_FLIPS_UP_TO = 11;

export const CLUSTER_UNITS = ['task', 'repo'] as const;
/** What samples are clustered by: each task (the default), or each repository (`cluster=repo`). */
export type ClusterUnit = (typeof CLUSTER_UNITS)[number];
export const isClusterUnit = (value: string): value is ClusterUnit =>
  (CLUSTER_UNITS as readonly string[]).includes(value);

/** One task of one configuration on the outcome: n samples with a result, c of them resolved. */
export interface TaskSamples {
  task: string;
  n: number;
  c: number;
  /** Its repository, for `cluster=repo`; a task without one is a cluster of its own. */
  repo?: string | null;
}

/** Tasks alike on the outcome: `tasks` of them with n samples with a result, c of them resolved (n > 0). */
export interface SampleKind {
  n: number;
  c: number;
  tasks: number;
}

export interface SampleSpread {
  min: number;
  median: number;
  max: number;
}

export interface Consistency {
  /** Tasks whose every sample resolved, some but not all, none. */
  all: number;
  some: number;
  none: number;
}

export interface ClusteredRate {
  /** Samples with a result on the outcome, and those resolved. */
  samples: number;
  resolved: number;
  /** resolved / samples; null with no samples. */
  rate: number | null;
  /** The clustered standard error of rate; null with no samples. */
  se: number | null;
  /** Wilson's interval when every task has one sample and clusters are tasks; else rate ± z·se, within [0, 1]. */
  ci: Interval | null;
  interval: 'wilson' | 'clustered';
  clusters: number;
}

export interface CurvePoint {
  k: number;
  /** The chance that at least one of k samples resolves a task, averaged over tasks, and its bootstrap interval. */
  passAt: number;
  passAtCi: Interval;
  /** The chance that all k samples resolve a task, averaged over tasks, and its bootstrap interval. */
  passHat: number;
  passHatCi: Interval;
  /** The tasks averaged over: every task with a result on the outcome. */
  tasks: number;
}

export interface Reliability extends ClusteredRate {
  cluster: ClusterUnit;
  tasks: number;
  /** Samples per task with a result on the outcome; null with no task. */
  samplesPerTask: SampleSpread | null;
  consistency: Consistency;
  /** k = 1 to the smallest sample count of a task. */
  curve: CurvePoint[];
  /** Said when the standard error rests on fewer than MIN_CLUSTERS clusters. */
  warning: string | null;
}

/** The tasks with a result on the outcome: only they have samples to count. */
const counted = (tasks: readonly TaskSamples[]) => tasks.filter((t) => t.n > 0);

/**
 * How many tasks with a result have each (n, c), in (n, c) order: all a figure clustered by task depends on, in
 * the order the bootstrap draws them. Kinds counted elsewhere (an engine's rows) may come split or in any order.
 */
export function sampleKindsOf(tasks: Iterable<{ n: number; c: number; tasks?: number }>): SampleKind[] {
  const byKey = new Map<number, SampleKind>();
  for (const { n, c, tasks: alike = 1 } of tasks) {
    if (n <= 0 || alike <= 0) continue;
    const key = n * 2 ** 26 + c;
    const kind = byKey.get(key);
    if (kind) kind.tasks += alike;
    else byKey.set(key, { n, c, tasks: alike });
  }
  return [...byKey.values()].sort((a, b) => a.n - b.n || a.c - b.c);
}

const tasksOf = (kinds: readonly SampleKind[]) => kinds.reduce((sum, k) => sum + k.tasks, 0);

/** pass@k of one task, 1 − C(n−c, k)/C(n, k), as the product Chen et al. give for numerical stability. */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  // c/n exactly, as pass^1 is: the product below gives it to the last bit or two.
  if (k === 1) return c / n;
  let none = 1;
  for (let i = n - c + 1; i <= n; i++) none *= 1 - k / i;
  return 1 - none;
}

/** pass^k of one task, C(c, k)/C(n, k): the chance that k samples drawn without replacement all resolved. */
export function passHatK(n: number, c: number, k: number): number {
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return all;
}

export const samplesPerTask = (tasks: readonly TaskSamples[]): SampleSpread | null =>
  spreadOfKinds(sampleKindsOf(tasks));

/** The kinds are in n order, so the i-th smallest n is found by counting tasks along them. */
function spreadOfKinds(kinds: readonly SampleKind[]): SampleSpread | null {
  const total = tasksOf(kinds);
  if (!total) return null;
  const nth = (i: number) => {
    let seen = 0;
    for (const kind of kinds) if (i < (seen += kind.tasks)) return kind.n;
    return kinds.at(-1)!.n;
  };
  const mid = total >> 1;
  const median = total % 2 ? nth(mid) : (nth(mid - 1) + nth(mid)) / 2;
  return { min: kinds[0]!.n, median, max: kinds.at(-1)!.n };
}

export const consistencyOf = (tasks: readonly TaskSamples[]): Consistency => consistencyOfKinds(sampleKindsOf(tasks));

function consistencyOfKinds(kinds: readonly SampleKind[]): Consistency {
  const out = { all: 0, some: 0, none: 0 };
  for (const { n, c, tasks } of kinds) out[c === n ? 'all' : c === 0 ? 'none' : 'some'] += tasks;
  return out;
}

/** A task's cluster by repository: its repository's, or a cluster of its own where it has none. */
const clusterKey = (task: string, repo: string | null | undefined) => (repo == null ? `task ${task}` : `repo ${repo}`);

/** Clusters keyed by clusterKey, in the order of their smallest task id (code-unit order, as compareTaskIds). */
export function byFirstTask<T>(tasks: Iterable<{ task: string; key: string; item: T }>): T[][] {
  const clusters = new Map<string, { first: string; items: T[] }>();
  for (const { task, key, item } of tasks) {
    const cluster = clusters.get(key) ?? clusters.set(key, { first: task, items: [] }).get(key)!;
    if (task < cluster.first) cluster.first = task;
    cluster.items.push(item);
  }
  return [...clusters.values()]
    .sort((x, y) => (x.first < y.first ? -1 : x.first > y.first ? 1 : 0))
    .map((c) => c.items);
}

/**
 * The tasks with a result clustered by repository (`cluster=repo`), clusters in the order of their smallest task
 * id, each as its sample kinds: all a figure clustered by repository depends on.
 */
export const repoClustersOf = (tasks: readonly TaskSamples[]): SampleKind[][] =>
  byFirstTask(counted(tasks).map((t) => ({ task: t.task, key: clusterKey(t.task, t.repo), item: t }))).map(
    sampleKindsOf,
  );

/**
 * The mean over all samples, p = Σc / Σn, and its clustered standard error √(Σ_g (Σ_{i∈g} (c_i − n_i·p))²) / Σn:
 * the sum over clusters of the squared sum of each sample's residual (Miller 2024, eq. 4). With one sample per
 * task clustered by task it is √(p(1−p)/n), and the interval is Wilson's, as for any rate.
 */
export function clusteredRate(tasks: readonly TaskSamples[], unit: ClusterUnit = 'task', z = Z95): ClusteredRate {
  return unit === 'task' ? rateOfKinds(sampleKindsOf(tasks), z) : rateOfClusters(repoClustersOf(tasks), z);
}

/** clusteredRate of clusters given by their sample kinds. */
function rateOfClusters(clusters: readonly (readonly SampleKind[])[], z = Z95): ClusteredRate {
  let [samples, resolved] = [0, 0];
  for (const k of clusters.flat()) [samples, resolved] = [samples + k.tasks * k.n, resolved + k.tasks * k.c];
  const interval = 'clustered';
  const count = clusters.length;
  if (!samples) return { samples, resolved, rate: null, se: null, ci: null, interval, clusters: count };
  const rate = resolved / samples;
  // Each cluster's residual times Σn, c·Σn − n·Σc, in whole numbers: a residual of 0 is exactly 0.
  const residuals = clusters.map((kinds) =>
    kinds.reduce((sum, k) => sum + k.tasks * (k.c * samples - k.n * resolved), 0),
  );
  const se = Math.sqrt(residuals.reduce((s, r) => s + r * r, 0)) / (samples * samples);
  return { samples, resolved, rate, se, ci: clusteredInterval(rate, se, samples, count, z), interval, clusters: count };
}

/**
 * Wilson's interval at the effective sample size p(1−p)/SE² (Korn & Graubard 1998), from the clusters to the
 * samples: the clustered standard error read as how many independent runs the samples are worth, one per cluster
 * at the least. Where the spread cannot be measured, because every sample agrees (p 0 or 1) or there is one
 * cluster (its residual is 0 by construction), each cluster counts as one run; where two clusters or more all have
 * the rate p (SE exactly 0), as many as the samples: never an interval of width 0.
 */
function clusteredInterval(rate: number, se: number, samples: number, clusters: number, z: number): Interval {
  const effective =
    rate === 0 || rate === 1 || clusters < 2
      ? clusters
      : se === 0
        ? samples
        : Math.min(samples, Math.max(clusters, (rate * (1 - rate)) / (se * se)));
  return wilsonInterval(rate * effective, effective, z)!;
}

/** clusteredRate with clusters = tasks: each of a kind's tasks is a cluster with the same residual c − n·p. */
function rateOfKinds(kinds: readonly SampleKind[], z = Z95): ClusteredRate {
  let [samples, resolved, clusters] = [0, 0, 0];
  for (const k of kinds)
    [samples, resolved, clusters] = [samples + k.tasks * k.n, resolved + k.tasks * k.c, clusters + k.tasks];
  const oneEach = kinds.every((k) => k.n === 1);
  const interval = oneEach ? 'wilson' : 'clustered';
  if (!samples) return { samples, resolved, rate: null, se: null, ci: null, interval, clusters };
  const rate = resolved / samples;
  // As rateOfClusters: the residuals times Σn in whole numbers.
  const se = Math.sqrt(kinds.reduce((s, k) => s + k.tasks * (k.c * samples - k.n * resolved) ** 2, 0)) / samples ** 2;
  const ci: Interval = oneEach
    ? wilsonInterval(resolved, samples, z)!
    : clusteredInterval(rate, se, samples, clusters, z);
  return { samples, resolved, rate, se, ci, interval, clusters };
}

/**
 * pass@k and pass^k for k = 1 to the smallest sample count among the tasks, each the mean over tasks of the
 * task's own figure, with the 2.5th and 97.5th percentiles of that mean over `resamples` bootstrap resamples of
 * the clusters (tasks, or repositories with all their tasks).
 */
export function reliabilityCurve(
  tasks: readonly TaskSamples[],
  unit: ClusterUnit = 'task',
  resamples = RESAMPLES,
  seed = RESAMPLING_SEED,
): CurvePoint[] {
  return unit === 'task'
    ? curveOfKinds(sampleKindsOf(tasks), resamples, seed)
    : curveOfRepos(repoClustersOf(tasks), resamples, seed);
}

/** reliabilityCurve of clusters given by their sample kinds: each cluster is drawn with all its tasks. */
function curveOfRepos(
  clusters: readonly (readonly SampleKind[])[],
  resamples = RESAMPLES,
  seed = RESAMPLING_SEED,
): CurvePoint[] {
  const kinds = clusters.flat();
  if (!kinds.length) return [];
  const largestK = kinds.reduce((least, k) => Math.min(least, k.n), Infinity);
  const figures = figuresUpTo(largestK);
  const drawn = clusters.map((cluster) => {
    const sums = new Float64Array(2 * largestK);
    for (const k of cluster) figures(k.n, k.c).forEach((v, j) => (sums[j]! += k.tasks * v));
    return { count: 1, weight: tasksOf(cluster), sums };
  });
  return curveOfClusters(drawn, largestK, resamples, seed, sameN(kinds) ? rateOfClusters(clusters).ci : null);
}

/** Whether every task has the same number of samples: then pass@1 and pass^1 are the mean resolve rate itself. */
const sameN = (kinds: readonly SampleKind[]) => kinds.every((k) => k.n === kinds[0]!.n);

/** A task's figures, which depend only on its (n, c): pass@1…pass@K, then pass^1…pass^K, worked out once for each. */
function figuresUpTo(largestK: number): (n: number, c: number) => Float64Array {
  const ks = Array.from({ length: largestK }, (_, i) => i + 1);
  const figuresOf = new Map<number, Float64Array>();
  return (n, c) => {
    const key = n * 2 ** 26 + c;
    let found = figuresOf.get(key);
    if (!found)
      figuresOf.set(
        key,
        (found = Float64Array.from([...ks.map((k) => passAtK(n, c, k)), ...ks.map((k) => passHatK(n, c, k))])),
      );
    return found;
  };
}

/** reliabilityCurve with clusters = tasks: the tasks of a kind are alike, so each kind is drawn as one. */
function curveOfKinds(kinds: readonly SampleKind[], resamples = RESAMPLES, seed = RESAMPLING_SEED): CurvePoint[] {
  if (!kinds.length) return [];
  const largestK = kinds[0]!.n;
  const figures = figuresUpTo(largestK);
  const alike = kinds.map((k) => ({ count: k.tasks, weight: 1, sums: figures(k.n, k.c) }));
  return curveOfClusters(alike, largestK, resamples, seed, sameN(kinds) ? rateOfKinds(kinds).ci : null);
}

/**
 * The curve's points with their bootstrap intervals; at k = 1, `rateCi` where given: where every task has the same
 * n, pass@1 and pass^1 are the mean resolve rate, so they carry its interval (Wilson's with one sample each, else
 * the clustered one), one figure with one interval on the card and in `/stats`, rather than a percentile bootstrap
 * (which, over few successes, is the narrower: 1 of 90 samples over 30 tasks, 0–3.3% against the rate's 0.2–6.0%).
 * With one sample of every task, k = 1 is the whole curve and nothing is resampled.
 */
function curveOfClusters(
  kinds: readonly Kind[],
  largestK: number,
  resamples: number,
  seed: number,
  rateCi: Interval | null,
): CurvePoint[] {
  const tasks = kinds.reduce((sum, k) => sum + k.count * k.weight, 0);
  const sums = new Float64Array(2 * largestK);
  for (const kind of kinds) for (let j = 0; j < sums.length; j++) sums[j]! += kind.count * kind.sums[j]!;
  const clusters = kinds.reduce((sum, k) => sum + k.count, 0);
  // Where every cluster has the same figure, every resample's mean is that figure: the bootstrap shows no spread,
  // and each cluster counts as one run of Wilson's interval instead of an interval of width 0.
  const bootstrapped =
    rateCi && largestK === 1
      ? []
      : bootstrapIntervals(kinds, resamples, seed).map(([low, high], j) =>
          high - low < WIDTH_OF_NONE
            ? wilsonInterval((sums[j]! / tasks) * clusters, clusters)!
            : ([low, high] as Interval),
        );
  const intervals = Array.from({ length: 2 * largestK }, (_, j) =>
    rateCi && j % largestK === 0 ? rateCi : bootstrapped[j]!,
  );
  return Array.from({ length: largestK }, (_, i) => ({
    k: i + 1,
    passAt: sums[i]! / tasks,
    passAtCi: intervals[i]!,
    passHat: sums[largestK + i]! / tasks,
    passHatCi: intervals[largestK + i]!,
    tasks,
  }));
}

/** A bootstrap interval narrower than this is one figure said with rounding: no spread. */
const WIDTH_OF_NONE = 1e-9;

/**
 * Clusters that are alike: `count` of them, each of `weight` tasks whose figures sum to `sums`. Clustered by task,
 * a kind is every task of one (n, c): at 5 samples a task there are at most 21, however many tasks. A repository
 * is a kind of its own.
 */
interface Kind {
  count: number;
  weight: number;
  sums: Float64Array;
}

/**
 * Percentile intervals of the mean of each figure over bootstrap resamples of the clusters. A resample only
 * counts how often each cluster is drawn, so it is one multinomial draw over the kinds, as conditional
 * binomials: the cost is per kind, not per task.
 */
function bootstrapIntervals(kinds: readonly Kind[], resamples: number, seed: number): Interval[] {
  const width = kinds[0]!.sums.length;
  const clusters = kinds.reduce((s, k) => s + k.count, 0);
  const binomial = binomialSampler(clusters, seeded(seed));
  // Each kind is drawn with the same q in every resample: its share of the kinds not drawn yet.
  let before = clusters;
  const draws = kinds.map((kind) => {
    const q = kind.count / before;
    before -= kind.count;
    return binomial.withProbability(q);
  });
  const drawn = Array.from({ length: width }, () => new Float64Array(resamples));
  const total = new Float64Array(width);
  for (let b = 0; b < resamples; b++) {
    let left = clusters;
    let leftInKinds = clusters;
    let weight = 0;
    total.fill(0);
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[i]!;
      const x = kind.count === leftInKinds ? left : draws[i]!(left);
      left -= x;
      leftInKinds -= kind.count;
      if (!x) continue;
      weight += x * kind.weight;
      for (let j = 0; j < width; j++) total[j]! += x * kind.sums[j]!;
    }
    for (let j = 0; j < width; j++) drawn[j]![b] = total[j]! / weight;
  }
  return drawn.map((means) => [quantileOfKnown(means, 0.025), quantileOfKnown(means, 0.975)]);
}

export const fewClustersWarning = (clusters: number, unit: ClusterUnit) =>
  `only ${clusters} ${unit === 'repo' ? 'repositories' : 'tasks'}: a standard error clustered over fewer than ` +
  `${MIN_CLUSTERS} is itself uncertain`;

/** What `/stats` adds to a group's rate, count and interval (`GET …/stats`: `samples`). */
export type SamplesFigure = Omit<Reliability, 'samples' | 'resolved' | 'rate' | 'ci'>;

/** A Reliability as the rate's interval and the SamplesFigure beside it. */
export function samplesFigure({ samples: _, resolved: __, rate: ___, ci, ...figure }: Reliability) {
  return { ci, figure: figure satisfies SamplesFigure };
}

/** Everything a configuration's repeated samples say, on one outcome. */
export function reliabilityOf(tasks: readonly TaskSamples[], unit: ClusterUnit = 'task'): Reliability {
  return unit === 'task' ? reliabilityOfKinds(sampleKindsOf(tasks)) : reliabilityOfRepos(repoClustersOf(tasks));
}

/**
 * reliabilityOf clustered by repository, from each cluster's sample kinds, clusters in the order of their smallest
 * task id (repoClustersOf): what the engine counts.
 */
export function reliabilityOfRepos(clusters: readonly (readonly SampleKind[])[]): Reliability {
  const rate = rateOfClusters(clusters);
  const kinds = sampleKindsOf(clusters.flat());
  return {
    ...rate,
    cluster: 'repo',
    tasks: tasksOf(kinds),
    samplesPerTask: spreadOfKinds(kinds),
    consistency: consistencyOfKinds(kinds),
    curve: curveOfRepos(clusters),
    warning: rate.samples > 0 && rate.clusters < MIN_CLUSTERS ? fewClustersWarning(rate.clusters, 'repo') : null,
  };
}

/** reliabilityOf clustered by task, from how many tasks have each (n, c) (sampleKindsOf): what the engine counts. */
export function reliabilityOfKinds(counts: Iterable<{ n: number; c: number; tasks?: number }>): Reliability {
  const kinds = sampleKindsOf(counts);
  const rate = rateOfKinds(kinds);
  const spread = spreadOfKinds(kinds);
  const repeated = spread !== null && spread.max > 1;
  return {
    ...rate,
    cluster: 'task',
    tasks: rate.clusters,
    samplesPerTask: spread,
    consistency: consistencyOfKinds(kinds),
    curve: curveOfKinds(kinds),
    warning: repeated && rate.clusters < MIN_CLUSTERS ? fewClustersWarning(rate.clusters, 'task') : null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Paired comparison on per-task mean outcomes

export interface TaskMeansComparison {
  /** Tasks both configurations have a result on, and the clusters they fall in. */
  pairs: number;
  clusters: number;
  /** The mean over those tasks of each side's per-task mean outcome c/n. */
  meanA: number | null;
  meanB: number | null;
  /** meanA − meanB: the mean over tasks of d = c_A/n_A − c_B/n_B. */
  difference: number | null;
  /**
   * √(G/(G−1) · Σ_g (Σ_{i∈g} (d_i − d̄))²) / N over G clusters: the standard error of the mean of paired differences
   * (the interval is not d̄ ± z·se, which is of width 0 where every cluster has the same difference).
   */
  se: number | null;
  /**
   * Each side's clustered interval combined by Newcombe's method 10 with the clusters' correlation (see
   * compareTaskMeans): never of width 0.
   */
  ci: Interval | null;
  /** Two-sided sign-flip permutation p of the summed differences (signs flipped per cluster). */
  permutationP: number | null;
  /** Whether permutationP counted every sign pattern, or RESAMPLES random ones. */
  exact: boolean;
}

/** Shared tasks alike on both sides: `tasks` of them with nA samples of A, cA resolved, and nB of B, cB resolved. */
export interface PairedKind {
  nA: number;
  cA: number;
  nB: number;
  cB: number;
  tasks: number;
}

/** One shared task's samples, or `tasks` shared tasks alike. */
export type PairedTasks = Omit<PairedKind, 'tasks'> & { tasks?: number };

/**
 * How many shared tasks have each (nA, cA, nB, cB), in that order: all a comparison clustered by task depends on,
 * in the order it sums them. Kinds counted elsewhere (an engine's rows) may come split or in any order.
 */
export function pairedKindsOf(tasks: Iterable<PairedTasks>): PairedKind[] {
  const byKey = new Map<string, PairedKind>();
  for (const { nA, cA, nB, cB, tasks: alike = 1 } of tasks) {
    if (nA <= 0 || nB <= 0 || alike <= 0) continue;
    const key = `${nA} ${cA} ${nB} ${cB}`;
    const kind = byKey.get(key);
    if (kind) kind.tasks += alike;
    else byKey.set(key, { nA, cA, nB, cB, tasks: alike });
  }
  return [...byKey.values()].sort((x, y) => x.nA - y.nA || x.cA - y.cA || x.nB - y.nB || x.cB - y.cB);
}

/**
 * `count` clusters alike: each of `tasks` shared tasks, summing A's and B's per-task means and their differences,
 * and each side's 1/n over them (a per-task mean's step).
 */
interface ClusterClass {
  count: number;
  tasks: number;
  sumA: number;
  sumB: number;
  sumD: number;
  stepsA: number;
  stepsB: number;
}

/**
 * A against B over the tasks both have a result on. The interval of the difference of the per-task means takes each
 * side's mean of per-task means with its clustered interval (Wilson's at the effective sample size, as clusteredRate
 * gives a rate, and equal to it where every task has the same n) and combines the two as Newcombe's method 10 combines
 * Wilson intervals, with φ the correlation of the clusters' summed residuals, less half the mean step of a product
 * of two per-task means as method 10 corrects for continuity. Where every task has one sample on each side it is
 * method 10, to rounding; where every cluster has the same difference, or every sample agrees, it still has the
 * width each side's sampling leaves. Under no difference, each cluster's summed difference is as
 * likely negative as positive, so p is the share of sign patterns whose |Σ| is at least the observed one: over
 * all 2^N patterns of the N non-zero clusters when N ≤ EXACT_SIGN_FLIPS_UP_TO, else (1 + hits)/(1 + RESAMPLES)
 * over random patterns from the fixed seed (Phipson & Smyth 2010). Clustered by task, it is compareKindMeans of
 * the shared tasks' paired kinds.
 */
export function compareTaskMeans(
  a: readonly TaskSamples[],
  b: readonly TaskSamples[],
  unit: ClusterUnit = 'task',
  z = Z95,
): TaskMeansComparison {
  const ofB = new Map(counted(b).map((t) => [t.task, t]));
  const shared = counted(a).filter((t) => ofB.has(t.task));
  if (unit === 'task')
    return compareKindMeans(
      shared.map((t) => ({ nA: t.n, cA: t.c, nB: ofB.get(t.task)!.n, cB: ofB.get(t.task)!.c })),
      z,
    );
  return compareRepoMeans(
    byFirstTask(
      shared.map((t) => ({
        task: t.task,
        key: clusterKey(t.task, t.repo),
        item: { nA: t.n, cA: t.c, nB: ofB.get(t.task)!.n, cB: ofB.get(t.task)!.c },
      })),
    ),
    z,
  );
}

/**
 * compareTaskMeans clustered by repository, from each cluster's shared tasks by paired kind, clusters in the order
 * of their smallest shared task id: what the engine counts.
 */
export function compareRepoMeans(clusters: readonly (readonly PairedTasks[])[], z = Z95): TaskMeansComparison {
  return compareClusters(
    clusters.map((cluster) => {
      const summed = { count: 1, tasks: 0, sumA: 0, sumB: 0, sumD: 0, stepsA: 0, stepsB: 0 };
      for (const { nA, cA, nB, cB, tasks } of pairedKindsOf(cluster)) {
        summed.tasks += tasks;
        summed.sumA += (tasks * cA) / nA;
        summed.sumB += (tasks * cB) / nB;
        summed.sumD += tasks * (cA / nA - cB / nB);
        summed.stepsA += tasks / nA;
        summed.stepsB += tasks / nB;
      }
      return summed;
    }),
    z,
  );
}

/** compareTaskMeans clustered by task, from the shared tasks' paired kinds alone: each task is a cluster. */
export const compareKindMeans = (kinds: Iterable<PairedTasks>, z = Z95): TaskMeansComparison =>
  compareClusters(
    pairedKindsOf(kinds).map(({ nA, cA, nB, cB, tasks }) => ({
      count: tasks,
      tasks: 1,
      sumA: cA / nA,
      sumB: cB / nB,
      sumD: cA / nA - cB / nB,
      stepsA: 1 / nA,
      stepsB: 1 / nB,
    })),
    z,
  );

function compareClusters(classes: readonly ClusterClass[], z: number): TaskMeansComparison {
  let [pairs, clusters, sumA, sumB, sumD, stepsA, stepsB] = [0, 0, 0, 0, 0, 0, 0];
  for (const k of classes) {
    [pairs, clusters] = [pairs + k.count * k.tasks, clusters + k.count];
    [sumA, sumB, sumD] = [sumA + k.count * k.sumA, sumB + k.count * k.sumB, sumD + k.count * k.sumD];
    [stepsA, stepsB] = [stepsA + k.count * k.stepsA, stepsB + k.count * k.stepsB];
  }
  const none = { pairs, clusters, difference: null, se: null, ci: null, permutationP: null, exact: false };
  if (!pairs) return { ...none, meanA: null, meanB: null };
  const [meanA, meanB, difference] = [sumA / pairs, sumB / pairs, sumD / pairs];
  // Each cluster's residuals: of the difference, and of each side's mean. Sums of fractions such as 1/3 leave
  // residuals of about 1e-17 where every cluster's mean is the side's: a side whose residuals' root mean square is
  // below 1e-12 a task has no spread (its interval is the same either way; its φ would be noise).
  let [squares, squaresA, squaresB, cross, scale] = [0, 0, 0, 0, 0];
  for (const k of classes) {
    const [a, b] = [k.sumA - k.tasks * meanA, k.sumB - k.tasks * meanB];
    squares += k.count * (k.sumD - k.tasks * difference) ** 2;
    [squaresA, squaresB, cross] = [squaresA + k.count * a * a, squaresB + k.count * b * b, cross + k.count * a * b];
    scale += k.count * k.tasks * k.tasks;
  }
  const spreadless = (sum: number) => sum <= 1e-24 * scale;
  const { p, exact } = signFlipP(classes);
  const figures = { pairs, clusters, meanA, meanB, difference, permutationP: p, exact };
  if (clusters < 2) return { ...figures, se: null, ci: null };
  // A side's effective sample size is at most N²/Σ(1/n), what N tasks of one rate are worth (Σn where every n is
  // the same); the continuity step is ½ · each side's mean 1/n (method 10's ½ with one sample each).
  const side = (mean: number, squares: number, steps: number) =>
    clusteredInterval(mean, spreadless(squares) ? 0 : Math.sqrt(squares) / pairs, (pairs * pairs) / steps, clusters, z);
  const step = (0.5 * stepsA * stepsB) / (pairs * pairs);
  const phi =
    spreadless(squaresA) || spreadless(squaresB)
      ? 0
      : (cross > step ? cross - step : cross < 0 ? cross : 0) / Math.sqrt(squaresA * squaresB);
  return {
    ...figures,
    se: Math.sqrt((clusters / (clusters - 1)) * squares) / pairs,
    ci: differenceInterval(meanA, side(meanA, squaresA, stepsA), meanB, side(meanB, squaresB, stepsB), phi),
  };
}

/** The two-sided sign-flip p of the clusters' summed differences (see compareTaskMeans). */
function signFlipP(
  classes: readonly ClusterClass[],
  resamples = RESAMPLES,
  seed = RESAMPLING_SEED,
): { p: number; exact: boolean } {
  const differing = classes.filter((k) => k.sumD !== 0);
  const observed = Math.abs(differing.reduce((s, k) => s + k.count * k.sumD, 0));
  // Sums of the same differences in another order may differ in the last bits.
  const atLeast = (sum: number) => Math.abs(sum) >= observed - 1e-9 * (1 + observed);
  const n = differing.reduce((s, k) => s + k.count, 0);
  if (n <= EXACT_SIGN_FLIPS_UP_TO) {
    const signed = differing.flatMap((k) => Array<number>(k.count).fill(k.sumD));
    let hits = 0;
    for (let pattern = 0; pattern < 1 << n; pattern++) {
      let sum = 0;
      signed.forEach((u, i) => (sum += pattern & (1 << i) ? -u : u));
      if (atLeast(sum)) hits++;
    }
    return { p: hits / (1 << n), exact: true };
  }
  // Clusters of the same size are one class, drawn in size order; flipping m of them flips Bin(m, ½) of them.
  const bySize = new Map<number, number>();
  for (const k of differing) bySize.set(Math.abs(k.sumD), (bySize.get(Math.abs(k.sumD)) ?? 0) + k.count);
  const sizes = [...bySize].sort(([x], [y]) => x - y);
  const binomial = binomialSampler(Math.max(...bySize.values()), seeded(seed));
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (const [size, m] of sizes) sum += size * (m - 2 * binomial(m, 0.5));
    if (atLeast(sum)) hits++;
  }
  return { p: (1 + hits) / (1 + resamples), exact: false };
}
