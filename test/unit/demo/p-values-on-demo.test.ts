// How p reads (issue 41, item 4): two significant digits, "< 0.001" below, and never rounded across 0.05 or 0.01
// — on the real SWE-bench Lite demo, whose largest McNemar difference has a Holm-adjusted p of 0.0452 that
// read "0.05", and at the edges where two digits would round across a threshold.
import { describe, expect, it } from '@jest/globals';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign } from '#demo/lite-campaign.ts';
import { allPairs } from '#analytics/all-pairs.ts';
import { compactRun } from '#analytics/columns.ts';
import { pText } from '#analytics/comparison-sentence.ts';
import { groupRuns } from '#analytics/run-grouping.ts';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { RunTable } from '#analytics/run-table.ts';
import { judgedRun } from '../../helpers/judged-demo-runs.ts';

const campaign = buildLiteCampaign(readDemoData(), { seed: 7, hosts: ['demo-runner-1', 'demo-runner-2'] });
const table = RunTable.fromRuns(
  campaign.runs.map((run) => compactRun(judgedRun('Lite', campaign, run, '2026-12-01T00:00:00.000Z'))),
);
const selection = selectRuns(table, NO_FILTERS);
const rows = allPairs(table, selection, groupRuns(table, selection).groups, 'tests').rows;

/** What a reader concludes from a printed p about each threshold. */
const sides = (p: number) => [0.05, 0.01, 0.001].map((t) => p < t);
const significantDigits = (text: string) => text.replace(/^0\.0*/, '').replace('.', '').length;

describe('p on the demo’s pairs', () => {
  it('prints the Holm-adjusted p of 0.0452 as 0.045, below 0.05 as it is', () => {
    const top = rows.find((r) => r.a.model === 'claude-3-5-sonnet-20240620' && r.b.model === 'gpt4')!;
    expect(top.holmP!).toBeCloseTo(0.04523, 5);
    expect(pText(top.holmP!)).toBe('0.045');
  });

  it('prints every p with two significant digits, on the side of 0.05, 0.01 and 0.001 it is on', () => {
    const ps = rows.flatMap((r) => [r.mcnemarP!, r.holmP!]);
    expect(ps.length).toBe(12);
    for (const p of ps) {
      const text = pText(p);
      if (p < 0.001) expect(text).toBe('< 0.001');
      else {
        expect(sides(Number(text))).toEqual(sides(p));
        expect(significantDigits(text)).toBe(2);
      }
    }
  });
});

describe('p at the thresholds', () => {
  it.each([
    [0.0496, '0.0496'],
    [0.04996, '0.04996'],
    [0.00996, '0.00996'],
    [0.05, '0.050'],
    [0.0504, '0.050'],
    [0.00101, '0.0010'],
    [0.000999, '< 0.001'],
    [0.5, '0.50'],
    [1, '1.0'],
  ])('writes %f as %s', (p, text) => {
    expect(pText(p)).toBe(text);
    if (p >= 0.001) expect(sides(Number(text))).toEqual(sides(p));
  });
});
