// The cockpit's figures (shared/analytics/run-selection.ts, group-figures.ts and their siblings): rates carry n and
// the statistics module's Wilson interval and keep excluded/error/unjudged outside the resolve-rate denominator,
// agreement carries κ, the first attempt's rate and the re-runs are counted per group, medians skip unknowns,
// budget exhaustion counts every run, and harness versions are never pooled. The run table's own rules and the
// chart projections: run-table-projections.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from '@jest/globals';
import { NO_FILTERS, selectRuns, taskFacts } from '#analytics/run-selection.ts';
import { resolveRate, type VerdictCounts } from '#analytics/rate-figures.ts';
import { computeFigures } from '#analytics/group-figures.ts';
import { calibration } from '#analytics/calibration.ts';
import { medianOf, medianOfRows } from '#analytics/quantiles.ts';
import { cohensKappa, proportion } from '#analytics/statistics.ts';
import { compactRunOf } from '../../../helpers/compact-runs.ts';
import { RunTable } from '#analytics/run-table.ts';

const run = compactRunOf;

const all = (table: RunTable) => selectRuns(table, NO_FILTERS);
const only = (table: RunTable) => computeFigures(table, all(table)).groups[0]!;

describe('resolve rate', () => {
  it('is resolved / (resolved + partial + wrong + no_change), with n', () => {
    const counts: VerdictCounts = {
      resolved: 3,
      partial: 1,
      wrong: 2,
      no_change: 2,
      error: 0,
      excluded: 0,
      flagged: 1,
      unjudged: 2,
    };
    expect(resolveRate(counts)).toEqual({ ...proportion(3, 8), excluded: 0, error: 0, flagged: 1, unjudged: 2 });
    expect(resolveRate(counts)).toMatchObject({ rate: 3 / 8, hits: 3, n: 8 });
  });

  it('keeps excluded, error, flagged and unjudged runs outside the denominator and counts them beside it', () => {
    const table = RunTable.fromRuns([
      run({ verdict: 'resolved' }),
      run({ verdict: 'wrong' }),
      run({ verdict: 'excluded', judgeState: 'not-needed', contamination: 2 }),
      run({ verdict: 'error', judgeState: 'error' }),
      run({ verdict: null, judgeState: 'flagged' }),
      run({ verdict: null, judgeState: 'waiting-credentials' }),
      run({ verdict: null, judgeState: 'pending' }),
    ]);
    const figures = only(table);
    expect(figures.resolve).toEqual({ ...proportion(1, 2), excluded: 1, error: 1, flagged: 1, unjudged: 2 });
    expect(figures.runs).toBe(7);
  });

  it('is unknown (null), not 0, when nothing in view has a counted verdict', () => {
    const table = RunTable.fromRuns([run({ verdict: 'excluded' }), run({ verdict: null })]);
    expect(only(table).resolve).toMatchObject({ rate: null, n: 0, excluded: 1, unjudged: 1 });
  });

  it('counts no_change as a failure inside the denominator', () => {
    const table = RunTable.fromRuns([run({ verdict: 'resolved' }), run({ verdict: 'no_change' })]);
    expect(only(table).resolve).toMatchObject({ rate: 0.5, n: 2 });
  });
});

