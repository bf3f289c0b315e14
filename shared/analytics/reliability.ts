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
// Clusters are tasks unless the reader clusters by repository. Resampling uses a fixed seed, so a figure computed
// twice (server and page) is the same figure. Browser-safe; plain arithmetic on counts.
import { quantileOfKnown } from './quantiles.ts';
import { binomialSampler, seeded } from './seeded-random.ts';
import { wilsonInterval, Z95, type Interval } from './statistics.ts';

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

/** pass@k of one task, 1 − C(n−c, k)/C(n, k), as the product Chen et al. give for numerical stability. */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
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

export function samplesPerTask(tasks: readonly TaskSamples[]): SampleSpread | null {
  const counts = counted(tasks)
    .map((t) => t.n)
    .sort((a, b) => a - b);
  if (!counts.length) return null;
  const mid = counts.length >> 1;
  const median = counts.length % 2 ? counts[mid]! : (counts[mid - 1]! + counts[mid]!) / 2;
  return { min: counts[0]!, median, max: counts.at(-1)! };
}

export function consistencyOf(tasks: readonly TaskSamples[]): Consistency {
  const out = { all: 0, some: 0, none: 0 };
  for (const { n, c } of counted(tasks)) out[c === n ? 'all' : c === 0 ? 'none' : 'some']++;
  return out;
}

/** Each task's cluster index (tasks by position, or their repositories), and how many clusters there are. */
function clustersOf(tasks: readonly TaskSamples[], unit: ClusterUnit): { of: Int32Array; count: number } {
  if (unit === 'task') return { of: Int32Array.from(tasks, (_, i) => i), count: tasks.length };
  const index = new Map<string, number>();
  const of = Int32Array.from(tasks, (t) => {
    const key = t.repo == null ? `task ${t.task}` : `repo ${t.repo}`;
    let g = index.get(key);
    if (g === undefined) index.set(key, (g = index.size));
    return g;
  });
  return { of, count: index.size };
}

/**
 * The mean over all samples, p = Σc / Σn, and its clustered standard error √(Σ_g (Σ_{i∈g} (c_i − n_i·p))²) / Σn:
 * the sum over clusters of the squared sum of each sample's residual (Miller 2024, eq. 4). With one sample per
 * task clustered by task it is √(p(1−p)/n), and the interval is Wilson's, as for any rate.
 */
export function clusteredRate(tasks: readonly TaskSamples[], unit: ClusterUnit = 'task', z = Z95): ClusteredRate {
  const tasksCounted = counted(tasks);
  const { of, count } = clustersOf(tasksCounted, unit);
  let [samples, resolved] = [0, 0];
  for (const t of tasksCounted) [samples, resolved] = [samples + t.n, resolved + t.c];
  const oneEach = unit === 'task' && tasksCounted.every((t) => t.n === 1);
  const interval = oneEach ? 'wilson' : 'clustered';
  if (!samples) return { samples, resolved, rate: null, se: null, ci: null, interval, clusters: count };
  const rate = resolved / samples;
  const residual = new Float64Array(count);
  tasksCounted.forEach((t, i) => (residual[of[i]!]! += t.c - t.n * rate));
  const se = Math.sqrt(residual.reduce((s, r) => s + r * r, 0)) / samples;
  const ci: Interval = oneEach
    ? wilsonInterval(resolved, samples, z)!
    : [Math.max(0, rate - z * se), Math.min(1, rate + z * se)];
  return { samples, resolved, rate, se, ci, interval, clusters: count };
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
  const tasksCounted = counted(tasks);
  if (!tasksCounted.length) return [];
  const largestK = tasksCounted.reduce((least, t) => Math.min(least, t.n), Infinity);
  const ks = Array.from({ length: largestK }, (_, i) => i + 1);
  // A task's figures depend only on its (n, c): pass@1…pass@K, then pass^1…pass^K, worked out once for each.
  const figuresOf = new Map<number, Float64Array>();
  const figures = (n: number, c: number) => {
    const key = n * 2 ** 26 + c;
    let found = figuresOf.get(key);
    if (!found)
      figuresOf.set(
        key,
        (found = Float64Array.from([...ks.map((k) => passAtK(n, c, k)), ...ks.map((k) => passHatK(n, c, k))])),
      );
    return found;
  };
  const kinds = kindsOf(tasksCounted, unit, figures, 2 * largestK);
  const sums = new Float64Array(2 * largestK);
  for (const kind of kinds) for (let j = 0; j < sums.length; j++) sums[j]! += kind.count * kind.sums[j]!;
  const intervals = bootstrapIntervals(kinds, resamples, seed);
  return ks.map((k, i) => ({
    k,
    passAt: sums[i]! / tasksCounted.length,
    passAtCi: intervals[i]!,
    passHat: sums[largestK + i]! / tasksCounted.length,
    passHatCi: intervals[largestK + i]!,
    tasks: tasksCounted.length,
  }));
}

/** Clusters that are alike: `count` of them, each of `weight` tasks whose figures sum to `sums`. */
interface Kind {
  count: number;
  weight: number;
  sums: Float64Array;
}

/**
 * The clusters as kinds. A task that is its own cluster is alike every task of the same (n, c): at 5 samples a
 * task there are at most 21 kinds, however many tasks. A repository is a kind of its own.
 */
