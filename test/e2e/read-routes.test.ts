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
  type StatsBody,
} from '../../shared/cockpit/contract.ts';
import { EXPORT_FIELDS } from '../../shared/schema/export-fields.ts';
import { runId, type RunRow } from '../../shared/schema/run.ts';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const SPACE = 'Reads';
const NARROW = 'Narrow';
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
        [NARROW]: { senders: ['mac-studio-1'], exports: { fields: ['judgeVerdict', 'taskId', 'model'] } },
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
    const { status, body } = await get<StatsBody>(apiPaths.stats(SPACE));
    expect(status).toBe(200);
    expect(body.groups.map((g) => g.model)).toEqual(
      [FORMULA, COMMA, 'solo', 'tierless'].sort((a, b) => a.localeCompare(b)),
    );
    const comma = body.groups.find((g) => g.model === COMMA)!;
    expect(comma).toMatchObject({
      harnessVersion: 'h1',
      runs: 6,
      n: 6,
      resolved: 4,
      rate: 4 / 6,
      ci: proportion(4, 6).ci,
      excluded: 0,
      error: 0,
      notJudged: 0,
    });
    expect(comma.hidden).toEqual({ n: 6, pass: 4, rate: 4 / 6, ci: proportion(4, 6).ci, error: 0 });
    expect(comma.agreement.table).toEqual({ resolvedPass: 3, resolvedFail: 1, otherPass: 1, otherFail: 1 });
    expect(comma.agreement.kappa).toBeCloseTo((4 / 6 - (4 * 4 + 2 * 2) / 36) / (1 - (4 * 4 + 2 * 2) / 36), 12);
    // 6 runs × (2M input × $1 + 0.1M output × $10) per million = 6 × $3.
    expect(comma.runCostUsd).toBeCloseTo(18, 9);
    expect(comma.judgeCostUsd).toBeCloseTo(0.06, 12);
    const formula = body.groups.find((g) => g.model === FORMULA)!;
    // One unknown part makes the sum unknown, never a smaller number; an unpriced model has no run cost.
    expect(formula).toMatchObject({
      judgeCostUsd: null,
      runCostUsd: null,
      hidden: { n: 0, rate: null, ci: null },
      agreement: { n: 0, kappa: null, ci: null },
    });
    expect(body.groups.find((g) => g.model === 'solo')).toMatchObject({ runs: 2, n: 1, notJudged: 1 });
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

  it('refuses a grouping it does not offer', async () => {
    const { status, body } = await get<{ error: string }>(`/spaces/${SPACE}/stats?groupBy=host`);
    expect(status).toBe(400);
    expect(body.error).toBe('bad-group-by');
  });
});

describe('GET /compare', () => {
  const group = (model: string) => ({ model, harnessVersion: 'h1' });

  it('pairs the tasks both ran, with the difference, its interval and the exact p', async () => {
    const { status, body } = await get<CompareBody>(apiPaths.compare(SPACE, { a: group(COMMA), b: group(FORMULA) }));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ...pairedComparison({ bothResolved: 2, aOnly: 2, bOnly: 1, neither: 1 }),
      aOnlyTasks: ['t3', 't4'],
      bOnlyTasks: ['t5'],
    });
    const swapped = (await get<CompareBody>(apiPaths.compare(SPACE, { a: group(FORMULA), b: group(COMMA) }))).body;
    expect(swapped.difference).toBeCloseTo(-body.difference!, 12);
    expect(swapped.mcnemarP).toBe(body.mcnemarP);
  });

  it('answers an unknown group, the same group twice, or no common task with pairs 0 and null statistics', async () => {
    const empty = {
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

describe('every new route', () => {
  it('answers a space that is not configured, prototype names included, with 404', async () => {
    for (const space of ['Elsewhere', '__proto__', 'constructor']) {
      for (const path of [
        apiPaths.stats(space),
        apiPaths.budget(space),
        apiPaths.exportCsv(space),
        apiPaths.compare(space, { a: { model: 'a', harnessVersion: 'h' }, b: { model: 'b', harnessVersion: 'h' } }),
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

describe('GET /export.csv and /export.json', () => {
  it('exports the runs in view as RFC 4180 CSV with the allowlist header, that a CSV parser reads back', async () => {
    const { status, text, headers } = await get<string>(apiPaths.exportCsv(SPACE, { models: [COMMA, FORMULA] }));
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(text.endsWith('\r\n')).toBe(true);
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual([...EXPORT_FIELDS]);
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
    const records = parse((await get<string>(apiPaths.exportCsv(SPACE, { models: [FORMULA] }))).text, {
      columns: true,
    }) as Record<string, string>[];
    expect(records.map((r) => r.model)).toEqual(Array(6).fill(`'${FORMULA}`));
    expect(records[0]!.id!.startsWith("'=")).toBe(true);
  });

  it('exports JSON with the same filters, nulls as null', async () => {
    const { body } = await get<ExportBody>(apiPaths.exportJson(SPACE, { models: ['solo'] }));
    expect(body.asOf).toEqual(expect.any(String));
    expect(body.runs.map((r) => r.taskId).sort()).toEqual(['t7', 't8']);
    expect(Object.keys(body.runs[0]!)).toEqual([...EXPORT_FIELDS]);
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
    const csv = (await get<string>(apiPaths.exportCsv(NARROW))).text;
    expect(csv).toBe('model,taskId,judgeVerdict\r\nsolo,t1,wrong\r\n');
    expect((await get<ExportBody>(apiPaths.exportJson(NARROW))).body.runs).toEqual([
      { model: 'solo', taskId: 't1', judgeVerdict: 'wrong' },
    ]);
  });
});
