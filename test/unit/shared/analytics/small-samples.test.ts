// Small samples (docs/contract.md §6), worked by hand: a group below the cockpit's minimum n is not ranked and sorts
// after the ranked ones; equal rates share a rank; a comparison of fewer than 10 shared tasks gives counts but
// no statistics; empirical difficulty bands a task by the share of configurations that resolved it, exactly
// at the thirds; `cockpits.<name>.minN` must be a whole number from 1.
import { describe, expect, it } from '@jest/globals';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { compareGroups } from '#analytics/compare-groups.ts';
import { RunTable } from '#analytics/run-table.ts';
import {
  configurationsText,
  DEFAULT_MIN_N,
  difficultyOf,
  difficultyOfRow,
  rankByRate,
  selectByDifficulty,
  taskDifficulty,
} from '#analytics/statistics.ts';
import { describeComparison } from '#analytics/comparison-sentence.ts';
import { ConfigError, parseConfig } from '#schema/config.ts';
import { compactRunOf as run } from '../../../helpers/compact-runs.ts';

describe('ranking with a minimum n', () => {
  const groups = [
    { name: 'a', rate: 0.5, n: 40 },
    { name: 'b', rate: 0.75, n: 4 }, // the best rate, but n = 4: not ranked
    { name: 'c', rate: 0.6, n: 10 }, // exactly the minimum: ranked
    { name: 'd', rate: 0.5, n: 12 }, // ties with a
    { name: 'e', rate: null, n: 0 },
    { name: 'f', rate: 0.2, n: 9 },
  ];
  const { ordered, rankOf } = rankByRate(
    groups,
    (g) => g.rate,
    (g) => g.n,
    10,
    (x, y) => x.name.localeCompare(y.name),
  );

  it('ranks the groups with n at or above the minimum, best first, equal rates sharing a rank', () => {
    expect(ordered.map((g) => [g.name, rankOf.get(g)])).toEqual([
      ['c', 1],
      ['a', 2],
      ['d', 2],
      ['b', null],
      ['f', null],
      ['e', null],
    ]);
  });

  it('defaults to 10', () => {
    expect(DEFAULT_MIN_N).toBe(10);
  });
});

describe('empirical difficulty', () => {
  it('bands a task by the share of configurations that resolved it, the thirds included in the band above', () => {
    expect(difficultyOf(2, 3)).toBe('easy');
    expect(difficultyOf(6, 9)).toBe('easy');
    expect(difficultyOf(5, 9)).toBe('medium');
    expect(difficultyOf(1, 3)).toBe('medium');
    expect(difficultyOf(1, 4)).toBe('hard');
    expect(difficultyOf(1, 100)).toBe('hard');
    expect(difficultyOf(0, 7)).toBe('unsolved');
    expect(difficultyOf(0, 0)).toBeNull();
  });

  it('reads each task among the configurations with a result on the outcome, and filters by it', () => {
    // t1: 3 configurations, 2 pass; t2: 1 of 3 passes on the tests, but the judge resolves all three;
    // t3: no configuration has a test result.
    const table = RunTable.fromRuns([
      run({ model: 'a', taskId: 't1', hiddenTest: 'pass', verdict: 'wrong' }),
      run({ model: 'b', taskId: 't1', hiddenTest: 'pass', verdict: 'wrong' }),
      run({ model: 'c', taskId: 't1', hiddenTest: 'fail', verdict: 'wrong' }),
      run({ model: 'a', taskId: 't2', hiddenTest: 'pass', verdict: 'resolved' }),
      run({ model: 'b', taskId: 't2', hiddenTest: 'fail', verdict: 'resolved' }),
      run({ model: 'c', taskId: 't2', hiddenTest: 'fail', verdict: 'resolved' }),
      run({ model: 'a', taskId: 't3', hiddenTest: null, verdict: 'wrong' }),
      run({ model: 'b', taskId: 't3', hiddenTest: 'error', verdict: 'wrong' }),
    ]);
    const all = selectRuns(table, NO_FILTERS);
    const tests = taskDifficulty(table, all, 'tests');
    const judge = taskDifficulty(table, all, 'judge');
    expect([0, 3, 6].map((i) => difficultyOfRow(table, tests, i))).toEqual(['easy', 'medium', null]);
    expect([0, 3, 6].map((i) => difficultyOfRow(table, judge, i))).toEqual(['unsolved', 'easy', 'unsolved']);
    expect([...selectByDifficulty(table, all, tests, ['medium'])]).toEqual([3, 4, 5]);
    expect([...selectByDifficulty(table, all, tests, ['easy', 'unsolved'])]).toEqual([0, 1, 2]);
    // Among model a alone, t2 passed: easy.
    const onlyA = Uint32Array.from([0, 3, 6]);
    expect(difficultyOfRow(table, taskDifficulty(table, onlyA, 'tests'), 3)).toBe('easy');
  });
});

