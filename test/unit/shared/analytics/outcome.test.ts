// Which outcome says "resolved" (docs/contract.md §6 "Outcome"): hidden tests count pass over pass + fail with the
// rest beside it as "no test result", the judge counts resolved over its four counted verdicts; a view
// defaults to tests exactly when a run in it has a pass or fail result. Expected figures are worked by hand.
import { describe, expect, it } from '@jest/globals';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { computeFigures } from '#analytics/group-figures.ts';
import { compareGroups } from '#analytics/compare-groups.ts';
import { RunTable } from '#analytics/run-table.ts';
import {
  anyCounted,
  defaultOutcome,
  NOT_RESOLVED,
  outcomeReader,
  outcomeRate,
  OUTSIDE,
  RESOLVED,
} from '#analytics/statistics.ts';
import { compactRunOf as run } from '../../../helpers/compact-runs.ts';

const round4 = (ci: [number, number] | null) => ci?.map((x) => Number(x.toFixed(4)));
const counts = {
  verdicts: { resolved: 2, partial: 1, wrong: 1, no_change: 1, error: 1, excluded: 1, flagged: 1, unjudged: 1 },
  hiddenTests: { pass: 3, fail: 2, error: 1, none: 3 },
};

describe('the resolve rate on an outcome', () => {
  it('on hidden tests is pass ÷ (pass + fail), errored and missing results outside n', () => {
    const r = outcomeRate(counts, 'tests');
    expect({ hits: r.hits, n: r.n, rate: r.rate, outside: r.outside, outcome: r.outcome }).toEqual({
      hits: 3,
      n: 5,
      rate: 0.6,
      outside: 4,
      outcome: 'tests',
    });
    // Wilson 3 of 5, z = 1.959964, worked by hand: (0.6 + 0.3841/5 ± …) / 1.7683.
    expect(round4(r.ci)).toEqual([0.2307, 0.8824]);
  });

  it('on the judge is resolved ÷ (resolved + partial + wrong + no change), the rest outside n', () => {
    const r = outcomeRate(counts, 'judge');
    expect({ hits: r.hits, n: r.n, outside: r.outside }).toEqual({ hits: 2, n: 5, outside: 4 });
    expect(round4(r.ci)).toEqual([0.1176, 0.7693]);
  });

  it('is unknown, not 0, when nothing has a result on the outcome', () => {
    const none = { ...counts, hiddenTests: { pass: 0, fail: 0, error: 2, none: 5 } };
    expect(outcomeRate(none, 'tests')).toMatchObject({ hits: 0, n: 0, rate: null, ci: null, outside: 7 });
  });

  it('classes each run by its own column: tests by the hidden-test result, judge by the verdict', () => {
    const table = RunTable.fromRuns([
      run({ verdict: 'resolved', hiddenTest: 'fail' }),
      run({ verdict: 'wrong', hiddenTest: 'pass' }),
      run({ verdict: 'excluded', hiddenTest: 'error' }),
      run({ verdict: null, hiddenTest: null }),
    ]);
    expect([0, 1, 2, 3].map((i) => outcomeReader(table, 'tests')(i))).toEqual([
      NOT_RESOLVED,
      RESOLVED,
      OUTSIDE,
      OUTSIDE,
    ]);
    expect([0, 1, 2, 3].map((i) => outcomeReader(table, 'judge')(i))).toEqual([
      RESOLVED,
      NOT_RESOLVED,
      OUTSIDE,
      OUTSIDE,
    ]);
  });
});

describe('the default outcome of a view', () => {
  it('is tests when any run in view has a pass or fail hidden test, else judge', () => {
    const table = RunTable.fromRuns([
      run({ model: 'a', hiddenTest: 'error' }),
      run({ model: 'a', hiddenTest: null }),
      run({ model: 'b', hiddenTest: 'fail' }),
    ]);
    expect(defaultOutcome(table, Uint32Array.of(0, 1))).toBe('judge');
    expect(defaultOutcome(table, Uint32Array.of(0, 1, 2))).toBe('tests');
    expect(anyCounted(table, Uint32Array.of(0, 1), 'tests')).toBe(false);
    expect(defaultOutcome(table, new Uint32Array(0))).toBe('judge');
  });
});

describe('figures per group on both outcomes', () => {
  it('order the groups by the outcome asked for and count each outcome apart', () => {
    // a: judge 2 of 3, tests 1 of 3; b: judge 1 of 3, tests 2 of 2 (one run without a result).
    const table = RunTable.fromRuns([
      run({ model: 'a', verdict: 'resolved', hiddenTest: 'pass' }),
      run({ model: 'a', verdict: 'resolved', hiddenTest: 'fail' }),
      run({ model: 'a', verdict: 'wrong', hiddenTest: 'fail' }),
      run({ model: 'b', verdict: 'resolved', hiddenTest: 'pass' }),
      run({ model: 'b', verdict: 'partial', hiddenTest: 'pass' }),
      run({ model: 'b', verdict: 'wrong', hiddenTest: null }),
    ]);
    const selection = selectRuns(table, NO_FILTERS);
    const byTests = computeFigures(table, selection, undefined, undefined, 'tests').groups;
    const byJudge = computeFigures(table, selection, undefined, undefined, 'judge').groups;
    expect(byTests.map((g) => g.model)).toEqual(['b', 'a']);
    expect(byJudge.map((g) => g.model)).toEqual(['a', 'b']);
    const b = byTests[0]!;
    expect([b.outcomes.tests.hits, b.outcomes.tests.n, b.outcomes.tests.outside]).toEqual([2, 2, 1]);
    expect([b.outcomes.judge.hits, b.outcomes.judge.n]).toEqual([1, 3]);
  });

  it('compare two groups on the outcome: the same runs pair differently on tests and on the judge', () => {
    const table = RunTable.fromRuns([
      run({ model: 'a', taskId: 't1', verdict: 'resolved', hiddenTest: 'fail' }),
      run({ model: 'b', taskId: 't1', verdict: 'wrong', hiddenTest: 'pass' }),
      run({ model: 'a', taskId: 't2', verdict: 'resolved', hiddenTest: null }),
      run({ model: 'b', taskId: 't2', verdict: 'resolved', hiddenTest: 'pass' }),
    ]);
    const selection = selectRuns(table, NO_FILTERS);
    const a = { model: 'a', harnessVersion: 'h1' };
    const b = { model: 'b', harnessVersion: 'h1' };
    // Judge: t1 a only, t2 both. Tests: t1 b only; t2 has no result for a, so it is not a pair.
    expect(compareGroups(table, selection, a, b, 'judge')).toMatchObject({
      outcome: 'judge',
      pairs: 2,
      bothResolved: 1,
      aOnly: 1,
      bOnly: 0,
      aOnlyTasks: ['t1'],
    });
    expect(compareGroups(table, selection, a, b, 'tests')).toMatchObject({
      outcome: 'tests',
      pairs: 1,
      bothResolved: 0,
      aOnly: 0,
      bOnly: 1,
      bOnlyTasks: ['t1'],
    });
  });
});
