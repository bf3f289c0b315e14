// The cockpit's figures and `/stats` for the same runs, each read as its reader reads it: the cockpit from the
// columns and issues answers, `/stats` from the read API. Every figure both show must be the same number, on a
// campaign with unknowns: runs not judged yet, runs without a hidden-test result, an errored judge and test
// run, tasks whose tier only the issue record knows, unknown judge costs and tokens, and an unpriced model.
import { describe, expect, it } from '@jest/globals';
import { syntheticCampaign } from '../../bench/synthetic-campaign.ts';
import { NO_FILTERS, selectRuns, taskFacts, type RunFilters } from '../../shared/cockpit/run-selection.ts';
import { groupRuns, rowsByGroup } from '../../shared/cockpit/run-grouping.ts';
import { computeFigures } from '../../shared/cockpit/group-figures.ts';
import { calibration } from '../../shared/cockpit/calibration.ts';
import { columnsFromBytes } from '../../shared/cockpit/columns.ts';
import { apiPaths, type IssuesBody, type StatsBody } from '../../shared/cockpit/contract.ts';
import { RunTable } from '../../shared/cockpit/run-table.ts';
import { DEFAULT_MIN_N, kappaWithheld, rankByRate, type ResolveOutcome } from '../../shared/cockpit/statistics.ts';
import { answerRead, type ReadDeps } from '../../shared/core/read/read-api.ts';
import { parseConfig } from '../../shared/schema/config.ts';
import { InMemoryKeySource, InMemoryObjectStore, InMemoryTable, SettableClock } from '../helpers/in-memory-ports.ts';

const SPACE = 'Campaign';
const LANDED_AT = '2026-11-29T12:00:00.000Z';
const PRICED = 'synthetic-model-01';
/** Its judge costs are partly unknown. */
const UNKNOWN_JUDGE_COST = 'synthetic-model-00';

async function campaign(): Promise<ReadDeps> {
  const table = new InMemoryTable();
  const { issues, rows } = syntheticCampaign(
    { space: SPACE, runs: 600, hosts: ['mac-studio-1'], models: 3, harnesses: ['h1', 'h2'] },
    LANDED_AT,
  );
  for (const issue of issues) await table.putIssue(issue);
  let k = 0;
  for (const row of rows()) {
    k++;
    await table.putRun(
      {
        ...row,
        ...(k % 11 === 0 && { judgeVerdict: 'error', judgeState: 'error' }),
        ...(k % 23 === 0 && { judgeVerdict: null, judgeState: 'flagged', judgeFlags: ['judge-override'] }),
        ...(k % 13 === 0 && { hiddenTestResult: { status: 'error', ranAt: LANDED_AT } }),
        ...(k % 17 === 0 && { attemptCount: 2, firstAttempt: { finishedAt: row.finishedAt, judgeVerdict: 'wrong' } }),
        ...(k % 23 === 0 && { conflictCount: 1 + (k % 3) }),
        ...(k % 19 === 0 && { tier: null, wave: null }),
        // Known tokens throughout, so the priced model's run cost is a number; the synthetic campaign leaves some out.
        ...(row.model === PRICED && {
          promptTokens: row.promptTokens ?? 20_000,
          completionTokens: row.completionTokens ?? 1000,
        }),
        judgeCostUsd: row.model === UNKNOWN_JUDGE_COST && k % 5 === 0 ? null : 0.004,
      },
      null,
    );
  }
  return {
    config: parseConfig({
      spaces: { [SPACE]: { senders: ['mac-studio-1'] } },
      prices: { [PRICED]: { inputPerMTok: 1, outputPerMTok: 10 } },
    }),
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects: new InMemoryObjectStore(),
    pairing: new InMemoryKeySource({}),
    budget: table,
    clock: new SettableClock(new Date('2026-11-30T00:00:00.000Z')),
  };
}

async function get<T>(deps: ReadDeps, path: string): Promise<T> {
  const [route, query = ''] = `/api${path}`.split('?');
  const answer = await answerRead(deps, 'GET', route!, query);
  expect(answer.status).toBe(200);
  return (answer.body instanceof Uint8Array ? JSON.parse(Buffer.from(answer.body).toString('utf8')) : answer.body) as T;
}

async function columnsBody(deps: ReadDeps): Promise<Uint8Array> {
  const answer = await answerRead(deps, 'GET', `/api${apiPaths.columns(SPACE)}`, '');
  expect(answer.status).toBe(200);
  return answer.body as Uint8Array;
}

