// Repeated samples (docs/contract.md §6 "Reliability") against figures worked by hand for a campaign of 4 tasks × 3
// samples, two configurations:
//
//   task  repo      A resolved  B resolved
//   t1    acme/x    3 of 3      2 of 3
//   t2    acme/x    2 of 3      1 of 3
//   t3    acme/y    1 of 3      0 of 3
//   t4    acme/y    0 of 3      0 of 3
//
// and the bootstrap intervals against the exact bootstrap distribution, all 4^4 resamples of 4 tasks.
import { describe, expect, it } from '@jest/globals';
import {
  clusteredRate,
  compareTaskMeans,
  consistencyOf,
  pairedKindsOf,
  passAtK,
  passHatK,
  reliabilityCurve,
  reliabilityOf,
  reliabilityOfKinds,
  samplesPerTask,
  type TaskSamples,
} from '#analytics/reliability.ts';
import { quantileOfKnown } from '#analytics/quantiles.ts';
import { binomialSampler, seeded } from '#analytics/seeded-random.ts';
import { figuresOfKinds, pairFigures } from '#analytics/compare-groups.ts';
import type { SampleCounts } from '#analytics/task-samples.ts';
import {
  binomialLowerTail,
  differenceInterval,
  pairedComparison,
  proportion,
  wilsonInterval,
} from '#analytics/statistics.ts';
import { describeComparison } from '#analytics/comparison-sentence.ts';

const campaign = (resolved: number[], samples = 3): TaskSamples[] =>
  resolved.map((c, i) => ({ task: `t${i + 1}`, n: samples, c, repo: i < 2 ? 'acme/x' : 'acme/y' }));
const near = (x: number) => expect.closeTo(x, 12);
const A = campaign([3, 2, 1, 0]);
const B = campaign([2, 1, 0, 0]);

describe('pass@k and pass^k of one task', () => {
  it('are 1 − C(n−c,k)/C(n,k) and C(c,k)/C(n,k)', () => {
    // n = 3, c = 1: pass@2 = 1 − C(2,2)/C(3,2) = 2/3; pass^2 = C(1,2)/3 = 0. c = 2: pass@2 = 1, pass^2 = 1/3.
    expect(passAtK(3, 1, 2)).toBeCloseTo(2 / 3, 12);
    expect(passHatK(3, 1, 2)).toBe(0);
    expect(passAtK(3, 2, 2)).toBe(1);
    expect(passHatK(3, 2, 2)).toBeCloseTo(1 / 3, 12);
    // n = 10, c = 3, k = 5: 1 − C(7,5)/C(10,5) = 1 − 21/252; C(3,5) = 0.
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    expect(passHatK(10, 3, 5)).toBe(0);
    // k = 1: both are c/n.
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passHatK(5, 2, 1)).toBeCloseTo(0.4, 12);
  });

  it('are the same number at k = 1, to the last bit, so their intervals are one', () => {
    for (let n = 1; n <= 12; n++) for (let c = 0; c <= n; c++) expect(passAtK(n, c, 1)).toBe(passHatK(n, c, 1));
    const tasks = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 5, c: (i * 7) % 6 }));
    const [first] = reliabilityCurve(tasks);
    expect(first!.passAtCi).toEqual(first!.passHatCi);
  });
});

