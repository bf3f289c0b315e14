// All pairs with Holm's step-down (docs/contract.md §6 "All pairs") against values worked by hand: Holm on a known
// set of p values, exact McNemar with ties and with no discordant pair, and a small campaign of four
// configurations whose six pairs are counted, adjusted, sorted and captioned by hand.
import { describe, expect, it } from '@jest/globals';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { allPairs, MAX_ALL_PAIRS } from '#analytics/all-pairs.ts';
import { RunTable } from '#analytics/run-table.ts';
import { holmAdjust, mcnemarExactP } from '#analytics/statistics.ts';
import { compactRunOf as run } from '../../../helpers/compact-runs.ts';

describe("Holm's step-down adjustment", () => {
  it('multiplies the i-th smallest of m p values by m − i + 1, never lets an adjusted p fall, and gives them back in order', () => {
    // Sorted: 0.005 × 4 = 0.02; 0.01 × 3 = 0.03; 0.03 × 2 = 0.06; 0.04 × 1 = 0.04, raised to 0.06.
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    expect(adjusted.map((p) => Number(p.toFixed(12)))).toEqual([0.03, 0.06, 0.06, 0.02]);
  });

  it('caps at 1, keeps a single p as it is, and adjusts equal p values alike', () => {
    expect(holmAdjust([0.5, 0.6])).toEqual([1, 1]);
    expect(holmAdjust([0.042])).toEqual([0.042]);
    expect(holmAdjust([0.02, 0.02, 0.02])).toEqual([0.06, 0.06, 0.06]);
    expect(holmAdjust([])).toEqual([]);
  });
});

describe("McNemar's exact test at its edges", () => {
  it('is 1 with no discordant pair and with as many one way as the other', () => {
    expect(mcnemarExactP(0, 0)).toBe(1);
    // 3 and 3: 2 × P[X ≤ 3], X ~ Bin(6, ½) = 2 × 42/64 > 1, so 1.
    expect(mcnemarExactP(3, 3)).toBe(1);
    // 2 and 3: 2 × P[X ≤ 2], X ~ Bin(5, ½) = 2 × 16/32 = 1.
    expect(mcnemarExactP(2, 3)).toBe(1);
  });

  it('doubles the smaller tail: 1 against 4 is 2 × (1 + 5)/32', () => {
    expect(mcnemarExactP(1, 4)).toBeCloseTo(0.375, 15);
    expect(mcnemarExactP(4, 1)).toBeCloseTo(0.375, 15);
  });
});

describe('all pairs', () => {
  // Tests resolved: A t1–t10, B t1–t6, C (another harness) t1–t3 and t11, D only ran t1–t5 and resolved t1.
  const runs = [];
  for (let t = 1; t <= 12; t++) {
    runs.push(run({ model: 'A', taskId: `t${t}`, hiddenTest: t <= 10 ? 'pass' : 'fail' }));
    runs.push(run({ model: 'B', taskId: `t${t}`, hiddenTest: t <= 6 ? 'pass' : 'fail' }));
    runs.push(
      run({ model: 'C', harnessVersion: 'h2', taskId: `t${t}`, hiddenTest: t <= 3 || t === 11 ? 'pass' : 'fail' }),
    );
    if (t <= 5) runs.push(run({ model: 'D', taskId: `t${t}`, hiddenTest: t === 1 ? 'pass' : 'fail' }));
  }
  const table = RunTable.fromRuns(runs);
  const g = (model: string, harnessVersion = 'h1') => ({ model, harnessVersion });

  it('compares each pair over its shared tasks, adjusts the p values of those with 10 or more by Holm, and sorts by the adjusted p', () => {
    const result = allPairs(table, selectRuns(table, NO_FILTERS), [g('D'), g('C', 'h2'), g('B'), g('A')], 'tests');
    expect(result).toMatchObject({ outcome: 'tests', configurations: 4, compared: 3, refused: null });
    const rows = result.rows.map((r) => ({
      pair: `${r.a.model}–${r.b.model}`,
      counts: [r.bothResolved, r.aOnly, r.bOnly, r.neither],
      p: r.mcnemarP,
      holm: r.holmP,
      caveat: r.caveat,
    }));
    // A–B: 4 against 0, p = 2/16. A–C: 7 against 1, p = 2 × 9/256. B–C: 3 against 1, p = 2 × 5/16.
    // Holm over three: A–C × 3 = 0.2109375, A–B × 2 = 0.25, B–C × 1 = 0.625.
    const caveat = 'different harness versions: the difference mixes model and harness';
    expect(rows.slice(0, 3)).toEqual([
      { pair: 'A–C', counts: [3, 7, 1, 1], p: 18 / 256, holm: (3 * 18) / 256, caveat },
      { pair: 'A–B', counts: [6, 4, 0, 2], p: 0.125, holm: 0.25, caveat: null },
      { pair: 'B–C', counts: [3, 3, 1, 5], p: 0.625, holm: 0.625, caveat },
    ]);
    // D shares five tasks with each: listed with its counts, no p, outside the family, last.
    expect(rows.slice(3).map((r) => [r.pair, r.counts.reduce((s, n) => s + n, 0), r.p, r.holm])).toEqual([
      ['A–D', 5, null, null],
      ['B–D', 5, null, null],
      ['C–D', 5, null, null],
    ]);
    expect(result.rows[1]!.difference).toBeCloseTo(4 / 12, 12);
  });

  it('refuses more than 12 configurations with a sentence asking to narrow the filter', () => {
    expect(MAX_ALL_PAIRS).toBe(12);
    const many = Array.from({ length: 13 }, (_, k) => g(`m${k}`));
    expect(allPairs(table, selectRuns(table, NO_FILTERS), many, 'tests')).toEqual({
      outcome: 'tests',
      configurations: 13,
      compared: 0,
      rows: [],
      refused:
        '13 configurations are in view; all pairs compares at most 12 (66 pairs). Narrow the filter (model or harness version) to 12 or fewer.',
    });
  });
});
