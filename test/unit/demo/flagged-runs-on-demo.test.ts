// Flagged runs on the real SWE-bench Lite demo (issue 41, item 2): a run whose "resolved" a check withheld is
// counted as "flagged", never as "not judged yet"; the verdict filter and search find it as such, κ's table
// leaves it out and says how many, and an export carries its judge state and the rules that fired.
import { describe, expect, it } from '@jest/globals';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign } from '#demo/lite-campaign.ts';
import { calibration } from '#analytics/calibration.ts';
import { compactRun } from '#analytics/columns.ts';
import { resolveRate } from '#analytics/rate-figures.ts';
import { searchRows, selectByResult, verdictKeyAt } from '#analytics/result-filters.ts';
import { countRuns } from '#analytics/run-counts.ts';
import { snapshotRun } from '#analytics/run-snapshot.ts';
import { RunTable } from '#analytics/run-table.ts';
import { outcomeRate } from '#analytics/statistics.ts';
import { exportRecord } from '#core/read/exports.ts';
import { DEFAULT_EXPORT_FIELDS } from '#schema/export-fields.ts';
import { judgedRun } from '../../helpers/judged-demo-runs.ts';

const campaign = buildLiteCampaign(readDemoData(), { seed: 7, hosts: ['demo-runner-1', 'demo-runner-2'] });
const now = '2026-12-01T00:00:00.000Z';
const rows = campaign.runs.map((run) => judgedRun('Lite', campaign, run, now));
const table = RunTable.fromRuns(rows.map(compactRun));
const all = Uint32Array.from(rows, (_, i) => i);
const flaggedIds = rows.filter((r) => r.judgeState === 'flagged').map((r) => r.id);
const unjudgedIds = rows.filter((r) => r.judgeState !== 'flagged' && r.judgeVerdict === null).map((r) => r.id);
const ids = (selection: Uint32Array) => Array.from(selection, (i) => table.id(i)).sort();

describe('flagged runs of the demo', () => {
  it('are the runs the stand-in judged "resolved" with a candidate that shares no file with the fix', () => {
    expect(flaggedIds).toHaveLength(10);
    for (const row of rows.filter((r) => r.judgeState === 'flagged'))
      expect(row).toMatchObject({ judgeVerdict: null, judgeFlags: ['resolved-without-evidence'] });
  });

  it('count as flagged, apart from the runs not judged yet, and stay outside the resolve rate', () => {
    const counts = countRuns(table, all);
    expect(counts.verdicts.flagged).toBe(flaggedIds.length);
    expect(counts.verdicts.unjudged).toBe(unjudgedIds.length);
    expect(Object.values(counts.byVerdictAndTest.flagged).reduce((a, b) => a + b, 0)).toBe(flaggedIds.length);
    const judge = resolveRate(counts.verdicts);
    expect({ flagged: judge.flagged, unjudged: judge.unjudged }).toEqual({
      flagged: flaggedIds.length,
      unjudged: unjudgedIds.length,
    });
    const decided = rows.filter(
      (r) => r.judgeVerdict !== null && r.judgeVerdict !== 'excluded' && r.judgeVerdict !== 'error',
    );
    expect(judge.n).toBe(decided.length);
    // Every run is either in n or counted outside it: a flagged one is outside.
    const judgeOutcome = outcomeRate(counts, 'judge');
    expect(judgeOutcome.n + judgeOutcome.outside).toBe(rows.length);
  });

  it('are shown and found as "flagged": the verdict filter, the search words, the run’s verdict key', () => {
    expect(ids(selectByResult(table, all, { verdicts: ['flagged'], hiddenTests: [] }))).toEqual(flaggedIds.sort());
    expect(ids(selectByResult(table, all, { verdicts: ['unjudged'], hiddenTests: [] }))).toEqual(unjudgedIds.sort());
    expect(ids(searchRows(table, all, 'flagged', []))).toEqual(flaggedIds.sort());
    for (const i of all) expect(verdictKeyAt(table, i) === 'flagged').toBe(flaggedIds.includes(table.id(i)));
  });

  it('are left out of κ, and calibration says how many', () => {
    const cal = calibration(table, all);
    expect(cal.flagged).toBe(flaggedIds.length);
    const withTests = rows.filter(
      (r) =>
        ['resolved', 'partial', 'wrong', 'no_change'].includes(r.judgeVerdict ?? '') &&
        ['pass', 'fail'].includes(r.hiddenTestResult?.status ?? ''),
    );
    expect(cal.kappa.n).toBe(withTests.length);
  });

  it('export with their judge state and the rules that fired', () => {
    expect(DEFAULT_EXPORT_FIELDS).toEqual(expect.arrayContaining(['judgeState', 'judgeFlags']));
    for (const row of rows) {
      const record = exportRecord(snapshotRun(row), DEFAULT_EXPORT_FIELDS, {});
      expect(record.judgeState).toBe(row.judgeState);
      expect(record.judgeFlags).toBe(row.judgeFlags!.join(','));
    }
    const flagged = rows.find((r) => r.judgeState === 'flagged')!;
    expect(exportRecord(snapshotRun(flagged), DEFAULT_EXPORT_FIELDS, {})).toMatchObject({
      judgeVerdict: null,
      judgeState: 'flagged',
      judgeFlags: 'resolved-without-evidence',
    });
  });
});
