// The cockpit's figures and `/stats`, each read as its reader reads it: the cockpit from the columns and issues
// answers, `/stats` from the read API. First against a campaign of twelve runs whose figures are worked out by
// hand in the test (so a mistake in the statistics shows), then both readers against each other on a synthetic
// campaign with unknowns: runs not judged yet, runs without a hidden-test result, an errored judge and test
// run, tasks whose tier only the issue record knows, unknown judge costs and tokens, and an unpriced model.
import { describe, expect, it } from '@jest/globals';
import { syntheticCampaign } from '../../../../bench/synthetic-campaign.ts';
import { NO_FILTERS, selectRuns, taskFacts, type RunFilters } from '#analytics/run-selection.ts';
import { groupRuns, rowsByGroup } from '#analytics/run-grouping.ts';
import { computeFigures } from '#analytics/group-figures.ts';
import { calibration } from '#analytics/calibration.ts';
import { columnsFromBytes } from '#analytics/columns.ts';
import { apiPaths, type IssuesBody, type StatsBody } from '#analytics/contract.ts';
import { RunTable } from '#analytics/run-table.ts';
import { reliabilityOf, samplesFigure } from '#analytics/reliability.ts';
import { sampleCountsOf, samplesOfGroup } from '#analytics/task-samples.ts';
import { DEFAULT_MIN_N, kappaWithheld, rankByRate, type ResolveOutcome } from '#analytics/statistics.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { inMemoryReadDeps, InMemoryTable } from '../../../helpers/in-memory-ports.ts';
import { runRow } from '../../../helpers/records.ts';

const SPACE = 'Campaign';
const LANDED_AT = '2026-11-29T12:00:00.000Z';
const PRICED = 'synthetic-model-01';
/** Its judge costs are partly unknown. */
const UNKNOWN_JUDGE_COST = 'synthetic-model-00';

/** The read API's dependencies over `table`, in `SPACE`, with `prices`. */
function readDeps(table: InMemoryTable, prices: Record<string, { inputPerMTok: number; outputPerMTok: number }>) {
  const config = parseConfig({ spaces: { [SPACE]: { senders: ['mac-studio-1'] } }, prices });
  return inMemoryReadDeps(table, config, new Date('2026-11-30T00:00:00.000Z'));
}