function kindsOf(
  tasks: readonly TaskSamples[],
  unit: ClusterUnit,
  figures: (n: number, c: number) => Float64Array,
  width: number,
): Kind[] {
  if (unit === 'task') {
    const byFigures = new Map<Float64Array, Kind>();
    for (const t of tasks) {
      const sums = figures(t.n, t.c);
      const kind = byFigures.get(sums);
      if (kind) kind.count++;
      else byFigures.set(sums, { count: 1, weight: 1, sums });
    }
    return [...byFigures.values()];
  }
  const { of, count } = clustersOf(tasks, unit);
  const kinds = Array.from({ length: count }, () => ({ count: 1, weight: 0, sums: new Float64Array(width) }));
  tasks.forEach((t, i) => {
    const kind = kinds[of[i]!]!;
    kind.weight++;
    figures(t.n, t.c).forEach((v, j) => (kind.sums[j]! += v));
  });
  return kinds;
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
  const rate = clusteredRate(tasks, unit);
  const spread = samplesPerTask(tasks);
  const repeated = unit === 'repo' || (spread !== null && spread.max > 1);
  return {
    ...rate,
    cluster: unit,
    tasks: counted(tasks).length,
    samplesPerTask: spread,
    consistency: consistencyOf(tasks),
    curve: reliabilityCurve(tasks, unit),
    warning:
      repeated && rate.samples > 0 && rate.clusters < MIN_CLUSTERS ? fewClustersWarning(rate.clusters, unit) : null,
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
  /** √(G/(G−1) · Σ_g (Σ_{i∈g} (d_i − d̄))²) / N over G clusters: the standard error of the mean of paired differences. */
  se: number | null;
  /** difference ± z·se, within [−1, 1]. */
  ci: Interval | null;
  /** Two-sided sign-flip permutation p of the summed differences (signs flipped per cluster). */
  permutationP: number | null;
  /** Whether permutationP counted every sign pattern, or RESAMPLES random ones. */
  exact: boolean;
}

/**
 * A against B over the tasks both have a result on. Under no difference, each cluster's summed difference is as
 * likely negative as positive, so p is the share of sign patterns whose |Σ| is at least the observed one: over
 * all 2^N patterns of the N non-zero clusters when N ≤ EXACT_SIGN_FLIPS_UP_TO, else (1 + hits)/(1 + RESAMPLES)
 * over random patterns from the fixed seed (Phipson & Smyth 2010).
 */
export function compareTaskMeans(
  a: readonly TaskSamples[],
  b: readonly TaskSamples[],
  unit: ClusterUnit = 'task',
  z = Z95,
): TaskMeansComparison {
  const ofB = new Map(counted(b).map((t) => [t.task, t]));
  const shared = counted(a).filter((t) => ofB.has(t.task));
  const d = shared.map((t) => t.c / t.n - ofB.get(t.task)!.c / ofB.get(t.task)!.n);
  const { of, count } = clustersOf(shared, unit);
  const pairs = shared.length;
  const none = { pairs, clusters: count, difference: null, se: null, ci: null, permutationP: null, exact: false };
  if (!pairs) return { ...none, meanA: null, meanB: null };
  const meanA = shared.reduce((s, t) => s + t.c / t.n, 0) / pairs;
  const meanB = shared.reduce((s, t) => s + ofB.get(t.task)!.c / ofB.get(t.task)!.n, 0) / pairs;
  const difference = d.reduce((s, x) => s + x, 0) / pairs;
  const residual = new Float64Array(count);
  const clusterSum = new Float64Array(count);
  d.forEach((x, i) => {
    residual[of[i]!]! += x - difference;
    clusterSum[of[i]!]! += x;
  });
  const se = count > 1 ? Math.sqrt((count / (count - 1)) * residual.reduce((s, r) => s + r * r, 0)) / pairs : null;
  const ci: Interval | null =
    se === null ? null : [Math.max(-1, difference - z * se), Math.min(1, difference + z * se)];
  const { p, exact } = signFlipP(clusterSum);
  return { pairs, clusters: count, meanA, meanB, difference, se, ci, permutationP: p, exact };
}

/** The two-sided sign-flip p of Σ u (see compareTaskMeans). */
function signFlipP(units: Float64Array, resamples = RESAMPLES, seed = RESAMPLING_SEED): { p: number; exact: boolean } {
  const sizes = [...units].filter((u) => u !== 0).map(Math.abs);
  const observed = Math.abs(sizes.length ? units.reduce((s, u) => s + u, 0) : 0);
  // Sums of the same differences in another order may differ in the last bits.
  const atLeast = (sum: number) => Math.abs(sum) >= observed - 1e-9 * (1 + observed);
  if (sizes.length <= EXACT_SIGN_FLIPS_UP_TO) {
    const signed = [...units].filter((u) => u !== 0);
    let hits = 0;
    for (let pattern = 0; pattern < 1 << signed.length; pattern++) {
      let sum = 0;
      signed.forEach((u, i) => (sum += pattern & (1 << i) ? -u : u));
      if (atLeast(sum)) hits++;
    }
    return { p: hits / (1 << signed.length), exact: true };
  }
  // Clusters of the same size are one class; flipping m of them flips Bin(m, ½) of them.
  const classes = new Map<number, number>();
  for (const s of sizes) classes.set(s, (classes.get(s) ?? 0) + 1);
  const binomial = binomialSampler(Math.max(...classes.values()), seeded(seed));
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (const [size, m] of classes) sum += size * (m - 2 * binomial(m, 0.5));
    if (atLeast(sum)) hits++;
  }
  return { p: (1 + hits) / (1 + resamples), exact: false };
}
