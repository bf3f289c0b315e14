// `GET /stats` end to end: local mode's HTTP server, the read-api handler, the emulators. Its outcome, agreement
// and difficulty filters are checked on the exports and /compare too, which take the same parameters.
import { describe, expect, it } from '@jest/globals';
import { proportion } from '#analytics/statistics.ts';
import { apiPaths, type ExportBody, type StatsBody } from '#analytics/contract.ts';
import { COMMA, FORMULA, PAIRS, readRoutesWorld, SPACE } from '../helpers/read-routes-world.ts';

const { get } = readRoutesWorld();

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

  it('clusters by repository when asked, says when there are fewer than 30 clusters, and refuses any other unit', async () => {
    const byTask = (await get<StatsBody>(apiPaths.stats(PAIRS))).body.groups[0]!;
    expect(byTask.samples).toMatchObject({ cluster: 'task', interval: 'wilson', tasks: 12, clusters: 12 });
    expect(byTask.samples.curve.map((p) => p.k)).toEqual([1]);
    const byRepo = (await get<StatsBody>(apiPaths.stats(PAIRS, { cluster: 'repo' }))).body.groups[0]!;
    expect(byRepo.samples).toMatchObject({ cluster: 'repo', interval: 'clustered' });
    expect(byRepo.samples.clusters).toBeLessThan(30);
    expect(byRepo.samples.warning).toMatch(/repositories: a standard error clustered over fewer than 30/);
    for (const route of ['stats', 'pairs']) {
      const { status, body } = await get<{ error: string; message: string }>(`/spaces/${PAIRS}/${route}?cluster=host`);
      expect(status).toBe(400);
      expect(body).toEqual({ error: 'bad-cluster', message: 'cluster must be one of task, repo; got "host".' });
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