describe('a configuration with 3 samples of each of 4 tasks', () => {
  it('counts samples per task, and each task as all, some or none resolved', () => {
    expect(samplesPerTask(A)).toEqual({ min: 3, median: 3, max: 3 });
    expect(samplesPerTask([...A.slice(0, 2), { task: 't3', n: 2, c: 1 }, { task: 't4', n: 6, c: 0 }])).toEqual({
      min: 2,
      median: 3,
      max: 6,
    });
    expect(consistencyOf(A)).toEqual({ all: 1, some: 2, none: 1 });
    expect(consistencyOf(B)).toEqual({ all: 0, some: 2, none: 2 });
  });

  it('rates all samples with a standard error clustered by task', () => {
    // A: p = 6/12. Residuals summed per task: 3·½, 2·½ − ½, ½ − 2·½, −3·½ = 1.5, 0.5, −0.5, −1.5;
    // squares 2.25 + 0.25 + 0.25 + 2.25 = 5; se = √5 / 12 = 0.186339. The interval is Wilson's at the effective
    // n = p(1−p)/se² = 0.25 · 144 / 5 = 7.2: (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n) with z = 1.959964,
    // (0.5 + 0.266768 ± 1.959964·√(0.034722 + 0.018526)) / 1.533536 = 0.5 ± 0.294920.
    const a = clusteredRate(A);
    expect(a).toMatchObject({ samples: 12, resolved: 6, rate: 0.5, interval: 'clustered', clusters: 4 });
    expect(a.se).toBeCloseTo(Math.sqrt(5) / 12, 12);
    expect(a.ci![0]).toBeCloseTo(0.20508, 5);
    expect(a.ci![1]).toBeCloseTo(0.79492, 5);
    // B: p = 3/12; residuals 1.25, 0.25, −0.75, −0.75; squares sum to 2.75; effective n = 0.1875 · 144 / 2.75 =
    // 9.818182, Wilson's at p = 0.25 over it: 0.080155 to 0.560459.
    const b = clusteredRate(B);
    expect(b.se).toBeCloseTo(Math.sqrt(2.75) / 12, 12);
    expect(b.ci![0]).toBeCloseTo(0.080155, 5);
    expect(b.ci![1]).toBeCloseTo(0.560459, 5);
  });

  it('never gives an interval of width 0 where every sample agrees: each task counts as one run', () => {
    // 30 tasks × 3 samples, none resolved: se = 0, so the effective n is the 30 tasks, Wilson's 0 of 30.
    const none = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 3, c: 0 }));
    expect(clusteredRate(none).ci).toEqual(proportion(0, 30).ci);
    const all = none.map((t) => ({ ...t, c: 3 }));
    expect(clusteredRate(all).ci).toEqual(proportion(30, 30).ci);
    // The bootstrap of pass@k and pass^k has no spread either: each task one run, Wilson's again.
    for (const point of reliabilityCurve(none)) {
      expect(point.passAtCi).toEqual(proportion(0, 30).ci);
      expect(point.passHatCi).toEqual(proportion(0, 30).ci);
    }
    expect(proportion(0, 30).ci![1]).toBeCloseTo(0.113513, 6);
  });

  it('reads a spread of exactly 0 in whole numbers: clusters all at one rate count every sample', () => {
    // 1 of 49 and 1 of 3 in each of two tasks: no spread between tasks either way (in floating point 1 − 49·(1/49)
    // is not 0), so Wilson's over the samples.
    const twice = (n: number) => [0, 1].map((i) => ({ task: `t${i}`, n, c: 1 }));
    expect(clusteredRate(twice(49)).ci).toEqual(proportion(2, 98).ci);
    expect(clusteredRate(twice(3)).ci).toEqual(proportion(2, 6).ci);
    const third = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 3, c: 1 }));
    expect(clusteredRate(third).ci).toEqual(proportion(30, 90).ci);
    // One task more resolved: a spread, and an effective n of at least the 30 tasks.
    const [low] = clusteredRate([{ ...third[0]!, c: 2 }, ...third.slice(1)]).ci!;
    expect(low).toBeLessThanOrEqual(proportion(31, 90).ci![0]);
  });

  it('counts one cluster as one run: a single cluster cannot measure a spread', () => {
    // 10 tasks all 3 of 3 and 20 none of 3, all in one repository: p = 1/3, and clustered by repository its one
    // residual is 0 by construction. Wilson's at the one cluster, not over the 90 samples (0.245–0.436), which
    // would be narrower than clustering by task (19.2%–51.2%).
    const tasks = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 3, c: i < 10 ? 3 : 0, repo: 'acme/x' }));
    const byRepo = clusteredRate(tasks, 'repo');
    expect(byRepo.clusters).toBe(1);
    expect(byRepo.ci).toEqual(wilsonInterval(1 / 3, 1));
    const byTask = clusteredRate(tasks).ci!;
    expect(byRepo.ci![0]).toBeLessThan(byTask[0]);
    expect(byRepo.ci![1]).toBeGreaterThan(byTask[1]);
    // One task of 5 samples, clustered by task, as one task of one sample at its rate.
    expect(clusteredRate([{ task: 't', n: 5, c: 2 }]).ci).toEqual(wilsonInterval(0.4, 1));
  });

  it('clusters by repository when asked: 2 clusters, and a warning', () => {
    // Residuals per repository: 1.5 + 0.5 = 2 and −2; se = √8 / 12.
    const a = reliabilityOf(A, 'repo');
    expect(a.clusters).toBe(2);
    expect(a.se).toBeCloseTo(Math.sqrt(8) / 12, 12);
    expect(a.warning).toMatch(/only 2 repositories.*fewer than 30/);
    expect(reliabilityOf(A, 'task').warning).toMatch(/only 4 tasks/);
  });

  it('gives pass@k and pass^k for k = 1 to 3, averaged over the 4 tasks', () => {
    // A, per task (t1…t4): pass@2 = 1, 1, 2/3, 0; pass@3 = 1, 1, 1, 0; pass^2 = 1, 1/3, 0, 0; pass^3 = 1, 0, 0, 0.
    const a = reliabilityCurve(A);
    expect(a.map((p) => p.k)).toEqual([1, 2, 3]);
    expect(a.map((p) => p.tasks)).toEqual([4, 4, 4]);
    expect(a.map((p) => p.passAt)).toEqual([0.5, 2 / 3, 0.75].map(near));
    expect(a.map((p) => p.passHat)).toEqual([0.5, 1 / 3, 0.25].map(near));
    // B: pass@2 = 1, 2/3, 0, 0; pass@3 = 1, 1, 0, 0; pass^2 = 1/3, 0, 0, 0; pass^3 = 0.
    const b = reliabilityCurve(B);
    expect(b.map((p) => p.passAt)).toEqual([0.25, 5 / 12, 0.5].map(near));
    expect(b.map((p) => p.passHat)).toEqual([0.25, 1 / 12, 0].map(near));
  });

  it('bounds each with the percentiles of the exact bootstrap distribution over tasks', () => {
    // All 256 resamples of 4 tasks, A's pass@2 (1, 1, 2/3, 0): the mean is 3/12 or less in 5.1 % of them and
    // 2/12 or less in 2.0 %, so the 2.5th percentile is 3/12; it is below 12/12 in 93.75 %: the 97.5th is 1.
    // pass^3 (1, 0, 0, 0): P(mean = 0) = (3/4)^4 = 31.6 %, P(mean ≤ 2/4) = 94.9 %, so [0, 3/4].
    // 2,000 resamples land on those or, as P(mean ≤ 2/12) = 5/256 = 2.0 % is near 2.5 %, within one step (1/12) of
    // them; over 400 seeds, on the exact 3/12 in all but a few.
    const [, at2, at3] = reliabilityCurve(A);
    const withinAStep = (actual: number[], exact: number[]) =>
      actual.every((x, i) => Math.abs(x - exact[i]!) <= 1 / 12 + 1e-12);
    expect(withinAStep(at2!.passAtCi, [0.25, 1])).toBe(true);
    expect(at3!.passHatCi).toEqual([0, 0.75]);
    const seeds = Array.from({ length: 400 }, (_, i) => i + 1);
    const onExact = seeds.filter((seed) => reliabilityCurve(A, 'task', 2000, seed)[1]!.passAtCi[0] === 0.25);
    expect(onExact.length / seeds.length).toBeGreaterThan(0.9);
    // pass@1 of tasks with unequal n: 1, 2/3, 1/3, 0 as 1 of 1, 2 of 3, 1 of 3, 0 of 2.
    const unequal = [1, 3, 3, 2].map((n, i) => ({ task: `t${i}`, n, c: [1, 2, 1, 0][i]! }));
    const [mixed] = reliabilityCurve(unequal);
    expect(withinAStep(mixed!.passAtCi, exactBootstrapPercentiles([1, 2 / 3, 1 / 3, 0]))).toBe(true);
  });

  it('gives pass@1 and pass^1 the rate’s clustered interval where every task has the same n: one figure', () => {
    const [at1] = reliabilityCurve(A);
    expect([at1!.passAtCi, at1!.passHatCi]).toEqual([clusteredRate(A).ci, clusteredRate(A).ci]);
    expect(reliabilityCurve(A, 'repo')[0]!.passAtCi).toEqual(clusteredRate(A, 'repo').ci);
    // One success in 30 tasks × 3: the bootstrap's mean of c/n reaches at most 3 draws of the one task, 1/30
    // (0 to 0.033); the rate's interval is Wilson's 1 of 90 (0.002 to 0.060).
    const one = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 3, c: i ? 0 : 1 }));
    expect(reliabilityCurve(one)[0]!.passAtCi).toEqual(proportion(1, 90).ci);
  });

  it('resamples whole repositories when clustered by them', () => {
    // pass@2 per repository: acme/x sums 1 + 1 over 2 tasks, acme/y 2/3 + 0. Resamples of 2 repositories: both
    // acme/x (¼) → 1, one of each (½) → 2/3, both acme/y (¼) → 1/3: the percentiles are 1/3 and 1.
    const [, at2] = reliabilityCurve(A, 'repo');
    expect(at2!.passAtCi).toEqual([1 / 3, 1].map(near));
  });

  it('draws the same resamples every time: a fixed seed', () => {
    expect(reliabilityCurve(A)).toEqual(reliabilityCurve(A));
    // With 60 tasks the percentiles fall between atoms, so another seed moves them.
    const many = Array.from({ length: 60 }, (_, i) => ({ task: `t${i}`, n: 3, c: i % 4 }));
    expect(reliabilityCurve(many, 'task', 2000, 1)).not.toEqual(reliabilityCurve(many, 'task', 2000, 2));
  });

  it('clustered by task, gives the same figures from the tasks in any order as from how many have each (n, c)', () => {
    // What the engine answers: per (n, c), how many tasks, in no particular order and possibly split.
    const many = Array.from({ length: 60 }, (_, i) => ({ task: `t${i}`, n: 3 + (i % 2), c: i % 4, repo: null }));
    const figures = reliabilityOf(many);
    expect(reliabilityOf([...many].reverse())).toEqual(figures);
    const kinds = new Map<string, { n: number; c: number; tasks: number }>();
    for (const { n, c } of many) {
      const kind = kinds.get(`${n} ${c}`) ?? kinds.set(`${n} ${c}`, { n, c, tasks: 0 }).get(`${n} ${c}`)!;
      kind.tasks++;
    }
    const split = [...kinds.values()].flatMap((k) => [
      { ...k, tasks: 1 },
      { ...k, tasks: k.tasks - 1 },
    ]);
    expect(reliabilityOfKinds(split.reverse())).toEqual(figures);
    expect(figures).toMatchObject({ tasks: 60, samples: 210, samplesPerTask: { min: 3, median: 3.5, max: 4 } });
  });

  it('stops at the smallest sample count, and leaves out tasks without a result', () => {
    const uneven = [...A.slice(0, 3), { task: 't4', n: 2, c: 1 }, { task: 't5', n: 0, c: 0 }];
    const curve = reliabilityCurve(uneven);
    expect(curve.map((p) => p.k)).toEqual([1, 2]);
    expect(curve[0]!.tasks).toBe(4);
    expect(reliabilityCurve([])).toEqual([]);
  });
});

