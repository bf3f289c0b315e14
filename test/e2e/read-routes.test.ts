// `/compare`, `/pairs`, `/issues`, `/budget` and the exports end to end (and every route's 404 for a space not
// configured): local mode's HTTP server, the read-api handler, the emulators. `GET /stats` is stats-route.test.ts.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { pairedComparison } from '#analytics/statistics.ts';
import {
  apiPaths,
  COCKPIT_ISSUE_FIELDS,
  type BudgetBody,
  type CompareBody,
  type ExportBody,
  type IssuesBody,
  type PairsBody,
} from '#analytics/contract.ts';
import { parquetReadObjects } from 'hyparquet';
import { DEFAULT_EXPORT_FIELDS, exportTypeOf, type ExportField } from '#schema/export-fields.ts';
import { runId } from '#schema/run.ts';
import { COMMA, FORMULA, PAIRS, readRoutesWorld, run, SPACE } from '../helpers/read-routes-world.ts';

const NARROW = 'Narrow';
/** Thirteen models: one configuration more than all pairs compares. */
const CROWD = 'Crowd';

const { get, local } = readRoutesWorld({
  [NARROW]: { senders: ['mac-studio-1'], exports: { fields: ['judgeReason', 'judgeVerdict', 'taskId', 'model'] } },
  [CROWD]: { senders: ['mac-studio-1'] },
});

beforeAll(async () => {
  const { table } = local().adapters;
  await table.putRun(run(NARROW, 'solo', 't1', 'wrong', null), null);
  for (let k = 0; k < 13; k++) await table.putRun(run(CROWD, `crowd-${k}`, 'c1', 'wrong', 'fail'), null);
  // What GET /budget reads back: two judge calls reserved today against a cap of 200.
  const today = new Date().toISOString().slice(0, 10);
  await table.reserve(SPACE, today, 200);
  await table.reserve(SPACE, today, 200);
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
      ...byMcNemar,
      clusters: 0,
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

/** One run of each task on each side: McNemar's comparison, the per-task means' fields null. */
const byMcNemar = {
  method: 'mcnemar',
  cluster: 'task',
  exactPermutation: false,
  ...Object.fromEntries(['meanA', 'meanB', 'se', 'permutationP', 'warning'].map((field) => [field, null])),
};

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
        ...byMcNemar,
        clusters: 12,
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
      fetch(`${local().url}/api${apiPaths.export(SPACE, 'parquet')}`, { headers: { 'accept-encoding': 'gzip' } }),
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
