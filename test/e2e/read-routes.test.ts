// `/stats`, `/compare`, `/budget` and the exports end to end: local mode's HTTP server, the read-api
// handler, the emulators. Rows are landed by the real landing rules and judged as the judge writes them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { judged, landedRow, storedIssue } from '../../bench/direct-load.ts';
import { pairedComparison, proportion } from '../../shared/cockpit/statistics.ts';
import {
  apiPaths,
  COCKPIT_ISSUE_FIELDS,
  type BudgetBody,
  type CompareBody,
  type ExportBody,
  type IssuesBody,
  type PairsBody,
  type StatsBody,
} from '../../shared/cockpit/contract.ts';
import { parquetReadObjects } from 'hyparquet';
import { DEFAULT_EXPORT_FIELDS, exportTypeOf, type ExportField } from '../../shared/schema/export-fields.ts';
import { runId, type RunRow } from '../../shared/schema/run.ts';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const SPACE = 'Reads';
const NARROW = 'Narrow';
/** Two models on twelve tasks: enough pairs to compare. */
const PAIRS = 'Pairs';
/** Thirteen models: one configuration more than all pairs compares. */
const CROWD = 'Crowd';
/** A model name with a comma (why filters are read from the raw query) and one a spreadsheet would run. */
const COMMA = 'acme/coder, large';
const FORMULA = '=HYPERLINK("http://evil.example","x")';
const AT = '2026-03-01T00:00:00.000Z';

let local: TestLocalMode;

type Verdict = 'resolved' | 'wrong';
function run(
  space: string,
  model: string,
  taskId: string,
  verdict: Verdict | null,
  hidden: 'pass' | 'fail' | null,
  tokens: [number, number] | null = [2_000_000, 100_000],
): RunRow {
  const identity = { model, taskId, harnessVersion: 'h1' };
  const row = landedRow(
    space,
    {
      kind: 'run',
      id: runId(identity),
      row: {
        ...identity,
        host: 'mac-studio-1',
        tier: 'easy',
        wave: 1,
        startedAt: AT,
        finishedAt: AT,
        outcome: 'finished',
        promptTokens: tokens?.[0] ?? null,
        completionTokens: tokens?.[1] ?? null,
      },
      patch: 'diff --git a/x b/x\n',
    },
    // Landed now, as landing would stamp it: the read side's deltas go by updatedAt.
    new Date().toISOString(),
    hidden ? { hiddenTestResult: { status: hidden, ranAt: AT } } : undefined,
  );
  return verdict
    ? judged(
        row,
        {
          verdict,
          rootCauseFound: true,
          sameFilesAsReference: true,
          testAdded: false,
          wouldCompile: true,
          reason: 'r',
        },
        'demo-oracle',
        new Date().toISOString(),
      )
    : row;
}