describe('one sample per task', () => {
  const single = Array.from({ length: 10 }, (_, i) => ({ task: `t${i}`, n: 1, c: i < 7 ? 1 : 0 }));

  it('is today’s rate with its Wilson interval, and √(p(1−p)/n) as its standard error', () => {
    const rate = clusteredRate(single);
    expect(rate.interval).toBe('wilson');
    expect(rate.rate).toBe(0.7);
    expect(rate.ci).toEqual(proportion(7, 10).ci);
    expect(rate.se).toBeCloseTo(Math.sqrt((0.7 * 0.3) / 10), 12);
    expect(reliabilityOf(single).warning).toBeNull();
  });

  it('has pass@1 = pass^1 = the rate, with the rate’s own Wilson interval, and no larger k', () => {
    const curve = reliabilityCurve(single);
    expect(curve).toHaveLength(1);
    expect(curve[0]!.passAt).toBeCloseTo(0.7, 12);
    expect(curve[0]!.passHat).toBeCloseTo(0.7, 12);
    expect([curve[0]!.passAtCi, curve[0]!.passHatCi]).toEqual([proportion(7, 10).ci, proportion(7, 10).ci]);
  });

  it('keeps the bootstrap interval for pass@1 where some task has more samples than one', () => {
    const mixed = [...single, { task: 'repeated', n: 3, c: 1 }];
    const [point] = reliabilityCurve(mixed);
    expect(point!.passAtCi).not.toEqual(clusteredRate(mixed).ci);
  });
});