describe('medians', () => {
  it('ignore unknown values and report how many were known', () => {
    expect(medianOf([10, NaN, 30, NaN, 20])).toEqual({ median: 20, p25: 15, p75: 25, known: 3, n: 5 });
  });

  it('of an even count average the middle pair', () => {
    expect(medianOf([4, 1, 3, 2]).median).toBe(2.5);
  });

  it('are unknown when no value is known, never 0', () => {
    expect(medianOf([NaN, NaN])).toEqual({ median: null, p25: null, p75: null, known: 0, n: 2 });
  });

  it('of wall time, steps, tokens per minute and completion tokens skip runs that did not measure them', () => {
    const table = RunTable.fromRuns([
      run({ wallSeconds: 100, steps: 10, outputTokensPerMinute: 300, completionTokens: 1000 }),
      run({ wallSeconds: null, steps: null, outputTokensPerMinute: null, completionTokens: null }),
      run({ wallSeconds: 300, steps: 30, outputTokensPerMinute: 500, completionTokens: 3000 }),
    ]);
    const figures = only(table);
    expect(figures.wallSeconds).toMatchObject({ median: 200, known: 2, n: 3 });
    expect(figures.steps).toMatchObject({ median: 20, known: 2, n: 3 });
    expect(figures.outputTokensPerMinute).toMatchObject({ median: 400, known: 2, n: 3 });
    expect(figures.completionTokens).toMatchObject({ median: 2000, known: 2, n: 3 });
  });

  it('and quartiles of many values equal those read off the sorted values, whatever their order and ties', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const sortedQuantile = (sorted: number[], q: number) => {
      const at = (sorted.length - 1) * q;
      const lo = Math.floor(at);
      return lo === at ? sorted[lo]! : sorted[lo]! + (sorted[lo + 1]! - sorted[lo]!) * (at - lo);
    };
    const shapes: Record<string, (i: number) => number> = {
      fractions: () => Math.round(random() * 30_000) / 10,
      'few distinct values': () => 5 + Math.floor(random() * 12),
      ascending: (i) => i,
      descending: (i) => -i,
      'all equal': () => 42,
      'two values': (i) => (i % 3 === 0 ? 1 : 2),
    };
    for (const [shape, value] of Object.entries(shapes)) {
      for (const length of [20_000, 20_001]) {
        const values = Array.from({ length }, (_, i) => value(i));
        const sorted = [...values].sort((a, b) => a - b);
        const expected = {
          median: sortedQuantile(sorted, 0.5),
          p25: sortedQuantile(sorted, 0.25),
          p75: sortedQuantile(sorted, 0.75),
          known: length,
          n: length,
        };
        expect([shape, medianOf(values)]).toEqual([shape, expected]);
      }
    }
  });

  it('do not mistake a measured 0 for unknown', () => {
    const table = RunTable.fromRuns([run({ steps: 0 }), run({ steps: 0 }), run({ steps: null })]);
    expect(only(table).steps).toMatchObject({ median: 0, known: 2, n: 3 });
  });
});