beforeAll(async () => {
  local = await startTestLocalMode(
    {
      spaces: {
        [SPACE]: { senders: ['mac-studio-1'] },
        [NARROW]: {
          senders: ['mac-studio-1'],
          exports: { fields: ['judgeReason', 'judgeVerdict', 'taskId', 'model'] },
        },
        [PAIRS]: { senders: ['mac-studio-1'] },
        [CROWD]: { senders: ['mac-studio-1'] },
      },
      prices: { [COMMA]: { inputPerMTok: 1, outputPerMTok: 10 } },
    },
    {},
    { sweepIntervalSeconds: 3600 },
  );
  // COMMA resolves t1–t4, FORMULA resolves t1, t2 and t5; both ran t1–t6. A third model ran only t7.
  const comma: [string, Verdict, 'pass' | 'fail'][] = [
    ['t1', 'resolved', 'pass'],
    ['t2', 'resolved', 'pass'],
    ['t3', 'resolved', 'fail'],
    ['t4', 'resolved', 'pass'],
    ['t5', 'wrong', 'pass'],
    ['t6', 'wrong', 'fail'],
  ];
  const formula: [string, Verdict][] = [
    ['t1', 'resolved'],
    ['t2', 'resolved'],
    ['t3', 'wrong'],
    ['t4', 'wrong'],
    ['t5', 'resolved'],
    ['t6', 'wrong'],
  ];
  // Judge spend: a cent per COMMA run; one FORMULA run judged at a price nobody configured (unknown).
  const rows = [
    ...comma.map(([t, v, h]) => ({ ...run(SPACE, COMMA, t, v, h), judgeCostUsd: 0.01 })),
    ...formula.map(([t, v]) => ({ ...run(SPACE, FORMULA, t, v, null, null), judgeCostUsd: t === 't6' ? null : 0.01 })),
    run(SPACE, 'solo', 't7', 'resolved', 'pass'),
    run(SPACE, 'solo', 't8', null, null),
    run(NARROW, 'solo', 't1', 'wrong', null),
  ];
  // A run that does not say its tier or wave: its task's issue record does.
  const tierless = run(SPACE, 'tierless', 't9', 'wrong', null);
  rows.push({ ...tierless, tier: null, wave: null });
  // Stamped now, as landing stamps records: a backdated one could fall before a snapshot the compactor already took.
  await local.adapters.table.putIssue(
    storedIssue(
      SPACE,
      {
        taskId: 't9',
        order: 9,
        repo: 'acme/widgets',
        issueNumber: 9,
        tier: 'hard',
        wave: 2,
        baseSha: 'a'.repeat(40),
        mergeSha: 'b'.repeat(40),
      },
      new Date().toISOString(),
    ),
  );
  // left passes p1–p8 and is judged resolved on p1–p7; right passes p1–p4 and p9 and is judged resolved on p1–p4.
  for (let t = 1; t <= 12; t++) {
    rows.push(run(PAIRS, 'left', `p${t}`, t <= 7 ? 'resolved' : 'wrong', t <= 8 ? 'pass' : 'fail'));
    rows.push(run(PAIRS, 'right', `p${t}`, t <= 4 ? 'resolved' : 'wrong', t <= 4 || t === 9 ? 'pass' : 'fail'));
  }
  for (let k = 0; k < 13; k++) rows.push(run(CROWD, `crowd-${k}`, 'c1', 'wrong', 'fail'));
  for (const row of rows) await local.adapters.table.putRun(row, null);
  const today = new Date().toISOString().slice(0, 10);
  await local.adapters.table.reserve(SPACE, today, 200);
  await local.adapters.table.reserve(SPACE, today, 200);
});

afterAll(async () => {
  await local?.stop();
});

async function get<T>(path: string): Promise<{ status: number; body: T; text: string; headers: Headers }> {
  const response = await fetch(`${local.url}/api${path}`);
  const text = await response.text();
  expect(text).not.toMatch(/NaN|Infinity/);
  return {
    status: response.status,
    body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
    text,
    headers: response.headers,
  };
}