describe('paired comparison on per-task means', () => {
  it('compares A and B over their shared tasks', () => {
    // d = c_A/3 − c_B/3 = 1/3, 1/3, 1/3, 0; mean 1/4; deviations 1/12 (×3), −1/4: Σ² = 12/144; sd² = 1/36;
    // se = (1/6)/√4 = 1/12. Sign flips of the three non-zero d: |Σ| = 1 in 2 of 8 patterns, so p = 0.25.
    // The interval: each side's clustered interval, its rate's above (A 0.20508–0.79492 about ½, B 0.080155–
    // 0.560459 about ¼), combined by method 10. The residuals of the per-task means, A ½, 1/6, −1/6, −½ and B
    // 5/12, 1/12, −¼, −¼, have Σ² 5/9 and 11/36 and summed products 7/18, less the continuity step
    // ½ · (4/12) · (4/12) = 1/18: φ = (1/3) / √(5/9 · 11/36) = 6/√55 = 0.809040. Below: A's distance down and
    // B's up, 0.25 − √(0.294920² + 0.310459² − 2φ · 0.294920 · 0.310459) = 0.062356; above: A's up and B's down,
    // 0.25 + √(0.294920² + 0.169845² − 2φ · 0.294920 · 0.169845) = 0.436479.
    const c = compareTaskMeans(A, B);
    expect(c).toMatchObject({ pairs: 4, clusters: 4, meanA: near(0.5), meanB: near(0.25), exact: true });
    expect(c.difference).toBeCloseTo(0.25, 12);
    expect(c.se).toBeCloseTo(1 / 12, 12);
    expect(c.ci![0]).toBeCloseTo(0.062356, 6);
    expect(c.ci![1]).toBeCloseTo(0.436479, 6);
    expect(c.ci).toEqual(
      differenceInterval(0.5, clusteredRate(A).ci!, 0.25, clusteredRate(B).ci!, 6 / Math.sqrt(55)).map(near),
    );
    expect(c.permutationP).toBeCloseTo(0.25, 12);
  });

  it('is Newcombe’s method 10 itself where every task has one sample on each side', () => {
    const random = seeded(5);
    for (let trial = 0; trial < 200; trial++) {
      const tasks = 2 + Math.floor(random() * 60);
      const [rateA, rateB] = [random(), random()];
      const a = Array.from({ length: tasks }, (_, i) => ({ task: `t${i}`, n: 1, c: random() < rateA ? 1 : 0 }));
      const b = a.map((t) => ({ ...t, c: random() < (t.c ? Math.max(rateB, 0.7) : rateB) ? 1 : 0 }));
      const table = { bothResolved: 0, aOnly: 0, bOnly: 0, neither: 0 };
      a.forEach((t, i) => table[t.c && b[i]!.c ? 'bothResolved' : t.c ? 'aOnly' : b[i]!.c ? 'bOnly' : 'neither']++);
      const expected = pairedComparison(table).ci!.map(near);
      expect(compareTaskMeans(a, b).ci).toEqual(expected);
      // Each task its own repository: the same clusters.
      const own = (x: TaskSamples[]) => x.map((t) => ({ ...t, repo: `acme/${t.task}` }));
      expect(compareTaskMeans(own(a), own(b), 'repo').ci).toEqual(expected);
    }
  });

  it('never gives an interval of width 0, where every task has the same difference or every sample agrees', () => {
    const tasks = (c: number) => Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 3, c }));
    // A 1 of 3 on each task, B none: A's residuals are all 0, so its interval is Wilson's over its 90 samples
    // (0.244535–0.435777), B's Wilson's 0 of 30 tasks (0–0.113513), and φ is 0: 1/3 − √(0.088798² + 0.113513²)
    // = 0.189214 to 1/3 + 0.102444 = 0.435777. The interval about the mean alone was [1/3, 1/3].
    const sameDifference = compareTaskMeans(tasks(1), tasks(0));
    expect(sameDifference.se).toBe(0);
    expect(sameDifference.ci![0]).toBeCloseTo(0.189214, 6);
    expect(sameDifference.ci![1]).toBeCloseTo(0.435777, 6);
    // Both none: each side Wilson's 0 of 30, ±0.113513; A all and B none: 1 − √2 · 0.113513 = 0.839468 to 1.
    expect(compareTaskMeans(tasks(0), tasks(0)).ci).toEqual([-0.113513, 0.113513].map((x) => expect.closeTo(x, 6)));
    expect(compareTaskMeans(tasks(3), tasks(0)).ci).toEqual([expect.closeTo(0.839468, 6), 1]);
    // A and B alike task by task, half the tasks all and half none: each side Wilson's 15 of 30 (½ ± 0.168453),
    // φ = (Σ products − step) / Σ² = (7.5 − 1/18) / 7.5 = 1 − 1/135, so ± 0.168453 · √(2/135) = ± 0.020504.
    const alike = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 3, c: i % 2 ? 3 : 0 }));
    expect(compareTaskMeans(alike, alike).ci).toEqual([-0.020504, 0.020504].map((x) => expect.closeTo(x, 6)));
  });

  it('counts a side of one rate as N²/Σ(1/n) runs where tasks have different sample counts', () => {
    // A: ½ on each of 30 tasks, alternately 1 of 2 and 5 of 10: no spread, so the side is worth what 30 tasks of
    // one rate are, N² / Σ(1/n) = 900 / (15 · ½ + 15 · 1/10) = 100 runs (not its 180 samples): Wilson's 50 of 100.
    const a = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: i % 2 ? 10 : 2, c: i % 2 ? 5 : 1 }));
    const b = a.map((t) => ({ ...t, n: 3, c: 0 }));
    const expected = differenceInterval(0.5, proportion(50, 100).ci!, 0, proportion(0, 30).ci!, 0);
    expect(compareTaskMeans(a, b).ci).toEqual(expected.map(near));
  });

  it('clusters by repository: flips each repository’s summed difference', () => {
    // Sums per repository 2/3 and 1/3; residual sums 1/6 and −1/6; se = √(2 · 2/36) / 4 = 1/12.
    // Sign patterns: |±2/3 ± 1/3| = 1 in 2 of 4, so p = 0.5.
    const c = compareTaskMeans(A, B, 'repo');
    expect(c.clusters).toBe(2);
    expect(c.se).toBeCloseTo(1 / 12, 12);
    expect(c.permutationP).toBeCloseTo(0.5, 12);
  });

  it('pairs only the tasks both have a result on', () => {
    const c = compareTaskMeans(A, [...B.slice(0, 2), { task: 't3', n: 0, c: 0 }]);
    expect(c.pairs).toBe(2);
    expect(compareTaskMeans(A, [])).toMatchObject({ pairs: 0, difference: null, se: null, permutationP: null });
  });

  it('draws random sign patterns beyond 11 clusters, near the exact binomial p', () => {
    // 20 tasks: 14 with d = +1/3 and 6 with d = −1/3. |Σ| ≥ 8/3 when X ~ Bin(20, ½) flips ≤ 6 or ≥ 14:
    // p = 2·P[X ≤ 6] = 0.1153.
    const a = Array.from({ length: 20 }, (_, i) => ({ task: `t${i}`, n: 3, c: i < 14 ? 2 : 1 }));
    const b = Array.from({ length: 20 }, (_, i) => ({ task: `t${i}`, n: 3, c: i < 14 ? 1 : 2 }));
    const c = compareTaskMeans(a, b);
    expect(c.exact).toBe(false);
    expect(Math.abs(c.permutationP! - 2 * binomialLowerTail(6, 20))).toBeLessThan(0.025);
    expect(compareTaskMeans(a, b)).toEqual(c);
  });

  it('gives the smallest Monte Carlo p, never 0, when no random pattern reaches the observed sum', () => {
    const a = Array.from({ length: 40 }, (_, i) => ({ task: `t${i}`, n: 5, c: 5 }));
    const b = Array.from({ length: 40 }, (_, i) => ({ task: `t${i}`, n: 5, c: 1 }));
    expect(compareTaskMeans(a, b).permutationP).toBeCloseTo(1 / 2001, 12);
  });

  it('draws the same random sign patterns whichever order the tasks come in', () => {
    // 30 tasks of several sizes of |d|: a random p; and the same tasks in the reverse order.
    const a = Array.from({ length: 30 }, (_, i) => ({ task: `t${i}`, n: 5, c: i % 5 }));
    const b = a.map((t, i) => ({ ...t, c: (i * 3) % 4 }));
    const forward = compareTaskMeans(a, b);
    expect(forward.exact).toBe(false);
    expect(compareTaskMeans([...a].reverse(), [...b].reverse()).permutationP).toBe(forward.permutationP);
    expect(compareTaskMeans([...a].reverse(), [...b].reverse(), 'repo').permutationP).toBe(forward.permutationP);
  });
});