describe('empirical difficulty where samples repeat', () => {
  it('counts each configuration once, by the share of its samples that resolved the task', () => {
    // One task: a passed 10 of 10 samples, b and c ran once and failed. Configurations: 1 + 0 + 0 of 3, medium
    // (counting runs, 10 of 12 would read easy).
    const table = RunTable.fromRuns([
      ...Array.from({ length: 10 }, (_, s) => run({ model: 'a', taskId: 't', sample: s + 1, hiddenTest: 'pass' })),
      run({ model: 'b', taskId: 't', hiddenTest: 'fail' }),
      run({ model: 'c', taskId: 't', hiddenTest: 'fail' }),
    ]);
    const all = selectRuns(table, NO_FILTERS);
    const tests = taskDifficulty(table, all, 'tests');
    expect([tests.n[0], tests.resolved[0]]).toEqual([3, 1]);
    expect(difficultyOfRow(table, tests, 0)).toBe('medium');
    expect(configurationsText(tests.resolved[0]!, tests.n[0]!)).toBe('1 of 3');
  });

  it('reaches a band edge made of shares of samples: 2 of 3 samples in one configuration is easy', () => {
    const table = RunTable.fromRuns([
      run({ model: 'a', taskId: 't', sample: 1, hiddenTest: 'pass' }),
      run({ model: 'a', taskId: 't', sample: 2, hiddenTest: 'pass' }),
      run({ model: 'a', taskId: 't', sample: 3, hiddenTest: 'fail' }),
      run({ model: 'b', taskId: 'u', sample: 1, hiddenTest: 'pass' }),
      run({ model: 'b', taskId: 'u', sample: 2, hiddenTest: 'fail' }),
      run({ model: 'b', taskId: 'u', sample: 3, hiddenTest: 'fail' }),
      run({ model: 'c', taskId: 'u', hiddenTest: 'fail' }),
    ]);
    const tests = taskDifficulty(table, selectRuns(table, NO_FILTERS), 'tests');
    expect(difficultyOfRow(table, tests, 0)).toBe('easy');
    // u: 1/3 + 0 of 2 configurations, a sixth: hard; shown to two decimals.
    expect(difficultyOfRow(table, tests, 3)).toBe('hard');
    expect(configurationsText(tests.resolved[1]!, tests.n[1]!)).toBe('0.33 of 2');
  });
});

describe('a comparison of too few shared tasks', () => {
  const a = { model: 'a', harnessVersion: 'h1' };
  const b = { model: 'b', harnessVersion: 'h1' };
  const tasks = (k: number) =>
    RunTable.fromRuns(
      Array.from({ length: k }, (_, t) => [
        run({ model: 'a', taskId: `t${t}`, hiddenTest: t % 2 ? 'pass' : 'fail' }),
        run({ model: 'b', taskId: `t${t}`, hiddenTest: 'fail' }),
      ]).flat(),
    );

  it('gives the counts and no difference, interval or p below 10 pairs, and says so', () => {
    const table = tasks(9);
    const c = compareGroups(table, selectRuns(table, NO_FILTERS), a, b, 'tests');
    expect(c).toMatchObject({
      pairs: 9,
      aOnly: 4,
      neither: 5,
      minPairs: 10,
      difference: null,
      ci: null,
      mcnemarP: null,
    });
    expect(describeComparison('A', 'B', c)).toBe(
      'A and B share 9 tasks with a result on the hidden tests: too few to compare (Compare needs at least 10).',
    );
  });

  it('compares from 10 pairs up', () => {
    const table = tasks(10);
    const c = compareGroups(table, selectRuns(table, NO_FILTERS), a, b, 'tests');
    // 5 tasks A only, none B only: θ = 5/10; McNemar 2 × (½)^5.
    expect(c).toMatchObject({ pairs: 10, aOnly: 5, bOnly: 0, difference: 0.5, mcnemarP: 0.0625 });
  });
});

describe('cockpits.<name>.minN', () => {
  const config = (minN: unknown) => ({
    spaces: { S: { senders: ['mac-1'] } },
    cockpits: { Board: { space: 'S', minN } },
  });

  it('defaults to 10 and takes a whole number from 1', () => {
    expect(
      parseConfig({ spaces: { S: { senders: ['mac-1'] } }, cockpits: { Board: { space: 'S' } } }).cockpits.Board!.minN,
    ).toBe(10);
    expect(parseConfig(config(1)).cockpits.Board!.minN).toBe(1);
    expect(parseConfig(config(30)).cockpits.Board!.minN).toBe(30);
  });

  it('refuses the configuration for a minN below 1 or not a whole number, naming the cockpit', () => {
    for (const [minN, why] of [
      [0, 'must be 1 or more'],
      [-4, 'must be 1 or more'],
      [2.5, 'must be a whole number of runs, 1 or more'],
      ['10', 'must be a whole number of runs, 1 or more'],
      [null, 'must be a whole number of runs, 1 or more'],
    ] as const) {
      const attempt = () => parseConfig(config(minN));
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(`cockpits.Board.minN: ${why}`);
    }
  });
});