describe('GET /stats', () => {
  it('gives every group its rate with n and Wilson interval, hidden-test rate, agreement and costs', async () => {
    const { status, body } = await get<StatsBody>(apiPaths.stats(SPACE, { outcome: 'judge' }));
    expect(status).toBe(200);
    expect(body.outcome).toBe('judge');
    expect(body.groups.map((g) => g.model)).toEqual(
      [FORMULA, COMMA, 'solo', 'tierless'].sort((a, b) => a.localeCompare(b)),
    );
    const comma = body.groups.find((g) => g.model === COMMA)!;
    const judge = { n: 6, resolved: 4, rate: 4 / 6, ci: proportion(4, 6).ci, excluded: 0, error: 0, notJudged: 0 };
    expect(comma).toMatchObject({
      harnessVersion: 'h1',
      runs: 6,
      n: 6,
      resolved: 4,
      rate: 4 / 6,
      ci: proportion(4, 6).ci,
      outside: 0,
      judge,
    });
    expect(comma.hidden).toEqual({ n: 6, pass: 4, rate: 4 / 6, ci: proportion(4, 6).ci, error: 0 });
    expect(comma.agreement.table).toEqual({ resolvedPass: 3, resolvedFail: 1, otherPass: 1, otherFail: 1 });
    expect(comma.agreement.kappa).toBeCloseTo((4 / 6 - (4 * 4 + 2 * 2) / 36) / (1 - (4 * 4 + 2 * 2) / 36), 12);
    // 6 runs × (2M input × $1 + 0.1M output × $10) per million = 6 × $3, all priced; on the judge 4 resolved:
    // $18 ÷ 4 = $4.50 per resolved task, 10 × 4 ÷ $18 = 2.22 resolved per $10.
    expect(comma.runCost).toMatchObject({ runs: 6, priced: 6, resolved: 4 });
    expect(comma.runCost.totalUsd).toBeCloseTo(18, 9);
    expect(comma.runCost.medianUsd).toBeCloseTo(3, 9);
    expect(comma.runCost.meanUsd).toBeCloseTo(3, 9);
    expect(comma.runCost.perResolvedUsd).toBeCloseTo(4.5, 9);
    expect(comma.runCost.resolvedPer10Usd).toBeCloseTo(40 / 18, 9);
    expect(comma.judgeCostUsd).toBeCloseTo(0.06, 12);
    const formula = body.groups.find((g) => g.model === FORMULA)!;
    // One unknown part makes the sum unknown, never a smaller number; an unpriced model has no run cost.
    expect(formula).toMatchObject({
      judgeCostUsd: null,
      runCost: {
        runs: 6,
        priced: 0,
        totalUsd: null,
        medianUsd: null,
        meanUsd: null,
        resolved: 0,
        perResolvedUsd: null,
        resolvedPer10Usd: null,
      },
      hidden: { n: 0, rate: null, ci: null },
      agreement: { n: 0, kappa: null, ci: null },
    });
    expect(body.groups.find((g) => g.model === 'solo')).toMatchObject({ runs: 2, n: 1, outside: 1 });
  });

  it('counts on the hidden tests when asked, and by default where a run in view has a pass or fail result', async () => {
    // COMMA's tests: pass on t1, t2, t4, t5; FORMULA has no test results; solo passes t7 and has none for t8.
    for (const path of [apiPaths.stats(SPACE, { outcome: 'tests' }), apiPaths.stats(SPACE)]) {
      const { body } = await get<StatsBody>(path);
      expect(body.outcome).toBe('tests');
      const comma = body.groups.find((g) => g.model === COMMA)!;
      expect(comma).toMatchObject({ n: 6, resolved: 4, rate: 4 / 6, ci: proportion(4, 6).ci, outside: 0 });
      expect(comma.judge).toMatchObject({ n: 6, resolved: 4 });
      expect(body.groups.find((g) => g.model === FORMULA)).toMatchObject({
        n: 0,
        resolved: 0,
        rate: null,
        ci: null,
        outside: 6,
        judge: { n: 6, resolved: 3 },
      });
      expect(body.groups.find((g) => g.model === 'solo')).toMatchObject({ n: 1, resolved: 1, outside: 1 });
    }
    // A view with no pass or fail result defaults to the judge.
    const formulaOnly = await get<StatsBody>(apiPaths.stats(SPACE, { models: [FORMULA] }));
    expect(formulaOnly.body.outcome).toBe('judge');
    expect(formulaOnly.body.groups[0]).toMatchObject({ n: 6, resolved: 3, outside: 0 });
  });

  it('refuses an outcome it does not know with 400 naming the allowed values', async () => {
    for (const query of ['outcome=verdict', 'outcome=', 'outcome=TESTS', 'outcome=tests&outcome=judge']) {
      for (const route of ['stats', 'export.csv', 'export.json']) {
        const { status, body } = await get<{ error: string; message: string }>(`/spaces/${SPACE}/${route}?${query}`);
        expect(status).toBe(400);
        expect(body.error).toBe('bad-outcome');
        expect(body.message).toMatch(/^outcome must be one of tests, judge; got /);
      }
      const compare = await get<{ error: string }>(
        `${apiPaths.compare(SPACE, { a: { model: COMMA, harnessVersion: 'h1' }, b: { model: FORMULA, harnessVersion: 'h1' } })}&${query}`,
      );
      expect(compare.status).toBe(400);
      expect(compare.body.error).toBe('bad-outcome');
    }
  });

  it('narrows to the runs where the judge and the hidden tests disagree, or agree, and refuses any other value', async () => {
    // COMMA: t3 judged resolved with tests failing, t5 judged wrong with tests passing; t1, t2, t4, t6 agree.
    const disagree = await get<StatsBody>(apiPaths.stats(SPACE, { agreement: 'disagree' }));
    expect(disagree.body.groups.map((g) => [g.model, g.runs])).toEqual([[COMMA, 2]]);
    const agree = await get<StatsBody>(apiPaths.stats(SPACE, { agreement: 'agree', models: [COMMA] }));
    expect(agree.body.groups[0]).toMatchObject({
      runs: 4,
      agreement: { n: 4, withheld: expect.stringMatching(/^n = 4/) },
    });
    const exported = await get<ExportBody>(apiPaths.export(SPACE, 'json', { agreement: 'disagree' }));
    expect(exported.body.runs.map((r) => r.taskId).sort()).toEqual(['t3', 't5']);
    for (const query of ['agreement=disagrees', 'agreement=', 'agreement=agree&agreement=disagree']) {
      for (const route of ['stats', 'export.csv', 'export.json']) {
        const { status, body } = await get<{ error: string; message: string }>(`/spaces/${SPACE}/${route}?${query}`);
        expect(status).toBe(400);
        expect(body).toMatchObject({
          error: 'bad-agreement',
          message: expect.stringMatching(/^agreement must be one of disagree, agree; got /),
        });
      }
    }
  });

  it('reads repeated filters from the raw query, so a model name with a comma stays one name', async () => {
    const one = await get<StatsBody>(apiPaths.stats(SPACE, { models: [COMMA] }));
    expect(one.body.groups.map((g) => g.model)).toEqual([COMMA]);
    const two = await get<StatsBody>(apiPaths.stats(SPACE, { models: [COMMA, 'solo'] }));
    expect(two.body.groups.map((g) => g.model).sort()).toEqual([COMMA, 'solo'].sort());
  });

  it("takes a run's tier and wave from its task's issue record when the run does not say", async () => {
    expect((await get<StatsBody>(apiPaths.stats(SPACE, { tiers: ['hard'] }))).body.groups.map((g) => g.model)).toEqual([
      'tierless',
    ]);
    expect((await get<StatsBody>(apiPaths.stats(SPACE, { waves: [2] }))).body.groups.map((g) => g.model)).toEqual([
      'tierless',
    ]);
    expect(
      (await get<StatsBody>(apiPaths.stats(SPACE, { tiers: ['easy'], models: ['tierless'] }))).body.groups,
    ).toEqual([]);
  });

  it('answers an unknown filter value with an empty group list, never everything', async () => {
    for (const filters of [
      { models: ['nobody'] },
      { tiers: ['legendary'] },
      { waves: [99] },
      { harnessVersions: ['h9'] },
    ]) {
      const { status, body } = await get<StatsBody>(apiPaths.stats(SPACE, filters));
      expect(status).toBe(200);
      expect(body.groups).toEqual([]);
    }
    expect((await get<StatsBody>(`/spaces/${SPACE}/stats?wave=first`)).body.groups).toEqual([]);
  });

  it('ranks the groups with n of at least minN (default 10) on the outcome, and refuses a minN that is not a whole number from 1', async () => {
    const ranked = (await get<StatsBody>(apiPaths.stats(PAIRS))).body;
    expect(ranked.minN).toBe(10);
    expect(ranked.groups.map((g) => [g.model, g.n, g.resolved, g.rank])).toEqual([
      ['left', 12, 8, 1],
      ['right', 12, 5, 2],
    ]);
    const tooFew = (await get<StatsBody>(apiPaths.stats(PAIRS, { minN: 13 }))).body;
    expect(tooFew.groups.map((g) => g.rank)).toEqual([null, null]);
    for (const minN of ['0', '-1', '2.5', 'ten', '']) {
      const { status, body } = await get<{ error: string; message: string }>(`/spaces/${PAIRS}/stats?minN=${minN}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({
        error: 'bad-min-n',
        message: `minN must be a whole number of runs, 1 or more; got "${minN}".`,
      });
    }
  });

  it('narrows to the tasks of an empirical difficulty among the configurations in view, and refuses any other', async () => {
    // Among left and right on the tests: p1–p4 easy (both pass), p5–p9 medium (one of two), p10–p12 unsolved.
    const easy = (await get<StatsBody>(apiPaths.stats(PAIRS, { difficulties: ['easy'] }))).body;
    expect(easy.groups.map((g) => [g.model, g.runs, g.resolved])).toEqual([
      ['left', 4, 4],
      ['right', 4, 4],
    ]);
    const hardOrUnsolved = (await get<StatsBody>(apiPaths.stats(PAIRS, { difficulties: ['hard', 'unsolved'] }))).body;
    expect(hardOrUnsolved.groups.map((g) => [g.model, g.runs, g.resolved])).toEqual([
      ['left', 3, 0],
      ['right', 3, 0],
    ]);
    // On the judge, p5–p7 are medium (left only) and p8, p9 unsolved.
    const exported = (
      await get<ExportBody>(apiPaths.export(PAIRS, 'json', { outcome: 'judge', difficulties: ['medium'] }))
    ).body;
    expect(exported.runs.map((r) => r.taskId).sort()).toEqual(['p5', 'p5', 'p6', 'p6', 'p7', 'p7']);
    for (const route of ['stats', 'export.json', 'compare?aModel=left&aHarness=h1&bModel=right&bHarness=h1']) {
      const join = route.includes('?') ? '&' : '?';
      const { status, body } = await get<{ error: string; message: string }>(
        `/spaces/${PAIRS}/${route}${join}difficulty=easy&difficulty=trivial`,
      );
      expect(status).toBe(400);
      expect(body).toMatchObject({
        error: 'bad-difficulty',
        message: 'difficulty must be one of easy, medium, hard, unsolved (repeat it for several); got "trivial".',
      });
    }
  });

  it('refuses a grouping it does not offer', async () => {
    const { status, body } = await get<{ error: string }>(`/spaces/${SPACE}/stats?groupBy=host`);
    expect(status).toBe(400);
    expect(body.error).toBe('bad-group-by');
  });
});

describe('GET /compare', () => {
  const group = (model: string) => ({ model, harnessVersion: 'h1' });

  it('pairs the tasks both ran on the outcome, with the difference, its interval and the exact p', async () => {
    const pairs = { a: group('left'), b: group('right') };
    // Tests: both pass p1–p4, left only p5–p8, right only p9, neither p10–p12.
    const { status, body } = await get<CompareBody>(apiPaths.compare(PAIRS, pairs));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      outcome: 'tests',
      minPairs: 10,
      ...pairedComparison({ bothResolved: 4, aOnly: 4, bOnly: 1, neither: 3 }),
      aOnlyTasks: ['p5', 'p6', 'p7', 'p8'],
      bOnlyTasks: ['p9'],
    });
    expect(body.difference).toBeCloseTo(3 / 12, 12);
    // McNemar, 4 against 1: 2 × (1 + 5) / 32.
    expect(body.mcnemarP).toBeCloseTo(12 / 32, 12);
    // Judge: both p1–p4, left only p5–p7, neither p8–p12.
    const judged = (await get<CompareBody>(apiPaths.compare(PAIRS, pairs, { outcome: 'judge' }))).body;
    expect(judged).toMatchObject({ outcome: 'judge', pairs: 12, bothResolved: 4, aOnly: 3, bOnly: 0, neither: 5 });
    const swapped = (await get<CompareBody>(apiPaths.compare(PAIRS, { a: pairs.b, b: pairs.a }))).body;
    expect(swapped.difference).toBeCloseTo(-body.difference!, 12);
    expect(swapped.mcnemarP).toBe(body.mcnemarP);
  });

  it('gives the counts of fewer than 10 shared tasks and no difference, interval or p', async () => {
    // COMMA and FORMULA share six tasks; on the empirical "medium" tasks, left and right share five (p5–p9).
    const few = (
      await get<CompareBody>(apiPaths.compare(SPACE, { a: group(COMMA), b: group(FORMULA) }, { outcome: 'judge' }))
    ).body;
    expect(few).toMatchObject({
      pairs: 6,
      bothResolved: 2,
      aOnly: 2,
      bOnly: 1,
      neither: 1,
      difference: null,
      ci: null,
      mcnemarP: null,
    });
    const medium = (
      await get<CompareBody>(
        apiPaths.compare(PAIRS, { a: group('left'), b: group('right') }, { difficulties: ['medium'] }),
      )
    ).body;
    expect(medium).toMatchObject({ pairs: 5, aOnly: 4, bOnly: 1, difference: null, mcnemarP: null });
  });

  it('answers an unknown group, the same group twice, or no common task with pairs 0 and null statistics', async () => {
    const empty = {
      outcome: 'tests',
      minPairs: 10,
      pairs: 0,
      bothResolved: 0,
      aOnly: 0,
      bOnly: 0,
      neither: 0,
      difference: null,
      ci: null,
      mcnemarP: null,
      aOnlyTasks: [],
      bOnlyTasks: [],
    };
    for (const groups of [
      { a: group(COMMA), b: group('nobody') },
      { a: group(COMMA), b: { model: COMMA, harnessVersion: 'h9' } },
      { a: group(COMMA), b: group(COMMA) },
      { a: group(COMMA), b: group('solo') },
    ]) {
      const { status, body } = await get<CompareBody>(apiPaths.compare(SPACE, groups));
      expect(status).toBe(200);
      expect(body).toEqual({ ...empty, asOf: expect.any(String) });
    }
  });

  it('refuses a request that does not name both groups', async () => {
    const { status, body } = await get<{ error: string; message: string }>(
      `/spaces/${SPACE}/compare?aModel=x&aHarness=h1`,
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'missing-group', message: expect.stringContaining('bModel, bHarness') });
  });
});

describe('GET /pairs', () => {
  it('compares every pair of the configurations in view, Holm-adjusted, A the one with the higher rate', async () => {
    const { status, body } = await get<PairsBody>(apiPaths.pairs(PAIRS));
    expect(status).toBe(200);
    // One pair, so Holm leaves its p as it is: left passes 8 of 12, right 5; 4 against 1 discordant.
    expect(body).toMatchObject({ outcome: 'tests', configurations: 2, compared: 1, asOf: expect.any(String) });
    expect(body.rows).toEqual([
      {
        a: { model: 'left', harnessVersion: 'h1' },
        b: { model: 'right', harnessVersion: 'h1' },
        ...pairedComparison({ bothResolved: 4, aOnly: 4, bOnly: 1, neither: 3 }),
        holmP: 12 / 32,
        caveat: null,
      },
    ]);
    expect(body.rows[0]!.mcnemarP).toBeCloseTo(12 / 32, 12);
  });

  it('refuses more than 12 configurations in view with a sentence asking to narrow the filter, and a bad outcome or difficulty', async () => {
    const { status, body } = await get<{ error: string; message: string }>(apiPaths.pairs(CROWD));
    expect(status).toBe(400);
    expect(body).toEqual({
      error: 'too-many-configurations',
      message:
        '13 configurations are in view; all pairs compares at most 12 (66 pairs). Narrow the filter (model or harness version) to 12 or fewer.',
    });
    const narrowed = await get<PairsBody>(apiPaths.pairs(CROWD, { models: ['crowd-0', 'crowd-1'] }));
    expect(narrowed.status).toBe(200);
    expect(narrowed.body).toMatchObject({ configurations: 2, compared: 0 });
    for (const query of ['outcome=both', 'difficulty=impossible']) {
      const bad = await get<{ error: string }>(`/spaces/${PAIRS}/pairs?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe(query.startsWith('outcome') ? 'bad-outcome' : 'bad-difficulty');
    }
  });
});

describe('every new route', () => {
  it('answers a space that is not configured, prototype names included, with 404', async () => {
    for (const space of ['Elsewhere', '__proto__', 'constructor']) {
      for (const path of [
        apiPaths.stats(space),
        apiPaths.budget(space),
        apiPaths.export(space, 'csv'),
        apiPaths.compare(space, { a: { model: 'a', harnessVersion: 'h' }, b: { model: 'b', harnessVersion: 'h' } }),
        apiPaths.pairs(space),
      ]) {
        const { status, body } = await get<{ error: string }>(path);
        expect(status).toBe(404);
        expect(body.error).toBe('unknown-space');
      }
    }
  });
});

describe('GET /issues', () => {
  it('answers whole records, or with fields only the fields named and the taskId that names each', async () => {
    const whole = await get<IssuesBody>(apiPaths.issues(SPACE));
    const t9 = whole.body.issues.find((i) => i.taskId === 't9')!;
    expect(t9).toMatchObject({
      repo: 'acme/widgets',
      issueNumber: 9,
      tier: 'hard',
      baseSha: 'a'.repeat(40),
      space: SPACE,
    });
    const narrow = await get<IssuesBody<'tier' | 'wave'>>(apiPaths.issues(SPACE, ['tier', 'wave']));
    expect(narrow.body.issues).toEqual(
      whole.body.issues.map((i) => ({ taskId: i.taskId, tier: i.tier, wave: i.wave })),
    );
    // The cockpit's fields, nulls kept as null rather than left out.
    const cockpit = await get<IssuesBody>(apiPaths.issues(SPACE, COCKPIT_ISSUE_FIELDS));
    expect(cockpit.body.issues.find((i) => i.taskId === 't9')).toEqual({
      taskId: 't9',
      order: 9,
      tier: 'hard',
      wave: 2,
      prToMergeHours: null,
      repo: 'acme/widgets',
      issueNumber: 9,
      fixPrNumber: null,
    });
  });

  it('refuses a field that issues do not have, naming it and the fields there are', async () => {
    const { status, body } = await get<{ error: string; message: string }>(
      `${apiPaths.issues(SPACE)}?fields=tier,title,`,
    );
    expect(status).toBe(400);
    expect(body.error).toBe('bad-fields');
    expect(body.message).toMatch(
      /^fields names "title", "", not an issue field; the fields are taskId, order, .*, updatedAt, host, sentAt\.$/,
    );
  });
});

describe('GET /budget', () => {
  it('lists every day of the window, oldest first, with the calls against the cap', async () => {
    const { status, body } = await get<BudgetBody>(apiPaths.budget(SPACE, 3));
    expect(status).toBe(200);
    expect(body.days).toHaveLength(3);
    const today = body.days.at(-1)!;
    // Calls reserved but never answered were not billed: the day's spend is 0 until a call's cost is added.
    expect(today).toEqual({ day: new Date().toISOString().slice(0, 10), calls: 2, cap: 200, costUsd: 0 });
    expect(body.days[0]).toMatchObject({ calls: 0, cap: 200, costUsd: 0 });
    expect((await get<BudgetBody>(apiPaths.budget(SPACE))).body.days).toHaveLength(30);
  });

  it('refuses a window that is not a whole number of days from 1 to 366', async () => {
    for (const days of ['0', '-3', '1.5', 'week', '400'])
      expect((await get(`/spaces/${SPACE}/budget?days=${days}`)).status).toBe(400);
  });
});

describe('GET /export.csv, /export.json and /export.parquet', () => {
  it('exports the runs in view as RFC 4180 CSV with the allowlist header, that a CSV parser reads back', async () => {
    const { status, text, headers } = await get<string>(apiPaths.export(SPACE, 'csv', { models: [COMMA, FORMULA] }));
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(text.endsWith('\r\n')).toBe(true);
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual(DEFAULT_EXPORT_FIELDS);
    expect(records).toHaveLength(12);
    const comma = records.find((r) => r.model === COMMA && r.taskId === 't3')!;
    expect(comma).toMatchObject({
      id: runId({ model: COMMA, taskId: 't3', harnessVersion: 'h1' }),
      judgeVerdict: 'resolved',
      hiddenTestStatus: 'fail',
      runCostUsd: '3',
      modelFamily: '',
      judgeCostUsd: '0.01',
      attemptCount: '1',
    });
  });

  it('prefixes a cell that a spreadsheet would run as a formula', async () => {
    const records = parse((await get<string>(apiPaths.export(SPACE, 'csv', { models: [FORMULA] }))).text, {
      columns: true,
    }) as Record<string, string>[];
    expect(records.map((r) => r.model)).toEqual(Array(6).fill(`'${FORMULA}`));
    expect(records[0]!.id!.startsWith("'=")).toBe(true);
  });

  it('exports JSON with the same filters, nulls as null', async () => {
    const { body } = await get<ExportBody>(apiPaths.export(SPACE, 'json', { models: ['solo'] }));
    expect(body.asOf).toEqual(expect.any(String));
    expect(body.outcome).toBe('tests');
    expect(body.runs.map((r) => r.taskId).sort()).toEqual(['t7', 't8']);
    expect(Object.keys(body.runs[0]!)).toEqual(DEFAULT_EXPORT_FIELDS);
    expect(body.runs.find((r) => r.taskId === 't8')).toMatchObject({
      judgeVerdict: null,
      runCostUsd: null,
      hiddenTestStatus: null,
    });
    expect(body.runs.find((r) => r.taskId === 't7')).toMatchObject({
      judgeVerdict: 'resolved',
      hiddenTestStatus: 'pass',
      runCostUsd: null,
      attemptCount: 1,
    });
  });

  it("keeps to a space's narrower export fields, in the allowlist's order", async () => {
    const csv = (await get<string>(apiPaths.export(NARROW, 'csv'))).text;
    expect(csv).toBe('model,taskId,judgeVerdict,judgeReason\r\nsolo,t1,wrong,r\r\n');
    expect((await get<ExportBody>(apiPaths.export(NARROW, 'json'))).body.runs).toEqual([
      { model: 'solo', taskId: 't1', judgeVerdict: 'wrong', judgeReason: 'r' },
    ]);
  });

  it("carries the judge's rubric answers, the verdict's source and the hidden-test counts, never the reason by default", async () => {
    const { body } = await get<ExportBody>(apiPaths.export(SPACE, 'json'));
    expect(Object.keys(body.runs[0]!)).not.toContain('judgeReason');
    const byKey = (model: string, taskId: string) => body.runs.find((r) => r.model === model && r.taskId === taskId)!;
    expect(byKey(COMMA, 't3')).toMatchObject({
      verdictSource: 'tests',
      judgeRootCauseFound: true,
      judgeSameFilesAsReference: true,
      judgeTestAdded: false,
      judgeWouldCompile: true,
      hiddenTestsPassed: null,
    });
    expect(byKey(FORMULA, 't1')).toMatchObject({ verdictSource: 'judge', hiddenTestStatus: null });
    expect(byKey('solo', 't8')).toMatchObject({ verdictSource: null, judgeRootCauseFound: null });
  });

  it('narrows to the verdicts, hidden-test results and search words asked, as the grid does', async () => {
    const ask = { verdicts: ['wrong' as const], hiddenTests: ['fail' as const], search: 'CODER large' };
    const { body } = await get<ExportBody>(apiPaths.export(SPACE, 'json', ask));
    expect(body.runs.map((r) => [r.model, r.taskId])).toEqual([[COMMA, 't6']]);
    const byTask = await get<ExportBody>(apiPaths.export(SPACE, 'json', { search: 'acme/widgets#9' }));
    expect(byTask.body.runs.map((r) => r.taskId)).toEqual(['t9']);
  });

  it('writes Parquet with a typed column per field, every value as the JSON export has it', async () => {
    const [json, response] = await Promise.all([
      get<ExportBody>(apiPaths.export(SPACE, 'json')),
      fetch(`${local.url}/api${apiPaths.export(SPACE, 'parquet')}`, { headers: { 'accept-encoding': 'gzip' } }),
    ]);
    expect(response.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(response.headers.get('content-encoding')).toBeNull();
    const file = await response.arrayBuffer();
    const rows = await parquetReadObjects({ file });
    expect(rows).toHaveLength(json.body.runs.length);
    const typed = (field: ExportField, v: unknown) =>
      v === null
        ? null
        : exportTypeOf(field) === 'INT64'
          ? BigInt(v as number)
          : exportTypeOf(field) === 'TIMESTAMP'
            ? new Date(v as string)
            : v;
    rows.forEach((row, i) => {
      const expected = json.body.runs[i]!;
      expect(Object.keys(row)).toEqual(Object.keys(expected));
      for (const field of DEFAULT_EXPORT_FIELDS)
        expect({ field, v: row[field] ?? null }).toEqual({ field, v: typed(field, expected[field]) });
    });
  });

  it('refuses a parameter no export takes, and a verdict or test result that does not exist, naming it', async () => {
    const misspelt = await get<{ error: string; message: string }>(`/spaces/${SPACE}/export.csv?modle=solo`);
    expect(misspelt.status).toBe(400);
    expect(misspelt.body).toMatchObject({ error: 'bad-export-parameter', message: expect.stringContaining('"modle"') });
    const verdict = await get<{ error: string; message: string }>(`/spaces/${SPACE}/export.json?verdict=maybe`);
    expect(verdict.status).toBe(400);
    expect(verdict.body).toMatchObject({ error: 'bad-verdict', message: expect.stringContaining('"maybe"') });
    expect((await get(`/spaces/${SPACE}/export.parquet?hiddenTest=flaky`)).status).toBe(400);
    expect((await get(`/spaces/${SPACE}/export.xlsx`)).status).toBe(404);
  });
});