describe('a comparison clustered by task, from the shared tasks’ paired kinds alone', () => {
  const mixed = (resolved: number[], samples: number[]) =>
    resolved.map((c, i) => ({ task: `t${String(i).padStart(2, '0')}`, n: samples[i % samples.length]!, c }));
  const a = mixed([3, 2, 1, 0, 1, 1, 2, 0, 3, 1, 2, 2, 0, 1], [3, 2, 4]);
  const b = mixed([1, 2, 0, 0, 1, 0, 2, 1, 1, 1, 0, 2, 0, 3], [2, 3, 4]);
  const kindsOf = (x: TaskSamples[], y: TaskSamples[]) =>
    x.map((t, i) => ({ nA: t.n, cA: Math.min(t.c, t.n), nB: y[i]!.n, cB: Math.min(y[i]!.c, y[i]!.n) }));

  it('gives the figures of its tasks, however its kinds come split or ordered', () => {
    const bounded = (tasks: TaskSamples[]) => tasks.map((t) => ({ ...t, c: Math.min(t.c, t.n) }));
    const { figures } = pairFigures(countsOf(bounded(a), bounded(b)), 0, 1);
    expect(figures.method).toBe('task-means');
    const kinds = pairedKindsOf(kindsOf(a, b));
    expect(kinds.reduce((sum, k) => sum + k.tasks, 0)).toBe(14);
    expect(figuresOfKinds(kinds)).toEqual(figures);
    const split = kinds.flatMap((k) =>
      k.tasks > 1
        ? [
            { ...k, tasks: 1 },
            { ...k, tasks: k.tasks - 1 },
          ]
        : [k],
    );
    expect(figuresOfKinds(pairedKindsOf(split.reverse()))).toEqual(figures);
  });

  it('sorts each kind into McNemar’s four counts by which side’s per-task mean is higher', () => {
    // 1/2 against 1/3: A ahead; 2/4 against 1/2: equal and above 0; 0/3 against 0/1: neither; 1/3 against 2/2: B.
    const kinds = pairedKindsOf([
      { nA: 2, cA: 1, nB: 3, cB: 1, tasks: 4 },
      { nA: 4, cA: 2, nB: 2, cB: 1, tasks: 3 },
      { nA: 3, cA: 0, nB: 1, cB: 0, tasks: 2 },
      { nA: 3, cA: 1, nB: 2, cB: 2, tasks: 1 },
    ]);
    expect(figuresOfKinds(kinds)).toMatchObject({ pairs: 10, aOnly: 4, bothResolved: 3, neither: 2, bOnly: 1 });
  });
});

