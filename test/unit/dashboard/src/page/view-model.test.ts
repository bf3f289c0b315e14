// The cockpit's view model (dashboard/src/page/view-model.ts) on a campaign small enough to count by hand:
// which runs are in view, on which outcome, how the configurations rank, and what a change of outcome reuses.
//
//   task:          t1        t2        t3        t4
//   alpha · h1     pass/res  pass/wr   pass/wr   fail/wr    tests 3/4, judge 1/4
//   beta · h1      pass/res  fail/res  fail/res  fail/res   tests 1/4, judge 4/4
//   gamma · h1     pass/res                                 tests 1/1, judge 1/1 (below minN 2)
import { describe, expect, it } from '@jest/globals';
import type { CompactRun } from '#analytics/columns.ts';
import { RunTable } from '#analytics/run-table.ts';
import { compute, indexData, tasksIn, type Computed } from '#dashboard/src/page/view-model.ts';
import { noFilters, type CockpitFilters } from '#dashboard/src/page/url-state.ts';
import { compactRunOf } from '../../../../helpers/compact-runs.ts';

const run = (model: string, taskId: string, hiddenTest: 'pass' | 'fail' | null, verdict: 'resolved' | 'wrong') =>
  compactRunOf({ model, taskId, harnessVersion: 'h1', hiddenTest, verdict, firstVerdict: verdict });

const CAMPAIGN: CompactRun[] = [
  run('alpha', 't1', 'pass', 'resolved'),
  run('alpha', 't2', 'pass', 'wrong'),
  run('alpha', 't3', 'pass', 'wrong'),
  run('alpha', 't4', 'fail', 'wrong'),
  run('beta', 't1', 'pass', 'resolved'),
  run('beta', 't2', 'fail', 'resolved'),
  run('beta', 't3', 'fail', 'resolved'),
  run('beta', 't4', 'fail', 'resolved'),
  run('gamma', 't1', 'pass', 'resolved'),
];
const SETTINGS = { minN: 2, campaign: undefined };

const viewOf = (runs: CompactRun[], filters: Partial<CockpitFilters> = {}, outcome: 'tests' | 'judge' | null = null) =>
  compute(indexData(RunTable.fromRuns(runs), []), 'data', { ...noFilters(), ...filters }, outcome, SETTINGS);

const ranking = (m: Computed) =>
  m.figures.groups.map((g) => {
    const r = g.outcomes[m.outcome];
    return `${m.label(g)} ${r.hits}/${r.n} ${m.rankOf(g) ?? '—'}`;
  });

describe('the view model', () => {
  it('counts on the hidden tests where runs in view have results, ranking best first and the too few last', () => {
    const m = viewOf(CAMPAIGN);
    expect(m.outcome).toBe('tests');
    expect(m.outcomeChosen).toBe(false);
    expect(m.selection).toHaveLength(9);
    expect(ranking(m)).toEqual(['alpha 3/4 1', 'beta 1/4 2', 'gamma 1/1 —']);
  });

  it('counts on the judge when the reader chooses it, and ranks again on it', () => {
    const m = viewOf(CAMPAIGN, {}, 'judge');
    expect(m.outcomeChosen).toBe(true);
    expect(ranking(m)).toEqual(['beta 4/4 1', 'alpha 1/4 2', 'gamma 1/1 —']);
  });

  it('defaults to the judge where no run in view has a test result, and says so when the tests are asked for', () => {
    const judgedOnly = CAMPAIGN.map((r) => ({ ...r, hiddenTest: null }));
    expect(viewOf(judgedOnly).outcome).toBe('judge');
    const asked = viewOf(judgedOnly, {}, 'tests');
    expect(asked.noTestResults).toBe(true);
    expect(viewOf(CAMPAIGN, {}, 'tests').noTestResults).toBe(false);
  });

  it('narrows to the runs the filters select', () => {
    const m = viewOf(CAMPAIGN, { models: ['beta'] });
    expect(Array.from(m.selection, (i) => m.table.string('model', i))).toEqual(['beta', 'beta', 'beta', 'beta']);
    expect(ranking(m)).toEqual(['beta 1/4 1']);
    const failing = viewOf(CAMPAIGN, { hiddenTests: ['fail'] });
    expect(tasksIn(failing, failing.selection)).toBe(3);
    expect(failing.selection).toHaveLength(4);
  });

  it('reads empirical difficulty on the outcome in view: t4 is unsolved on the tests, and no task is on the judge', () => {
    const tests = viewOf(CAMPAIGN, { difficulties: ['unsolved'] });
    expect(Array.from(tests.selection, (i) => tests.table.string('taskId', i))).toEqual(['t4', 't4']);
    expect(viewOf(CAMPAIGN, { difficulties: ['unsolved'] }, 'judge').selection).toHaveLength(0);
  });

  it('reuses the runs and figures already computed when only the outcome changes', () => {
    const data = indexData(RunTable.fromRuns(CAMPAIGN), []);
    const tests = compute(data, 'data', noFilters(), null, SETTINGS);
    const judge = compute(data, 'data', noFilters(), 'judge', SETTINGS, tests);
    expect(judge.selection).toBe(tests.selection);
    expect(new Set(judge.figures.groups)).toEqual(new Set(tests.figures.groups));
    expect(judge.figures.groups[0]).toBe(tests.figures.groups.find((g) => g.model === 'beta'));
    // Other data (another key) is computed anew.
    expect(compute(data, 'changed', noFilters(), 'judge', SETTINGS, tests).selection).not.toBe(tests.selection);
  });

  it('recomputes the runs in view on a change of outcome when a difficulty filter reads it', () => {
    const data = indexData(RunTable.fromRuns(CAMPAIGN), []);
    const filters = { ...noFilters(), difficulties: ['unsolved' as const] };
    const tests = compute(data, 'data', filters, null, SETTINGS);
    const judge = compute(data, 'data', filters, 'judge', SETTINGS, tests);
    expect(tests.selection).toHaveLength(2);
    expect(judge.selection).toHaveLength(0);
  });

  it('names a configuration with its harness version only when several are in view', () => {
    expect(viewOf(CAMPAIGN).several).toBe(false);
    const m = viewOf([...CAMPAIGN, { ...run('alpha', 't1', 'pass', 'resolved'), harnessVersion: 'h2' }]);
    expect(m.several).toBe(true);
    expect(m.figures.groups.map((g) => m.label(g))).toContain('alpha · h2');
    expect(m.figures.groups.map((g) => m.label(g))).toContain('alpha · h1');
  });
});
