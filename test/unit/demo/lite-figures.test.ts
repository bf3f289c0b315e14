// What the Lite demo shows as measured is measured (issue 41, item 3): the two configurations without
// trajectories have no wall time, so their median wall time is unknown rather than generated, and no
// configuration claims a share of runs whose budget ran out, as no source records a budget.
import { describe, expect, it } from '@jest/globals';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign } from '#demo/lite-campaign.ts';
import { compactRun } from '#analytics/columns.ts';
import { computeFigures } from '#analytics/group-figures.ts';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { RunTable } from '#analytics/run-table.ts';
import { judgedRun } from '../../helpers/judged-demo-runs.ts';

const data = readDemoData();
const campaign = buildLiteCampaign(data, { seed: 7, hosts: ['demo-runner-1', 'demo-runner-2'] });
const table = RunTable.fromRuns(
  campaign.runs.map((run) => compactRun(judgedRun('Lite', campaign, run, '2026-12-01T00:00:00.000Z'))),
);
const figures = computeFigures(table, selectRuns(table, NO_FILTERS));
const configurationOf = (model: string, harnessVersion: string) =>
  data.configurations.find((c) => c.model === model && c.harnessVersion === harnessVersion)!;

describe('the Lite demo’s figures', () => {
  it('know a median wall time only for configurations whose runs record one, over exactly those runs', () => {
    expect(figures.groups).toHaveLength(4);
    for (const g of figures.groups) {
      const { id } = configurationOf(g.model, g.harnessVersion);
      const walls = data.runs
        .filter((r) => r.configuration === id && r.wallSeconds !== null)
        .map((r) => r.wallSeconds!);
      expect(g.wallSeconds.known).toBe(walls.length);
      if (!walls.length) expect(g.wallSeconds.median).toBeNull();
      else expect(g.wallSeconds.median).not.toBeNull();
    }
    expect(
      figures.groups
        .filter((g) => g.wallSeconds.median === null)
        .map((g) => g.harnessVersion)
        .sort(),
    ).toEqual(['auto-code-rover-run-1', 'swe-agent-20240402']);
  });

  it('claim no share of runs whose budget ran out: none is known', () => {
    for (const g of [...figures.groups, figures.all])
      expect(g.budgetExhausted).toMatchObject({ hits: 0, n: 0, rate: null, ci: null });
  });
});