describe('Compare, by per-task means where samples repeat and McNemar where they do not', () => {
  // The campaign three times over (12 tasks): d = 1/3, 1/3, 1/3, 0 (×3); mean 1/4; Σ(d − d̄)² = 3 · 12/144;
  // sd² = (36/144)/11; se = √(0.25/11)/√12 = 0.043519. Nine non-zero d of 1/3: |Σ| = 3 only with every sign
  // as observed or every sign flipped, 2 of 2^9 patterns: p = 0.0039. The interval as for the 4 tasks above,
  // three times the sums: A's effective n 21.6 (0.305712–0.694288), B's 29.454545 (0.128962–0.428724), φ =
  // (7/6 − 1/18) / √(5/3 · 11/12) = 0.898933: +16.5 to +35.1 points.
  const thrice = (config: TaskSamples[]) =>
    [0, 1, 2].flatMap((r) => config.map((t) => ({ ...t, task: `${t.task}.${r}` })));

  it('compares per-task means, with the counts of tasks each side did better on', () => {
    const { figures, aOnlyTasks } = pairFigures(countsOf(thrice(A), thrice(B)), 0, 1);
    expect(figures).toMatchObject({ method: 'task-means', pairs: 12, aOnly: 9, bOnly: 0, neither: 3, mcnemarP: null });
    expect(aOnlyTasks).toHaveLength(9);
    expect(figures.se).toBeCloseTo(0.5 / Math.sqrt(132), 12);
    expect(figures.permutationP).toBeCloseTo(2 / 512, 12);
    expect(describeComparison('A', 'B', { ...figures, outcome: 'tests' })).toBe(
      "On 12 tasks both ran (outcome: hidden tests, repeated samples), A resolved 50.0% of a task's samples on " +
        'average and B 25.0%: a difference of +25.0 points (95% CI +16.5 to +35.1, clustered by task), ' +
        'sign-flip p = 0.0039.',
    );
  });

  it('gives counts and no statistics below 10 shared tasks', () => {
    expect(pairFigures(countsOf(A, B), 0, 1).figures).toMatchObject({
      pairs: 4,
      difference: null,
      se: null,
      permutationP: null,
    });
  });

  it('keeps McNemar’s table, interval and p where every shared task has one run on each side', () => {
    const one = (resolved: number[]) => resolved.map((c, i) => ({ task: `t${i}`, n: 1, c }));
    const { figures } = pairFigures(
      countsOf(one([1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1]), one([1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0])),
      0,
      1,
    );
    const counts = { bothResolved: 3, aOnly: 5, bOnly: 1, neither: 2 };
    expect(figures).toEqual(expect.objectContaining({ method: 'mcnemar', ...pairedComparison(counts), se: null }));
  });
});

