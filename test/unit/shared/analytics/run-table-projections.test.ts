// The run table the cockpit keeps and what it projects for the charts (shared/analytics/run-table.ts,
// original-fix-comparison.ts, scatter-layers.ts, task-order.ts): rows replaced in place under live deltas and
// found by the server's run id, the original fix's times, and the scatter and matrix points.
import fc from 'fast-check';
import { describe, expect, it } from '@jest/globals';
import { NO_FILTERS, selectRuns, taskFacts } from '#analytics/run-selection.ts';
import { groupRuns, rowsByGroup } from '#analytics/run-grouping.ts';
import { originalFixComparison } from '#analytics/original-fix-comparison.ts';
import { scatterLayers } from '#analytics/scatter-layers.ts';
import { taskOrder, tasksInView } from '#analytics/task-order.ts';
import { compactRunOf } from '../../../helpers/compact-runs.ts';
import { RunTable } from '#analytics/run-table.ts';
import { encodeColumns } from '#analytics/columns.ts';
import { runId } from '#schema/run-id.ts';

const run = compactRunOf;

const all = (table: RunTable) => selectRuns(table, NO_FILTERS);

describe('original fix comparison', () => {
  it("pairs resolved runs with a known wall time to their task's PR-open-to-merge time", () => {
    const table = RunTable.fromRuns([
      run({ taskId: 'a', verdict: 'resolved', wallSeconds: 3600 }),
      run({ taskId: 'b', verdict: 'resolved', wallSeconds: 7200 }),
      run({ taskId: 'c', verdict: 'resolved', wallSeconds: null }),
      run({ taskId: 'd', verdict: 'wrong', wallSeconds: 60 }),
      run({ taskId: 'e', verdict: 'resolved', wallSeconds: 60 }),
    ]);
    const facts = taskFacts(
      table,
      ['a', 'b', 'c', 'd'].map((taskId, k) => ({
        taskId,
        order: k,
        tier: null,
        wave: 1,
        prToMergeHours: 10 * (k + 1),
      })),
    );
    const selection = all(table);
    const grouping = groupRuns(table, selection);
    const [comparison] = originalFixComparison(table, grouping, rowsByGroup(grouping, selection), facts);
    expect(comparison).toMatchObject({ pairs: 2, modelHours: 1.5, originalHours: 15 });
  });
});

describe('scatter and matrix projections', () => {
  it('leave off runs without both figures, and non-positive ones on log axes', () => {
    const table = RunTable.fromRuns([
      run({ completionTokens: 10, wallSeconds: 5 }),
      run({ completionTokens: null }),
      run({ completionTokens: 0 }),
    ]);
    const [linear] = scatterLayers(table, all(table), 1, () => 0, false);
    const [log] = scatterLayers(table, all(table), 1, () => 0, true);
    expect([...linear!.x]).toEqual([10, 0]);
    expect(linear!.leftOff).toBe(1);
    expect([...log!.x]).toEqual([10]);
    expect(log!.leftOff).toBe(2);
  });

  it('split runs into layers, e.g. by verdict', () => {
    const table = RunTable.fromRuns([
      run({ verdict: 'resolved', completionTokens: 1 }),
      run({ verdict: 'wrong', completionTokens: 2 }),
      run({ verdict: 'resolved', completionTokens: 3 }),
    ]);
    const layers = scatterLayers(table, all(table), 7, (i) => table.codes.verdict[i]!, true);
    expect([...layers[1]!.x]).toEqual([1, 3]);
    expect([...layers[3]!.x]).toEqual([2]);
  });

  it('order tasks as published (wave, then order), then tasks without a record by id; a filter keeps that order', () => {
    const table = RunTable.fromRuns(
      ['zeta', 'w2-first', 'w1-second', 'alpha', 'w1-first'].map((taskId) =>
        run({ taskId, model: taskId === 'alpha' || taskId === 'w1-second' ? 'b' : 'a' }),
      ),
    );
    const facts = taskFacts(table, [
      { taskId: 'w1-first', order: 1, wave: 1, tier: null, prToMergeHours: null },
      { taskId: 'w1-second', order: 2, wave: 1, tier: null, prToMergeHours: null },
      { taskId: 'w2-first', order: 3, wave: 2, tier: null, prToMergeHours: null },
    ]);
    const order = taskOrder(table, facts);
    expect([...order].map((t) => table.dictionaries.taskId.values[t])).toEqual([
      'w1-first',
      'w1-second',
      'w2-first',
      'alpha',
      'zeta',
    ]);
    const inView = tasksInView(table, selectRuns(table, { ...NO_FILTERS, models: ['b'] }, facts), order);
    expect([...inView].map((t) => table.dictionaries.taskId.values[t])).toEqual(['w1-second', 'alpha']);
  });
});