describe('medians per group', () => {
  it("equal the medians of each group's own runs, and of all runs, for any mix of groups and unknowns", () => {
    const figure = fc.oneof(
      fc.constant(null),
      fc.integer({ min: 0, max: 40 }),
      fc.double({ noNaN: true, min: 0, max: 1e4 }),
    );
    const runArb = fc.record({
      model: fc.constantFrom('a', 'b', 'c'),
      harnessVersion: fc.constantFrom('h1', 'h2'),
      wallSeconds: figure,
      steps: figure,
      outputTokensPerMinute: figure,
      completionTokens: figure,
    });
    fc.assert(
      fc.property(fc.array(runArb, { minLength: 1, maxLength: 120 }), (specs) => {
        const runs = specs.map((spec) => compactRunOf(spec));
        const table = RunTable.fromRuns(runs);
        const figures = computeFigures(table, Uint32Array.from(runs.keys()));
        for (const field of ['wallSeconds', 'steps', 'outputTokensPerMinute', 'completionTokens'] as const) {
          const valuesOf = (keep: (r: (typeof runs)[number]) => boolean) =>
            runs.filter(keep).map((r) => r[field] ?? NaN);
          for (const g of figures.groups)
            expect(g[field]).toEqual(
              medianOf(valuesOf((r) => r.model === g.model && r.harnessVersion === g.harnessVersion)),
            );
          expect(figures.all[field]).toEqual(medianOf(valuesOf(() => true)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('budget exhaustion', () => {
  it('is the share of runs whose outcome is budget, over every run in view', () => {
    const table = RunTable.fromRuns([
      run({ outcome: 'budget', verdict: 'wrong' }),
      run({ outcome: 'budget', verdict: null }),
      run({ outcome: 'finished' }),
      run({ outcome: 'model-error', verdict: 'error' }),
    ]);
    expect(only(table).budgetExhausted).toEqual(proportion(2, 4));
  });

  it('counts every run of a configuration once one shows it has a budget, and none where none does', () => {
    // Terminal-Bench's trials declare no budget, but those that timed out ended by it: the others finished within it.
    const undeclared = { maxSteps: null, wallBudgetSeconds: null };
    const timedOut = RunTable.fromRuns([
      run({ ...undeclared, outcome: 'budget' }),
      ...Array.from({ length: 3 }, () => run({ ...undeclared, outcome: 'finished' })),
    ]);
    expect(only(timedOut).budgetExhausted).toEqual(proportion(1, 4));
    const unknown = RunTable.fromRuns([run({ ...undeclared, outcome: 'finished' }), run({ ...undeclared })]);
    expect(only(unknown).budgetExhausted).toEqual(proportion(0, 0));
  });
});

describe('every rate', () => {
  it('carries the 95% Wilson interval of the statistics module, and none when n is 0', () => {
    const table = RunTable.fromRuns([
      run({ verdict: 'resolved' }),
      run({ verdict: 'wrong' }),
      run({ verdict: 'wrong' }),
      run({ verdict: 'excluded', hiddenTest: null }),
    ]);
    const figures = only(table);
    expect(figures.resolve.ci).toEqual(proportion(1, 3).ci);
    expect(figures.resolve.ci![0]).toBeLessThan(1 / 3);
    expect(figures.resolve.ci![1]).toBeGreaterThan(1 / 3);
    expect(figures.hiddenTests).toMatchObject({ n: 0, rate: null, ci: null });
  });
});

describe('re-runs', () => {
  it('count runs with more than one attempt, and rate each run by its first attempt beside its current verdict', () => {
    const table = RunTable.fromRuns([
      run({ verdict: 'resolved', firstVerdict: 'wrong', attemptCount: 2 }),
      run({ verdict: 'resolved', firstVerdict: 'resolved', attemptCount: 1 }),
      run({ verdict: 'wrong', firstVerdict: 'wrong', attemptCount: 3 }),
      // A first attempt that was never judged (re-run before the judge came to it) is outside that rate's n.
      run({ verdict: 'partial', firstVerdict: null, attemptCount: 2 }),
    ]);
    const figures = only(table);
    expect(figures.reruns).toBe(3);
    expect(figures.resolve).toMatchObject({ hits: 2, n: 4 });
    expect(figures.firstResolve).toEqual({ ...proportion(1, 3), excluded: 0, error: 0, flagged: 0, unjudged: 1 });
  });
});

describe('hidden tests', () => {
  it('pass rate counts pass / (pass + fail); errored and missing results are counted beside it', () => {
    const table = RunTable.fromRuns([
      run({ hiddenTest: 'pass' }),
      run({ hiddenTest: 'fail' }),
      run({ hiddenTest: 'fail' }),
      run({ hiddenTest: 'error' }),
      run({ hiddenTest: null }),
    ]);
    expect(only(table).hiddenTests).toEqual({ ...proportion(1, 3), errored: 1, missing: 1 });
  });

  it('calibration tables the judge against the tests and measures agreement where both exist', () => {
    const table = RunTable.fromRuns([
      run({ verdict: 'resolved', hiddenTest: 'pass' }),
      run({ verdict: 'resolved', hiddenTest: 'fail' }),
      run({ verdict: 'wrong', hiddenTest: 'fail' }),
      run({ verdict: 'partial', hiddenTest: 'pass' }),
      run({ verdict: 'excluded', hiddenTest: 'pass' }),
      run({ verdict: null, hiddenTest: null }),
    ]);
    const c = calibration(table, all(table));
    expect(c.counts.resolved).toEqual({ pass: 1, fail: 1, error: 0, none: 0 });
    expect(c.counts.unjudged.none).toBe(1);
    expect(c.agreement).toEqual(proportion(2, 4));
    // Judge resolved or not × tests pass or fail, over the same four runs: agreement no better than chance.
    expect(c.kappa.table).toEqual({ resolvedPass: 1, resolvedFail: 1, otherPass: 1, otherFail: 1 });
    expect(c.kappa).toEqual(cohensKappa(c.kappa.table));
    expect(c.kappa.kappa).toBeCloseTo(0, 12);
  });
});

describe('groups and filters', () => {
  it('never pool harness versions: one group per (model, harness version)', () => {
    const table = RunTable.fromRuns([
      run({ model: 'm', harnessVersion: 'h1', verdict: 'resolved' }),
      run({ model: 'm', harnessVersion: 'h2', verdict: 'wrong' }),
      run({ model: 'm', harnessVersion: 'h2', verdict: 'wrong' }),
    ]);
    const figures = computeFigures(table, all(table));
    expect(figures.harnessVersions).toEqual(['h1', 'h2']);
    expect(figures.groups.map((g) => [g.harnessVersion, g.resolve.rate, g.resolve.n])).toEqual([
      ['h1', 1, 1],
      ['h2', 0, 2],
    ]);
  });

  it('filter by model, harness version, tier, wave and repository; a task record fills a tier or wave the row lacks', () => {
    const table = RunTable.fromRuns([
      run({ model: 'a', taskId: 'x', tier: 'easy', wave: 1 }),
      run({ model: 'b', taskId: 'x', tier: 'easy', wave: 1 }),
      run({ model: 'a', taskId: 'y', tier: null, wave: null }),
      run({ model: 'a', taskId: 'z', tier: 'hard', wave: 2, harnessVersion: 'h2', repo: 'o/z' }),
    ]);
    const facts = taskFacts(table, [{ taskId: 'y', order: 2, tier: 'medium', wave: 2, prToMergeHours: 5 }]);
    const ids = (f: Partial<typeof NO_FILTERS>) => [...selectRuns(table, { ...NO_FILTERS, ...f }, facts)];
    expect(ids({ models: ['a'] })).toEqual([0, 2, 3]);
    expect(ids({ harnessVersions: ['h2'] })).toEqual([3]);
    expect(ids({ tiers: ['medium'] })).toEqual([2]);
    expect(ids({ waves: [2] })).toEqual([2, 3]);
    expect(ids({ models: ['a'], waves: [1] })).toEqual([0]);
    expect(ids({ models: ['nobody'] })).toEqual([]);
    expect(ids({ repos: ['o/z'] })).toEqual([3]);
    expect(ids({ repos: ['o/z', 'nowhere/else'], models: ['a'] })).toEqual([3]);
    expect(ids({ repos: ['nowhere/else'] })).toEqual([]);
  });

  it('mark runs whose figures were generated', () => {
    const table = RunTable.fromRuns([run({ metricsSource: 'generated' }), run({ metricsSource: null }), run()]);
    expect(only(table).generated).toBe(1);
  });
});

describe('the run table', () => {
  it('replaces a run delivered again under the same id instead of counting it twice', () => {
    const table = RunTable.fromRuns([run({ taskId: 't', verdict: null })]);
    table.upsert(run({ taskId: 't', verdict: 'resolved' }));
    expect(table.size).toBe(1);
    expect(only(table).resolve).toMatchObject({ rate: 1, n: 1, unjudged: 0 });
  });
});

describe('medians by selection', () => {
  it('equal the sorted-array definition for any values, with and without unknowns', () => {
    const sortedQuantile = (xs: number[], q: number) => {
      const s = [...xs].sort((a, b) => a - b);
      const at = (s.length - 1) * q;
      const lo = Math.floor(at);
      return s[lo]! + (s[Math.ceil(at)]! - s[lo]!) * (at - lo);
    };
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: -50, max: 50 }),
            fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
            fc.constant(NaN),
          ),
          { minLength: 1, maxLength: 300 },
        ),
        (values) => {
          const known = values.filter((v) => !Number.isNaN(v));
          const figure = medianOf(values);
          expect(figure.known).toBe(known.length);
          if (!known.length) {
            expect(figure.median).toBeNull();
            return;
          }
          expect(figure.median).toBeCloseTo(sortedQuantile(known, 0.5), 9);
          expect(figure.p25).toBeCloseTo(sortedQuantile(known, 0.25), 9);
          expect(figure.p75).toBeCloseTo(sortedQuantile(known, 0.75), 9);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("over the rows of a group are the medians of those rows' values", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.constant(NaN)), fc.boolean()), {
          minLength: 1,
          maxLength: 300,
        }),
        (cells) => {
          const source = Float64Array.from(cells, ([v]) => v);
          const rows = Uint32Array.from(cells.flatMap(([, inGroup], i) => (inGroup ? [i] : [])));
          expect(medianOfRows(source, rows)).toEqual(medianOf(Array.from(rows, (i) => source[i]!)));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