describe('the binomial draws behind the resampling', () => {
  it('follow Binomial(m, q): frequencies within a few standard errors of the probabilities', () => {
    const draw = binomialSampler(20, seeded(7));
    const draws = 40_000;
    const seen = new Array<number>(21).fill(0);
    for (let i = 0; i < draws; i++) seen[draw(20, 0.3)]!++;
    for (let k = 0; k <= 20; k++) {
      const p = binomialLowerTail(k, 20, 0.3) - binomialLowerTail(k - 1, 20, 0.3);
      expect(Math.abs(seen[k]! / draws - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / draws) + 1e-4);
    }
    expect(draw(0, 0.5)).toBe(0);
    expect(draw(9, 1)).toBe(9);
  });

  it('draw for one q as they draw for any q: the same values from the same sequence, mode masses remembered', () => {
    const [general, fixed] = [binomialSampler(500, seeded(11)), binomialSampler(500, seeded(11))];
    const q = 37 / 211;
    const ofQ = fixed.withProbability(q);
    const ms = Array.from({ length: 5000 }, (_, k) => (k * 7919) % 501);
    expect(ms.map((m) => ofQ(m))).toEqual(ms.map((m) => general(m, q)));
    expect(fixed.withProbability(0)(9)).toBe(0);
    expect(fixed.withProbability(1)(9)).toBe(9);
  });
});

/** Two configurations' counts as the run table gives them, the tasks of `a` in its order. */
function countsOf(a: TaskSamples[], b: TaskSamples[]): SampleCounts {
  const ofB = new Map(b.map((t) => [t.task, t]));
  return {
    tasks: a.map((t) => t.task),
    repos: a.map((t) => t.repo ?? null),
    n: [Int32Array.from(a, (t) => t.n), Int32Array.from(a, (t) => ofB.get(t.task)?.n ?? 0)],
    c: [Int32Array.from(a, (t) => t.c), Int32Array.from(a, (t) => ofB.get(t.task)?.c ?? 0)],
  };
}

/** The 2.5th and 97.5th percentiles of the mean over all |values|^|values| resamples, by the rule reliabilityCurve uses. */
function exactBootstrapPercentiles(values: number[]): [number, number] {
  const means: number[] = [];
  const t = values.length;
  for (let code = 0; code < t ** t; code++) {
    let [sum, rest] = [0, code];
    for (let i = 0; i < t; i++, rest = Math.floor(rest / t)) sum += values[rest % t]!;
    means.push(sum / t);
  }
  const sorted = Float64Array.from(means).sort();
  return [quantileOfKnown(sorted, 0.025), quantileOfKnown(sorted, 0.975)];
}