describe('the run table under live deltas', () => {
  it('reports a repeated, unchanged run as no change, so the page does not redraw', () => {
    const table = RunTable.fromRuns([run({ taskId: 'same' })]);
    const revision = table.revision;
    expect(table.upsert(run({ taskId: 'same' }))).toEqual({ index: 0, changed: false });
    expect(table.revision).toBe(revision);
    expect(table.upsert(run({ taskId: 'same', wallSeconds: null })).changed).toBe(true);
    expect(table.number('wallSeconds', 0)).toBeNull();
  });

  it('finds a row by its run id exactly as the server keys rows, however the names split', () => {
    // runId makes `:` and `/` in a model `_`, and task ids may hold `__`: these pairs are one run each.
    const table = RunTable.fromColumns([
      encodeColumns(
        [
          run({ model: 'org/m:7b', taskId: 'django__django-1', harnessVersion: 'h1' }),
          run({ model: 'm', taskId: 'x__y', harnessVersion: 'h__2' }),
        ],
        '2026-01-01T00:00:00.000Z',
      ),
    ]);
    expect(table.indexOfId('org_m_7b__django__django-1__h1')).toBe(0);
    expect(table.indexOfId('m__x__y__h__2')).toBe(1);
    expect(table.indexOfId('m__x__y__h1')).toBe(-1);
    expect(table.indexOfId('org_m_7b__django__h1')).toBe(-1);
    // The same ids through other names replace their rows rather than add some.
    expect(
      table.upsert(run({ model: 'org_m:7b', taskId: 'django__django-1', harnessVersion: 'h1', steps: 99 })),
    ).toEqual({ index: 0, changed: true });
    expect(table.upsert(run({ model: 'm__x', taskId: 'y', harnessVersion: 'h__2' }))).toMatchObject({ index: 1 });
    expect(table.size).toBe(2);
    expect(table.string('model', 0)).toBe('org_m:7b');
    expect(table.indexOfId('org_m_7b__django__django-1__h1')).toBe(0);
    const added = table.upsert(run({ model: 'm', taskId: 'x__y', harnessVersion: 'h1' }));
    expect(added).toEqual({ index: 2, changed: true });
    expect([0, 1, 2].map((i) => table.indexOfId(table.id(i)))).toEqual([0, 1, 2]);
  });

  it('finds every row by id after deltas, as a map of all ids would', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            model: fc.constantFrom('a', 'a:b', 'a_b', 'a__b'),
            taskId: fc.constantFrom('t', 'b__t', 't__h', 't__h__s2'),
            harnessVersion: fc.constantFrom('h', 'h__h', 't__h', 's2'),
            sample: fc.constantFrom(1, 2, 3),
          }),
          { maxLength: 40 },
        ),
        (identities) => {
          const table = new RunTable();
          const byId = new Map<string, number>();
          for (const identity of identities) {
            const { index } = table.upsert(run(identity));
            byId.set(runId(identity), index);
          }
          expect(table.size).toBe(byId.size);
          for (const [id, index] of byId) expect(table.indexOfId(id)).toBe(index);
        },
      ),
    );
  });
});
