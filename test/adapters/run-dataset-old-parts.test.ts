// A run dataset whose every part was written before parts said their kind (no `partKind` column; keys named
// `<part>.parquet`, no time or kind), as the compactor wrote them until rebuilds were sealed: local mode's
// DuckDB reads such a bucket until the space's next rebuild, its rows as delta rows, each run as the last part
// has it, and `/stats` and `/pairs` give the figures of the runs the read API holds.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { syntheticCampaign } from '../../bench/synthetic-campaign.ts';
import { DuckDbEngine } from '#adapters/local/duckdb-engine.ts';
import { apiPaths, type PairsBody, type StatsBody } from '#analytics/contract.ts';
import { snapshotRun } from '#analytics/run-snapshot.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { RUN_DATASET_COLUMNS } from '#core/read/run-dataset.ts';
import { compactSpace } from '#core/read/snapshot-store.ts';
import { runDatasetSpacePrefix } from '#core/storage-layout.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { InMemoryObjectStore, InMemoryTable, SettableClock, inMemoryReadDeps } from '../helpers/in-memory-ports.ts';

const SPACE = 'BeforeSeals';
const LANDED_AT = '2026-11-29T12:00:00.000Z';

let bucket: string;
let engine: DuckDbEngine;
let held: ReadDeps;
let byEngine: ReadDeps;

/** A part as written before parts named their kind: the run's fields and `writtenAt`, no `partKind`. */
async function writeOldPart(rows: readonly RunRow[], writtenAt: Date, name: string): Promise<void> {
  const runs = rows.map(snapshotRun);
  const columnData = [
    ...RUN_DATASET_COLUMNS.map(({ name, type }) => ({ name, type, nullable: true, data: runs.map((r) => r[name]) })),
    { name: 'writtenAt', type: 'TIMESTAMP' as const, nullable: false, data: runs.map(() => writtenAt) },
  ];
  const day = writtenAt.toISOString().slice(0, 10);
  const path = join(bucket, `${runDatasetSpacePrefix(SPACE)}day=${day}/${name}.parquet`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, new Uint8Array(parquetWriteBuffer({ columnData })));
}

beforeAll(async () => {
  bucket = await mkdtemp(join(tmpdir(), 'old-parts-'));
  const table = new InMemoryTable();
  const campaign = syntheticCampaign(
    { space: SPACE, runs: 90, hosts: ['mac-studio-1'], models: 3, harnesses: ['h1'], tasksPerWave: 10 },
    LANDED_AT,
  );
  const rows = [...campaign.rows()];
  for (const issue of campaign.issues) await table.putIssue(issue);
  for (const row of rows) await table.putRun(row, null);
  const config = { spaces: { [SPACE]: { senders: ['mac-studio-1'] } } };
  const clock = new SettableClock(new Date(LANDED_AT));
  held = { ...inMemoryReadDeps(table, parseConfig(config), new Date(LANDED_AT)), clock };
  // The snapshot's manifest says how many runs the space holds (the engine answers above engine.aboveRuns).
  await compactSpace({ runs: table, issues: table, objects: held.objects as InMemoryObjectStore, clock }, SPACE);
  // The first part has every third run before it was judged; a later one has them as judged.
  const first = new Date('2026-11-28T12:00:00.000Z');
  const unjudged = (row: RunRow) => ({ ...row, judgeVerdict: null, judgeState: 'pending', hiddenTestResult: null });
  await writeOldPart(
    rows.map((row, k) => (k % 3 === 0 ? (unjudged(row) as RunRow) : row)),
    first,
    'first',
  );
  await writeOldPart(
    rows.filter((_, k) => k % 3 === 0),
    new Date(first.getTime() + 3600_000),
    'second',
  );
  engine = await DuckDbEngine.open(bucket);
  byEngine = { ...held, config: parseConfig({ ...config, engine: { aboveRuns: 10 } }), engine };
});

afterAll(async () => {
  engine?.close();
  await rm(bucket, { recursive: true, force: true });
});

async function ask<T extends { asOf: string }>(deps: ReadDeps, route: string, query: string) {
  const answer = await answerRead(deps, 'GET', `/api${route}`, query);
  expect(answer.body).not.toHaveProperty('error');
  const { asOf: _, ...body } = answer.body as T;
  return body;
}

/** Every number to 9 decimals: an SQL sum adds in another order than the in-memory path. */
const rounded = (body: unknown): unknown =>
  JSON.parse(JSON.stringify(body, (_, v: unknown) => (typeof v === 'number' ? Number(v.toFixed(9)) : v)));

describe('a run dataset written before parts named their kind', () => {
  it.each(['', 'outcome=judge', 'model=synthetic-model-01'])(
    'is read by DuckDB, each run as its last part has it (/stats %s)',
    async (query) => {
      const expected = await ask<StatsBody>(held, apiPaths.stats(SPACE), query);
      const actual = await ask<StatsBody>(byEngine, apiPaths.stats(SPACE), query);
      if (query === '') expect(actual.groups.reduce((n, g) => n + g.runs, 0)).toBe(90);
      expect(rounded(actual)).toEqual(rounded(expected));
    },
  );

  it('pairs its configurations as the read API does with the runs it holds', async () => {
    expect(rounded(await ask<PairsBody>(byEngine, apiPaths.pairs(SPACE), ''))).toEqual(
      rounded(await ask<PairsBody>(held, apiPaths.pairs(SPACE), '')),
    );
  });
});
