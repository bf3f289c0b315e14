// Engine mode's per-model rates from `/stats` (rateOn): the outcome asked carries `/stats`' interval; the other one
// Wilson's only where it is a binomial proportion, every task run once, and none where its samples repeat.
import { describe, expect, it } from '@jest/globals';
import { rateOn } from '#dashboard/src/dashboard-cards/models-table.ts';
import { groupStatistics } from '#core/read/group-stats.ts';
import { RunTable } from '#analytics/run-table.ts';
import { wilsonInterval } from '#analytics/statistics.ts';
import { compactRunOf } from '../../../../helpers/compact-runs.ts';

/** 40 tasks × `samples`, every one judged, half resolved; the hidden tests ran on each task's first sample only. */
function statsOf(samples: number) {
  const runs = Array.from({ length: 40 }, (_, t) =>
    Array.from({ length: samples }, (_, s) =>
      compactRunOf({
        model: 'm',
        taskId: `t${String(t).padStart(2, '0')}`,
        harnessVersion: 'h1',
        sample: s + 1,
        verdict: t % 2 ? 'resolved' : 'wrong',
        hiddenTest: s === 0 ? (t % 2 ? 'pass' : 'fail') : null,
      }),
    ),
  ).flat();
  const table = RunTable.fromRuns(runs);
  return groupStatistics(table, Uint32Array.from(runs.keys()), {}, 'tests', 10)[0]!;
}

describe('the rate on the outcome not asked, in engine mode', () => {
  it('has no interval where its samples repeat, though the outcome asked has one sample a task', () => {
    const judge = rateOn(statsOf(3), 'judge', 'tests');
    expect(judge).toMatchObject({ hits: 60, n: 120, rate: 0.5, ci: null });
  });

  it("has Wilson's where every task ran once", () => {
    expect(rateOn(statsOf(1), 'judge', 'tests')).toMatchObject({ hits: 20, n: 40, ci: wilsonInterval(20, 40) });
  });
});
