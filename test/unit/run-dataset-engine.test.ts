// The engine path of the read API: one campaign landed in the table and compacted twice into the run dataset
// in the local S3 emulator (its runs written as Parquet parts, a third of them judged only in the second change
// set), then `/stats` and `/pairs` asked of a read API without the engine (the runs it holds) and of one wired
// with DuckDB over the emulator's files and a threshold below the campaign's size. Every figure of every group
// and pair must match, under each filter the routes take: counts exactly, sums and intervals to 1e-9 (SQL
// sums in another order). Repeated samples, runs lacking tier and wave (their issue record's apply), flagged
// runs, errors, conflicts, foreign attempts and priced and unpriced models are all in it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { syntheticCampaign } from '../../bench/synthetic-campaign.ts';
import { DuckDbEngine, S3RVER_OBJECT_SUFFIX } from '#adapters/local/duckdb-engine.ts';
import { apiPaths, type PairsBody, type StatsBody } from '#analytics/contract.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { compactSpace, readManifest } from '#core/read/snapshot-store.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { InMemoryKeySource, InMemoryTable, SettableClock } from '../helpers/in-memory-ports.ts';

const SPACE = "Campaign's";
const LANDED_AT = '2026-11-29T12:00:00.000Z';

let stores: TestStores;
let engine: DuckDbEngine;
let inMemory: ReadDeps;
let byEngine: ReadDeps;
let table: InMemoryTable;

/**
 * 240 runs of 3 models × 2 harnesses, and a second sample of every fifth: errored judges and tests, flagged
 * runs, conflicts and foreign attempts, recorded costs on some, and every seventh run without its tier and wave.
 */
function campaign(): { rows: RunRow[]; issues: ReturnType<typeof syntheticCampaign>['issues'] } {
  const { rows, issues } = syntheticCampaign(
    { space: SPACE, runs: 240, hosts: ['mac-studio-1'], models: 3, harnesses: ['h1', 'h2'], tasksPerWave: 20 },
    LANDED_AT,
  );
  const out: RunRow[] = [];
  let k = 0;
  for (const row of rows()) {
    k++;
    const changed = {
      ...row,
      ...(k % 11 === 0 && { judgeVerdict: 'error', judgeState: 'error' }),
      ...(k % 23 === 0 && { judgeVerdict: null, judgeState: 'flagged', judgeFlags: ['judge-override'] }),
      ...(k % 13 === 0 && { hiddenTestResult: { status: 'error', ranAt: LANDED_AT } }),
      ...(k % 7 === 0 && { tier: null, wave: null }),
      ...(k % 17 === 0 && { conflictCount: 2 }),
      ...(k % 19 === 0 && { foreignCount: 1 }),
      ...(k % 3 === 0 && { costUsd: (k % 10) / 7 }),
      ...(k % 29 === 0 && { judgeCostUsd: null }),
    } as RunRow;
    out.push(changed);
    if (k % 5 === 0) {
      const flipped = changed.hiddenTestResult?.status === 'pass' ? 'fail' : 'pass';
      out.push({
        ...changed,
        id: `${changed.id}__s2`,
        sample: 2,
        hiddenTestResult: { status: flipped, ranAt: LANDED_AT },
      } as RunRow);
    }
  }
  return { rows: out, issues };
}

beforeAll(async () => {
  stores = await startTestStores();
  table = new InMemoryTable();
  const { rows, issues } = campaign();
  for (const issue of issues) await table.putIssue(issue);
  const clock = new SettableClock(new Date('2026-11-29T12:00:00.000Z'));
  const snapshotDeps = { runs: table, issues: table, objects: stores.data, clock };
  // The first change set: every third run landed unjudged; the second, a day later, has them judged.
  for (const [i, row] of rows.entries())
    await table.putRun(
      i % 3 === 0 ? ({ ...row, judgeVerdict: null, judgeState: 'pending', hiddenTestResult: null } as RunRow) : row,
      null,
    );
  await compactSpace(snapshotDeps, SPACE);
  clock.advance(20 * 3600);
  for (const [i, row] of rows.entries())
    if (i % 3 === 0) {
      const stored = (await table.getRun(SPACE, row.id))!;
      await table.putRun({ ...row, updatedAt: clock.now().toISOString() }, stored.rev);
    }
  await compactSpace(snapshotDeps, SPACE);
  clock.advance(3600);
  const { names } = stores.emulators;
  engine = await DuckDbEngine.open(join(stores.emulators.s3Directory, names.dataBucket), S3RVER_OBJECT_SUFFIX);
  const config = {
    spaces: { [SPACE]: { senders: ['mac-studio-1'] } },
    prices: { 'synthetic-model-00': { inputPerMTok: 3, outputPerMTok: 15 } },
  };
  inMemory = {
    config: parseConfig(config),
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects: stores.data,
    pairing: new InMemoryKeySource({}),
    budget: table,
    clock,
  };
  byEngine = { ...inMemory, config: parseConfig({ ...config, engine: { aboveRuns: 100 } }), engine };
}, 60_000);