describe('the cockpit and /stats', () => {
  it('show the same runs, rates on either outcome, intervals, hidden tests and κ per group, filtered or not, where figures are unknown', async () => {
    const deps = await campaign();
    const table = RunTable.fromColumns([columnsFromBytes(await columnsBody(deps))]);
    const facts = taskFacts(table, (await get<IssuesBody>(deps, apiPaths.issues(SPACE))).issues);
    const filterings: RunFilters[] = [
      NO_FILTERS,
      { ...NO_FILTERS, tiers: ['hard'] },
      { ...NO_FILTERS, models: [PRICED, UNKNOWN_JUDGE_COST], harnessVersions: ['h2'] },
    ];
    for (const [filters, outcome] of filterings.flatMap((f) => [
      [f, 'tests'],
      [f, 'judge'],
    ]) as [RunFilters, ResolveOutcome][]) {
      const selection = selectRuns(table, filters, facts);
      const grouping = groupRuns(table, selection);
      const rows = rowsByGroup(grouping, selection);
      const figures = computeFigures(table, selection, grouping, rows);
      // Ranked as the cockpit ranks them (view-model.ts), at the default minimum n.
      const { rankOf } = rankByRate(
        figures.groups,
        (g) => g.outcomes[outcome].rate,
        (g) => g.outcomes[outcome].n,
        DEFAULT_MIN_N,
        (a, b) => a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion),
      );
      const fromCockpit = figures.groups.map((g) => {
        // The κ the cockpit's calibration card shows with the view narrowed to this group.
        const kappa = calibration(
          table,
          rows[grouping.groups.findIndex((k) => k.model === g.model && k.harnessVersion === g.harnessVersion)]!,
        ).kappa;
        const { resolve, hiddenTests: hidden } = g;
        const onOutcome = g.outcomes[outcome];
        return {
          model: g.model,
          harnessVersion: g.harnessVersion,
          rank: rankOf.get(g),
          runs: g.runs,
          n: onOutcome.n,
          resolved: onOutcome.hits,
          rate: onOutcome.rate,
          ci: onOutcome.ci,
          outside: onOutcome.outside,
          judge: {
            n: resolve.n,
            resolved: resolve.hits,
            rate: resolve.rate,
            ci: resolve.ci,
            excluded: resolve.excluded,
            error: resolve.error,
            flagged: resolve.flagged,
            notJudged: resolve.unjudged,
          },
          conflicts: g.conflicts,
          hidden: { n: hidden.n, pass: hidden.hits, rate: hidden.rate, ci: hidden.ci, error: hidden.errored },
          agreement: {
            n: kappa.n,
            kappa: kappa.kappa,
            ci: kappa.ci,
            table: kappa.table,
            withheld: kappaWithheld(g.kappa),
          },
        };
      });
      const stats = await get<StatsBody>(deps, apiPaths.stats(SPACE, { ...filters, outcome }));
      expect(stats.outcome).toBe(outcome);
      expect(figures.groups.length).toBeGreaterThan(1);
      expect(figures.groups.some((g) => g.conflicts > 0)).toBe(true);
      expect(stats.groups.map(({ judgeCostUsd: _j, runCost: _r, ...shared }) => shared)).toEqual(
        fromCockpit.sort((a, b) => a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion)),
      );
    }

    // The campaign has the unknowns the comparison is about.
    const all = computeFigures(table, selectRuns(table, NO_FILTERS)).all;
    for (const count of [
      all.resolve.unjudged,
      all.resolve.error,
      all.resolve.excluded,
      all.resolve.flagged,
      all.hiddenTests.missing,
      all.hiddenTests.errored,
      all.reruns,
    ])
      expect(count).toBeGreaterThan(0);
    expect(selectRuns(table, filterings[1]!, facts).some((i) => table.codes.tier[i] === 0)).toBe(true);
    const stats = await get<StatsBody>(deps, apiPaths.stats(SPACE));
    const costs = (model: string) =>
      stats.groups.filter((g) => g.model === model).map((g) => [g.runCost.totalUsd === null, g.judgeCostUsd === null]);
    // The priced model's tokens are all known: every run is priced.
    for (const g of stats.groups.filter((g) => g.model === PRICED)) expect(g.runCost.priced).toBe(g.runs);
    expect(costs(PRICED)).toEqual([
      [false, false],
      [false, false],
    ]);
    expect(costs(UNKNOWN_JUDGE_COST)).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(costs('synthetic-model-02')).toEqual([
      [true, false],
      [true, false],
    ]);
  });
});