async function campaign(): Promise<ReadDeps> {
  const table = new InMemoryTable();
  const { issues, rows } = syntheticCampaign(
    { space: SPACE, runs: 240, hosts: ['mac-studio-1'], models: 3, harnesses: ['h1', 'h2'] },
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
  return readDeps(table, { [PRICED]: { inputPerMTok: 1, outputPerMTok: 10 } });
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

// Twelve runs of two configurations; every figure below is worked out by hand from these (docs/contract.md §6).
// alpha's t5 costs 20,000 prompt × $1 + 1,000 completion × $10 per MTok = $0.03; beta has no price, and a run with
// neither a cost nor tokens (alpha t7, beta t5) has an unknown cost.
interface HandRun {
  model: string;
  taskId: string;
  verdict: string;
  hidden: 'pass' | 'fail' | 'error' | null;
  wall: number | null;
  steps: number;
  cost: { costUsd?: number; promptTokens?: number; completionTokens?: number };
}
const HAND_RUNS: HandRun[] = [
  { model: 'alpha', taskId: 't1', verdict: 'resolved', hidden: 'pass', wall: 100, steps: 10, cost: { costUsd: 0.1 } },
  { model: 'alpha', taskId: 't2', verdict: 'resolved', hidden: 'pass', wall: 200, steps: 20, cost: { costUsd: 0.2 } },
  { model: 'alpha', taskId: 't3', verdict: 'resolved', hidden: 'fail', wall: 300, steps: 30, cost: { costUsd: 0.3 } },
  { model: 'alpha', taskId: 't4', verdict: 'wrong', hidden: 'fail', wall: 400, steps: 40, cost: { costUsd: 0.4 } },
  {
    model: 'alpha',
    taskId: 't5',
    verdict: 'excluded',
    hidden: null,
    wall: 500,
    steps: 50,
    cost: { promptTokens: 20_000, completionTokens: 1000 },
  },
  { model: 'alpha', taskId: 't6', verdict: 'flagged', hidden: 'pass', wall: 600, steps: 60, cost: { costUsd: 0.6 } },
  { model: 'alpha', taskId: 't7', verdict: 'error', hidden: 'error', wall: null, steps: 70, cost: {} },
  { model: 'beta', taskId: 't1', verdict: 'resolved', hidden: 'pass', wall: 50, steps: 5, cost: { costUsd: 0.05 } },
  { model: 'beta', taskId: 't2', verdict: 'wrong', hidden: 'fail', wall: 150, steps: 15, cost: { costUsd: 0.05 } },
  { model: 'beta', taskId: 't3', verdict: 'no_change', hidden: 'pass', wall: 250, steps: 25, cost: { costUsd: 0.05 } },
  { model: 'beta', taskId: 't4', verdict: 'pending', hidden: 'fail', wall: 350, steps: 35, cost: { costUsd: 0.05 } },
  { model: 'beta', taskId: 't5', verdict: 'partial', hidden: null, wall: 450, steps: 45, cost: {} },
];

/** The judge fields landing and the judge leave for each verdict of the table above. */
function judgeFields(verdict: string): Partial<RunRow> {
  switch (verdict) {
    case 'pending':
      return { judgeVerdict: null, judgeState: 'pending' };
    case 'flagged':
      return { judgeVerdict: null, judgeState: 'flagged', judgeFlags: ['judge-override'] };
    case 'excluded':
      return { judgeVerdict: 'excluded', judgeState: 'not-needed', judgeNextAttemptAt: null };
    case 'error':
      return { judgeVerdict: 'error', judgeState: 'error', judgeNextAttemptAt: null };
    default:
      return { judgeVerdict: verdict as RunRow['judgeVerdict'], judgeState: 'judged', judgeNextAttemptAt: null };
  }
}

async function handWorkedCampaign(): Promise<ReadDeps> {
  const table = new InMemoryTable();
  for (const { model, taskId, verdict, hidden, wall, steps, cost } of HAND_RUNS)
    await table.putRun(
      runRow(
        { model, taskId, harnessVersion: 'h1', steps, wallSeconds: wall ?? undefined, ...cost },
        {
          space: SPACE,
          ...judgeFields(verdict),
          hiddenTestResult: hidden && { status: hidden, ranAt: LANDED_AT },
        },
      ),
      null,
    );
  return readDeps(table, { alpha: { inputPerMTok: 1, outputPerMTok: 10 } });
}

// Wilson, z = 1.959964, z² = 3.841459; for k of n: d = 1 + z²/n, centre = (k/n + z²/2n)/d,
// half = (z/d)·√(k/n·(1 − k/n)/n + z²/4n²).
//  3 of 4: d = 1.960365, centre = (.75 + .480182)/d = .627527, half = .999796·√(.046875 + .060023) = .326885
//  3 of 5: d = 1.768292, centre = (.6 + .384146)/d = .556552, half = 1.108394·√(.048 + .038415) = .325827
//  1 of 4: centre = (.25 + .480182)/1.960365 = .372473, half as for 3 of 4 (p(1 − p) is the same) = .326885
//  2 of 4: centre = (.5 + .480182)/1.960365 = .5, half = .999796·√(.0625 + .060023) = .349961
const WILSON = {
  threeOfFour: [0.300642, 0.954413],
  threeOfFive: [0.230724, 0.882379],
  oneOfFour: [0.045587, 0.699358],
  twoOfFour: [0.150039, 0.849961],
};

/** Interval bounds to 6 decimals, as worked out above. */
const near = ([lo, hi]: number[]) => [expect.closeTo(lo!, 6), expect.closeTo(hi!, 6)];

describe('a campaign of twelve runs worked out by hand', () => {
  it('gives /stats its rates with n, Wilson bounds, κ, outside counts and cost per resolved', async () => {
    const deps = await handWorkedCampaign();
    const byModel = async (outcome: ResolveOutcome) =>
      Object.fromEntries(
        (await get<StatsBody>(deps, apiPaths.stats(SPACE, { ...NO_FILTERS, outcome }))).groups.map((g) => [g.model, g]),
      );
    const onJudge = await byModel('judge');
    // alpha, judge: n = resolved + wrong = 3 + 1 (excluded, flagged and error outside); 3/4 = .75.
    // κ over the 4 runs with a counted verdict and pass/fail: resolved·pass 2, resolved·fail 1, other·fail 1;
    // observed (2 + 1)/4 = .75, chance (3·2 + 1·2)/16 = .5, κ = .25/.5 = .5.
    // Cost: priced t1–t6 = .1 + .2 + .3 + .4 + .03 + .6 = 1.63; 3 of them resolved: 1.63/3 = .543333; mean 1.63/6 =
    // .271667; median of .03 .1 .2 .3 .4 .6 = (.2 + .3)/2 = .25; per $10: 10·3/1.63 = 18.404908.
    expect(onJudge.alpha).toMatchObject({
      runs: 7,
      n: 4,
      resolved: 3,
      rate: 0.75,
      ci: near(WILSON.threeOfFour),
      outside: 3,
      judge: { n: 4, resolved: 3, rate: 0.75, excluded: 1, error: 1, flagged: 1, notJudged: 0 },
      hidden: { n: 5, pass: 3, rate: 0.6, ci: near(WILSON.threeOfFive), error: 1 },
      agreement: { n: 4, kappa: 0.5, table: { resolvedPass: 2, resolvedFail: 1, otherPass: 0, otherFail: 1 } },
      runCost: {
        runs: 7,
        priced: 6,
        totalUsd: expect.closeTo(1.63, 9),
        medianUsd: expect.closeTo(0.25, 9),
        meanUsd: expect.closeTo(0.271667, 6),
        resolved: 3,
        perResolvedUsd: expect.closeTo(0.543333, 6),
        resolvedPer10Usd: expect.closeTo(18.404908, 6),
      },
    });
    // beta, judge: n = resolved + wrong + no_change + partial = 4, resolved 1: .25; t4 not judged yet.
    // κ over t1 (resolved·pass), t2 (other·fail), t3 (other·pass): observed 2/3, chance (1·2 + 2·1)/9 = 4/9,
    // κ = (2/9)/(5/9) = .4. Cost: t1–t4 recorded, 4 × .05 = .2; t5 unknown (no price); 1 resolved: .2/1.
    expect(onJudge.beta).toMatchObject({
      runs: 5,
      n: 4,
      resolved: 1,
      rate: 0.25,
      ci: near(WILSON.oneOfFour),
      outside: 1,
      judge: { n: 4, resolved: 1, excluded: 0, error: 0, flagged: 0, notJudged: 1 },
      hidden: { n: 4, pass: 2, rate: 0.5, ci: near(WILSON.twoOfFour), error: 0 },
      agreement: {
        n: 3,
        kappa: expect.closeTo(0.4, 9),
        table: { resolvedPass: 1, resolvedFail: 0, otherPass: 1, otherFail: 1 },
      },
      runCost: {
        runs: 5,
        priced: 4,
        totalUsd: expect.closeTo(0.2, 9),
        resolved: 1,
        perResolvedUsd: expect.closeTo(0.2, 9),
      },
    });

    const onTests = await byModel('tests');
    // alpha, tests: pass t1 t2 t6, fail t3 t4: 3 of 5 = .6; t5 (none) and t7 (error) outside. Priced and passing:
    // t1 t2 t6, so 1.63/3 again. beta, tests: pass t1 t3, fail t2 t4: 2 of 4; priced and passing t1 t3: .2/2 = .1.
    expect(onTests.alpha).toMatchObject({ n: 5, resolved: 3, rate: 0.6, ci: near(WILSON.threeOfFive), outside: 2 });
    expect(onTests.alpha!.runCost).toMatchObject({ resolved: 3, perResolvedUsd: expect.closeTo(0.543333, 6) });
    expect(onTests.beta).toMatchObject({ n: 4, resolved: 2, rate: 0.5, ci: near(WILSON.twoOfFour), outside: 1 });
    expect(onTests.beta!.runCost).toMatchObject({ resolved: 2, perResolvedUsd: expect.closeTo(0.1, 9) });
  });

  it('gives the cockpit the same rates and counts, and the medians of the known values', async () => {
    const deps = await handWorkedCampaign();
    const table = RunTable.fromColumns([columnsFromBytes(await columnsBody(deps))]);
    const { groups, all } = computeFigures(table, selectRuns(table, NO_FILTERS));
    const byModel = Object.fromEntries(groups.map((g) => [g.model, g]));
    expect(byModel.alpha).toMatchObject({
      runs: 7,
      outcomes: {
        judge: { n: 4, hits: 3, rate: 0.75, ci: near(WILSON.threeOfFour), outside: 3 },
        tests: { n: 5, hits: 3, rate: 0.6, ci: near(WILSON.threeOfFive), outside: 2 },
      },
      resolve: { excluded: 1, error: 1, flagged: 1, unjudged: 0 },
      hiddenTests: { errored: 1, missing: 1 },
      kappa: { n: 4, kappa: 0.5 },
    });
    // Wall seconds known for t1–t6: (300 + 400)/2 = 350; steps of all seven: the 4th, 40.
    expect(byModel.alpha!.wallSeconds).toMatchObject({ median: 350, known: 6, n: 7 });
    expect(byModel.alpha!.steps).toMatchObject({ median: 40, known: 7, n: 7 });
    expect(byModel.beta).toMatchObject({
      runs: 5,
      outcomes: {
        judge: { n: 4, hits: 1, rate: 0.25, ci: near(WILSON.oneOfFour), outside: 1 },
        tests: { n: 4, hits: 2, rate: 0.5, ci: near(WILSON.twoOfFour), outside: 1 },
      },
      resolve: { excluded: 0, error: 0, flagged: 0, unjudged: 1 },
      hiddenTests: { errored: 0, missing: 1 },
    });
    // 50 150 250 350 450: 250; 5 15 25 35 45: 25.
    expect(byModel.beta!.wallSeconds).toMatchObject({ median: 250, known: 5, n: 5 });
    expect(byModel.beta!.steps).toMatchObject({ median: 25, known: 5, n: 5 });
    // All twelve: judge n 4 + 4 = 8, resolved 3 + 1 = 4; wall known 11: 50 100 150 200 250 [300] 350 ... → 300;
    // steps 12: 5 10 15 20 25 30 | 35 40 …: (30 + 35)/2 = 32.5.
    expect(all).toMatchObject({
      runs: 12,
      outcomes: { judge: { n: 8, hits: 4, rate: 0.5 } },
      resolve: { excluded: 1, error: 1, flagged: 1, unjudged: 1 },
    });
    expect(all.wallSeconds).toMatchObject({ median: 300, known: 11, n: 12 });
    expect(all.steps).toMatchObject({ median: 32.5, known: 12, n: 12 });
  });
});

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
      const samplesOf = sampleCountsOf(table, selection, figures.groups, outcome);
      const fromCockpit = figures.groups.map((g, k) => {
        // The κ the cockpit's calibration card shows with the view narrowed to this group.
        const groupRows =
          rows[grouping.groups.findIndex((k) => k.model === g.model && k.harnessVersion === g.harnessVersion)]!;
        const kappa = calibration(table, groupRows).kappa;
        const { resolve, hiddenTests: hidden } = g;
        const onOutcome = g.outcomes[outcome];
        return {
          model: g.model,
          harnessVersion: g.harnessVersion,
          rank: rankOf.get(g),
          runs: g.runs,
          // The tasks a KPI tile counts.
          tasks: new Set(Array.from(groupRows, (i) => table.text.taskId[i])).size,
          generated: g.generated,
          n: onOutcome.n,
          resolved: onOutcome.hits,
          rate: onOutcome.rate,
          ci: onOutcome.ci,
          outside: onOutcome.outside,
          // One run per task here: the Wilson interval, and pass@1 = pass^1 = the rate.
          samples: samplesFigure(reliabilityOf(samplesOfGroup(samplesOf, k))).figure,
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
          foreign: g.foreign,
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