afterAll(async () => {
  engine?.close();
  await stores?.stop();
});

async function ask<T>(deps: ReadDeps, route: string, query: string): Promise<T> {
  const answer = await answerRead(deps, 'GET', `/api${route}`, query);
  expect(answer.status).toBe(200);
  return answer.body as T;
}

/** `actual` equals `expected`, numbers that are not whole to 1e-9 (an SQL sum adds in another order). */
function expectSameFigures(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && !Number.isInteger(expected)) {
    expect({ path, close: Math.abs((actual as number) - expected) < 1e-9 }).toEqual({ path, close: true });
    return;
  }
  if (expected === null || typeof expected !== 'object') {
    expect({ path, value: actual }).toEqual({ path, value: expected });
    return;
  }
  expect({ path, keys: Object.keys(actual as object).sort() }).toEqual({ path, keys: Object.keys(expected).sort() });
  for (const [key, value] of Object.entries(expected))
    expectSameFigures((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
}

const QUERIES = [
  '',
  'outcome=judge',
  'outcome=tests&minN=3',
  'cluster=repo',
  'tier=easy&tier=hard',
  'wave=2',
  'model=synthetic-model-00&model=synthetic-model-02',
  'harnessVersion=h2&repo=synthetic/repo-3&repo=synthetic/repo-5',
  'difficulty=easy&difficulty=unsolved',
  'difficulty=medium&outcome=judge',
  'agreement=disagree',
  'tier=legendary',
];

describe('/stats and /pairs answered by the engine over the run dataset', () => {
  it.each(QUERIES)('gives every group the figures of the in-memory path (%s)', async (query) => {
    const expected = await ask<StatsBody>(inMemory, apiPaths.stats(SPACE), query);
    const actual = await ask<StatsBody>(byEngine, apiPaths.stats(SPACE), query);
    const withoutAsOf = ({ asOf: _, ...body }: StatsBody) => body;
    expectSameFigures(withoutAsOf(actual), withoutAsOf(expected));
  });

  it.each(QUERIES.filter((q) => !q.includes('agreement') && !q.includes('minN')))(
    'gives every pair the figures of the in-memory path (%s)',
    async (query) => {
      const expected = await ask<PairsBody>(inMemory, apiPaths.pairs(SPACE), query);
      const actual = await ask<PairsBody>(byEngine, apiPaths.pairs(SPACE), query);
      const withoutAsOf = ({ asOf: _, ...body }: PairsBody) => body;
      expectSameFigures(withoutAsOf(actual), withoutAsOf(expected));
    },
  );

  it('counts a run once, as its last change set has it, with repeated samples, flags and costs in view', async () => {
    const { groups } = await ask<StatsBody>(byEngine, apiPaths.stats(SPACE), '');
    expect(groups).toHaveLength(6);
    expect(groups.reduce((sum, g) => sum + g.runs, 0)).toBe(288);
    expect(groups.every((g) => g.judge.notJudged < g.runs / 3)).toBe(true);
    expect(groups.some((g) => g.judge.flagged > 0 && g.conflicts > 0 && g.foreign > 0)).toBe(true);
    expect(groups.some((g) => g.samples.interval === 'clustered' && g.samples.curve.length === 1)).toBe(true);
    expect(groups.filter((g) => g.runCost.priced === g.runs)).toHaveLength(2);
    expect(groups.filter((g) => g.judgeCostUsd === null).length).toBeGreaterThan(0);
  });

  it('answers as of the compaction that wrote the last part, and only above the configured run count', async () => {
    const compacted = (await readManifest(stores.data, SPACE))!.asOf;
    expect((await ask<StatsBody>(byEngine, apiPaths.stats(SPACE), '')).asOf).toBe(compacted);
    expect((await ask<PairsBody>(byEngine, apiPaths.pairs(SPACE), '')).asOf).toBe(compacted);
    // The default threshold (a million runs) leaves this campaign to the runs the read API holds, current now.
    const belowThreshold = { ...byEngine, config: inMemory.config };
    const held = await ask<StatsBody>(belowThreshold, apiPaths.stats(SPACE), '');
    expect(held.asOf).not.toBe(compacted);
    expect(held.asOf).toBe((await ask<StatsBody>(inMemory, apiPaths.stats(SPACE), '')).asOf);
  });
});
