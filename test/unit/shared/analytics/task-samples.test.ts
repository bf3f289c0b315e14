// A configuration's samples of a task as the page finds them in its run table: the rows of one (model, task,
// harness version), by sample number, and each group's reliability figures from the table's counts.
import { describe, expect, it } from '@jest/globals';
import { computeFigures } from '#analytics/group-figures.ts';
import { clusteredRate, reliabilityOf } from '#analytics/reliability.ts';
import { RunTable } from '#analytics/run-table.ts';
import { reliabilityOfGroups, sampleCountsOf } from '#analytics/task-samples.ts';
import { compactRunOf } from '../../../helpers/compact-runs.ts';

const sample = (model: string, taskId: string, sample: number, hiddenTest: 'pass' | 'fail') =>
  compactRunOf({ model, taskId, harnessVersion: 'h1', sample, hiddenTest });

describe('samples in the run table', () => {
  it('clusters a task by the least repository its counted runs name, as the engine’s min(repo) does', () => {
    const runs = [
      compactRunOf({ model: 'a', taskId: 't1', sample: 1, hiddenTest: 'pass', repo: null }),
      compactRunOf({ model: 'a', taskId: 't1', sample: 2, hiddenTest: 'fail', repo: 'acme/zeta' }),
      compactRunOf({ model: 'b', taskId: 't1', sample: 1, hiddenTest: 'pass', repo: 'acme/alpha' }),
      // Not counted on hidden tests: its repository names no cluster.
      compactRunOf({ model: 'b', taskId: 't1', sample: 2, hiddenTest: null, repo: 'acme/aardvark' }),
      compactRunOf({ model: 'a', taskId: 't2', sample: 1, hiddenTest: 'fail', repo: null }),
    ];
    const groups = [
      { model: 'a', harnessVersion: 'h1' },
      { model: 'b', harnessVersion: 'h1' },
    ];
    const counts = sampleCountsOf(RunTable.fromRuns(runs), Uint32Array.from(runs.keys()), groups, 'tests');
    expect(counts.tasks).toEqual(['t1', 't2']);
    expect(counts.repos).toEqual(['acme/alpha', null]);
  });

  it('finds every sample of a run’s model, task and harness version, by sample number, and one landing later', () => {
    const table = RunTable.fromRuns([
      sample('a', 't1', 3, 'pass'),
      sample('b', 't1', 1, 'pass'),
      sample('a', 't1', 1, 'fail'),
      sample('a', 't2', 2, 'pass'),
      sample('a', 't1', 2, 'pass'),
    ]);
    const samplesOf = (i: number) => table.samplesOf(i).map((j) => table.id(j));
    expect(samplesOf(0)).toEqual(['a__t1__h1', 'a__t1__h1__s2', 'a__t1__h1__s3']);
    expect(samplesOf(1)).toEqual(['b__t1__h1']);
    table.upsert(sample('a', 't1', 4, 'fail'));
    expect(samplesOf(2)).toEqual(['a__t1__h1', 'a__t1__h1__s2', 'a__t1__h1__s3', 'a__t1__h1__s4']);
  });

  it('gives each group the figures of its counts per task on the outcome', () => {
    const runs = [
      ...[1, 2, 3].map((s) => sample('a', 't1', s, 'pass')),
      ...[1, 2, 3].map((s) => sample('a', 't2', s, s === 1 ? 'pass' : 'fail')),
      ...[1, 2].map((s) => sample('b', 't1', s, 'fail')),
    ];
    const table = RunTable.fromRuns(runs);
    const selection = Uint32Array.from(runs.keys());
    const groups = [
      { model: 'b', harnessVersion: 'h1' },
      { model: 'a', harnessVersion: 'h1' },
    ];
    const [b, a] = reliabilityOfGroups(table, selection, groups, 'tests');
    expect(a).toEqual(
      reliabilityOf([
        { task: 't1', n: 3, c: 3, repo: 'acme/widgets' },
        { task: 't2', n: 3, c: 1, repo: 'acme/widgets' },
      ]),
    );
    // t1 3/3, t2 1/3: pass@2 = (1 + (1 − C(2,2)/C(3,2)))/2 = 5/6, pass^2 = (1 + 0)/2.
    const hand = [
      [1, 2 / 3, 2 / 3],
      [2, 5 / 6, 1 / 2],
      [3, 1, 1 / 2],
    ];
    a!.curve.forEach((p, k) => {
      expect(p.k).toBe(hand[k]![0]);
      expect(p.passAt).toBeCloseTo(hand[k]![1]!, 12);
      expect(p.passHat).toBeCloseTo(hand[k]![2]!, 12);
    });
    expect([b!.samples, b!.resolved, b!.tasks]).toEqual([2, 0, 1]);
  });

  it("clusters by task a group that pools models, such as a harness version's total over every model", () => {
    const runs = [
      ...[1, 2, 3].map((s) => sample('a', 't1', s, 'pass')),
      ...[1, 2, 3].map((s) => sample('a', 't2', s, s === 1 ? 'pass' : 'fail')),
      ...[1, 2].map((s) => sample('b', 't1', s, 'fail')),
      sample('b', 't3', 1, 'pass'),
    ];
    const table = RunTable.fromRuns(runs);
    const selection = Uint32Array.from(runs.keys());
    const pooled = { groups: [{ model: 'All models', harnessVersion: 'h1' }], of: new Int32Array(runs.length) };
    const [total] = computeFigures(table, selection, pooled, [selection]).groups;
    // t1: 5 runs, 3 resolved (a's three, b's none); t2: 3 runs, 1 resolved; t3: 1 run, resolved.
    const tasks = [
      { task: 't1', n: 5, c: 3, repo: null },
      { task: 't2', n: 3, c: 1, repo: null },
      { task: 't3', n: 1, c: 1, repo: null },
    ];
    expect(total!.outcomes.tests).toMatchObject({ hits: 5, n: 9, ci: clusteredRate(tasks).ci });
    expect(total!.outcomes.tests.ci).not.toBeNull();
  });

  it('clusters by task the share of runs whose budget ran out, where samples repeat', () => {
    // t1: 3 samples, all out of budget; t2: 3 samples, none; t3: 2 samples, one.
    const ended = (taskId: string, sampleNo: number, budget: boolean) =>
      compactRunOf({
        model: 'a',
        taskId,
        harnessVersion: 'h1',
        sample: sampleNo,
        outcome: budget ? 'budget' : 'finished',
      });
    const runs = [
      ...[1, 2, 3].map((k) => ended('t1', k, true)),
      ...[1, 2, 3].map((k) => ended('t2', k, false)),
      ended('t3', 1, true),
      ended('t3', 2, false),
    ];
    const table = RunTable.fromRuns(runs);
    const [a] = computeFigures(table, Uint32Array.from(runs.keys())).groups;
    const tasks = [
      { task: 't1', n: 3, c: 3, repo: null },
      { task: 't2', n: 3, c: 0, repo: null },
      { task: 't3', n: 2, c: 1, repo: null },
    ];
    expect(a!.budgetExhausted).toMatchObject({ hits: 4, n: 8, ci: clusteredRate(tasks).ci });
    // Wilson's over 8 runs would be narrower than the clustered interval over 3 tasks.
    expect(a!.budgetExhausted.ci![1] - a!.budgetExhausted.ci![0]).toBeGreaterThan(0.5);
  });
});
