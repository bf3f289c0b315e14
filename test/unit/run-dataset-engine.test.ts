// The engine path of `/stats`'s counts: the runs written as Parquet parts, change set by change set, read by
// DuckDB through the shared queries, give each configuration the same runs, n, resolved and flagged as the
// in-memory path (answerRead's `/stats`) on the same campaign, on either outcome; a run written again (judged
// later) counts once, as its last part has it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { syntheticCampaign } from '../../bench/synthetic-campaign.ts';
import { DuckDbEngine } from '#adapters/local/duckdb-engine.ts';
import { apiPaths, type StatsBody } from '#analytics/contract.ts';
import { snapshotRun } from '#analytics/run-snapshot.ts';
import { configurationCounts } from '#core/read/engine-queries.ts';
import { answerRead, type ReadDeps } from '#core/read/read-api.ts';
import { runPart, runPartKey } from '#core/read/run-dataset.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { InMemoryKeySource, InMemoryObjectStore, InMemoryTable, SettableClock } from '../helpers/in-memory-ports.ts';

const SPACE = "Campaign's";
const OTHER_SPACE = 'Other';
const LANDED_AT = '2026-11-29T12:00:00.000Z';

let bucket: string;
let engine: DuckDbEngine;
let deps: ReadDeps;

async function writePart(space: string, rows: readonly RunRow[], writtenAt: Date, part: string) {
  const path = join(bucket, runPartKey(space, writtenAt, part));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, runPart(rows.map(snapshotRun), writtenAt));
}

/** 240 runs with errored judges and tests, flagged runs, and a third judged only in a later change set. */
function campaignRows(space: string): { before: RunRow[]; after: RunRow[] } {
  const { rows } = syntheticCampaign(
    { space, runs: 240, hosts: ['mac-studio-1'], models: 3, harnesses: ['h1', 'h2'] },
    LANDED_AT,
  );
  const after: RunRow[] = [];
  let k = 0;
  for (const row of rows()) {
    k++;
    after.push({
      ...row,
      ...(k % 11 === 0 && { judgeVerdict: 'error', judgeState: 'error' }),
      ...(k % 23 === 0 && { judgeVerdict: null, judgeState: 'flagged', judgeFlags: ['judge-override'] }),
      ...(k % 13 === 0 && { hiddenTestResult: { status: 'error', ranAt: LANDED_AT } }),
    } as RunRow);
  }
  const before = after.map((row, i) =>
    i % 3 === 0 ? ({ ...row, judgeVerdict: null, judgeState: 'pending', hiddenTestResult: null } as RunRow) : row,
  );
  return { before, after };
}

beforeAll(async () => {
  bucket = await mkdtemp(join(tmpdir(), 'run-dataset-'));
  const table = new InMemoryTable();
  const { before, after } = campaignRows(SPACE);
  for (const row of after) await table.putRun(row, null);
  // Three change sets on two days: all runs landed unjudged or judged, then every third judged the next day.
  await writePart(SPACE, before.slice(0, 120), new Date('2026-11-29T12:00:00Z'), 'a');
  await writePart(SPACE, before.slice(120), new Date('2026-11-29T12:05:00Z'), 'b');
  await writePart(
    SPACE,
    after.filter((_, i) => i % 3 === 0),
    new Date('2026-11-30T08:00:00Z'),
    'c',
  );
  // Another space's runs sit beside them and count for it alone.
  await writePart(OTHER_SPACE, campaignRows(OTHER_SPACE).after.slice(0, 7), new Date('2026-11-29T12:00:00Z'), 'a');
  engine = await DuckDbEngine.open(bucket);
  deps = {
    config: parseConfig({ spaces: { [SPACE]: { senders: ['mac-studio-1'] } } }),
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects: new InMemoryObjectStore(),
    pairing: new InMemoryKeySource({}),
    budget: table,
    clock: new SettableClock(new Date('2026-11-30T09:00:00.000Z')),
  };
});

afterAll(async () => {
  engine.close();
  await rm(bucket, { recursive: true, force: true });
});

async function inMemoryStats(outcome: 'tests' | 'judge'): Promise<StatsBody> {
  const answer = await answerRead(deps, 'GET', `/api${apiPaths.stats(SPACE)}`, `outcome=${outcome}`);
  expect(answer.status).toBe(200);
  return answer.body as StatsBody;
}

describe('the run dataset read by DuckDB', () => {
  it("gives each configuration the in-memory path's runs, n, resolved and flagged on either outcome", async () => {
    const engineCounts = await configurationCounts(engine, SPACE);
    const tests = await inMemoryStats('tests');
    const judge = await inMemoryStats('judge');
    expect(engineCounts).toHaveLength(6);
    expect(
      engineCounts.map((c) => ({
        model: c.model,
        harnessVersion: c.harnessVersion,
        runs: c.runs,
        tests: c.tests,
        judge: c.judge,
        flagged: c.flagged,
      })),
    ).toEqual(
      tests.groups.map((group, g) => ({
        model: group.model,
        harnessVersion: group.harnessVersion,
        runs: group.runs,
        tests: { n: group.n, resolved: group.resolved },
        judge: { n: judge.groups[g]!.n, resolved: judge.groups[g]!.resolved },
        flagged: group.judge.flagged,
      })),
    );
    expect(engineCounts.reduce((sum, c) => sum + c.runs, 0)).toBe(240);
    expect(engineCounts.some((c) => c.flagged > 0 && c.tests.n < c.runs)).toBe(true);
  });

  it("counts another space's runs for it alone", async () => {
    const counts = await configurationCounts(engine, OTHER_SPACE);
    expect(counts.reduce((sum, c) => sum + c.runs, 0)).toBe(7);
  });
});
