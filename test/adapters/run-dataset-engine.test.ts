// The engine path of the read API: one campaign landed in the table and compacted twice into the run dataset
// in the local S3 emulator (its runs written as Parquet parts, a third of them judged only in the second change
// set), then `/stats` and `/pairs` asked of a read API without the engine (the runs it holds) and of one wired
// with an engine over the emulator's files and a threshold below the campaign's size: DuckDB, and Athena through
// the stand-in that speaks its wire protocol (test/helpers/athena-stand-in.ts; results in pages of 100 rows). Every figure of every group
// and pair must match, under each filter the routes take: counts exactly, sums and intervals to 1e-9 (SQL
// sums in another order). Repeated samples, runs lacking tier and wave (their issue record's apply), flagged
// runs, errors, conflicts, foreign attempts and priced and unpriced models are all in it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { syntheticCampaign } from '../../bench/synthetic-campaign.ts';
import { S3LinkedDownloads } from '#adapters/aws/s3-linked-downloads.ts';
import { AthenaEngine, type AthenaEngineSettings } from '#adapters/aws/athena-engine.ts';
import { DuckDbEngine, S3RVER_OBJECT_SUFFIX } from '#adapters/local/duckdb-engine.ts';
import {
  apiPaths,
  DOWNLOAD_LINK_HEADER,
  type ExportBody,
  type ExportFormat,
  type ExportPartsBody,
  type GridPage,
  type GridRow,
  type PairsBody,
  type StatsBody,
} from '#analytics/contract.ts';
import { readHeader } from '#analytics/columns.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { compactSpace, readManifest } from '#core/read/snapshot-store.ts';
import { allRunsView, exportRowsSql, filteredSql } from '#core/read/engine-queries.ts';
import { DEFAULT_EXPORT_FIELDS } from '#schema/export-fields.ts';
import { runPart, runPartKey, runPartOf } from '#core/read/run-dataset.ts';
import { athenaResultsPrefix, combinedGrant, runDatasetSpacePrefix, spaceReadGrant } from '#core/storage-layout.ts';
import { snapshotRun } from '#analytics/run-snapshot.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { startAthenaStandIn, type AthenaStandIn } from '../helpers/athena-stand-in.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';
import { grantedOnly } from '#adapters/local/granted-object-store.ts';
import { InMemoryKeySource, InMemoryTable, SettableClock } from '../helpers/in-memory-ports.ts';

const SPACE = "Campaign's";
/** A second space whose every task ran once a configuration: /stats then counts no task's samples together. */
const ONE_SAMPLE = 'OneSample';
const LANDED_AT = '2026-11-29T12:00:00.000Z';

let stores: TestStores;
let engine: DuckDbEngine;
let athena: AthenaStandIn;
let inMemory: ReadDeps;
let byEngine: ReadDeps;
let byAthena: ReadDeps;
let athenaSettings: AthenaEngineSettings;
let table: InMemoryTable;
let downloads: S3LinkedDownloads;

/**
 * 240 runs of 3 models × 2 harnesses, and a second sample of every fifth: errored judges and tests, flagged
 * runs, conflicts and foreign attempts, recorded costs on some (a few below 1e-4), every seventh run without
 * its tier and wave, and texts and numbers a spreadsheet would read as formulas.
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
      // Below 1e-4 an engine prints a double in its exponent form, JavaScript plainly (0.0000037).
      ...(k % 37 === 0 && { costUsd: k / 1e7 }),
      ...(k % 29 === 0 && { judgeCostUsd: null }),
      // Cells a spreadsheet would run as formulas get a leading ', numbers by their sign alone (csv.ts).
      ...(k % 31 === 0 && { runtime: '=HYPERLINK("x")', quantization: '-q4', modelFamily: '@family' }),
      ...(k % 41 === 0 && { bashCalls: -2, wallSeconds: -12.5 }),
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
  const once = syntheticCampaign(
    { space: ONE_SAMPLE, runs: 120, hosts: ['mac-studio-1'], models: 3, harnesses: ['h1', 'h2'], tasksPerWave: 20 },
    LANDED_AT,
  );
  for (const issue of once.issues) await table.putIssue(issue);
  for (const row of once.rows()) await table.putRun(row, null);
  await compactSpace(snapshotDeps, ONE_SAMPLE);
  clock.advance(3600);
  const { names } = stores.emulators;
  downloads = new S3LinkedDownloads(stores.emulators.s3, names.dataBucket);
  engine = await DuckDbEngine.open(
    join(stores.emulators.s3Directory, names.dataBucket),
    S3RVER_OBJECT_SUFFIX,
    (key, paths) => downloads.putFile(key, paths),
  );
  const config = {
    spaces: { [SPACE]: { senders: ['mac-studio-1'] }, [ONE_SAMPLE]: { senders: ['mac-studio-1'] } },
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
  athena = await startAthenaStandIn({
    s3: stores.emulators.s3,
    bucketDirectory: (bucket) => join(stores.emulators.s3Directory, bucket),
    objectSuffix: S3RVER_OBJECT_SUFFIX,
    // As a cockpit's workgroup places them (constructs/run-dataset-engine.ts), under its space's prefix.
    workGroups: { replay: { outputLocation: `s3://${names.dataBucket}/${athenaResultsPrefix(SPACE)}Board/` } },
    tables: [{ database: 'replay_runs', table: 'runs', location: `s3://${names.dataBucket}/runs-parquet/` }],
  });
  const polling = { firstMs: 1, factor: 2, maxMs: 20, timeoutMs: 30_000 };
  athenaSettings = {
    workGroup: 'replay',
    dataBucket: names.dataBucket,
    database: 'replay_runs',
    table: 'runs',
    polling,
    pageSize: 100,
  };
  // The bucket as the read API's role sees it in AWS: a call outside its spaces' grants is refused.
  const granted = grantedOnly(stores.data, combinedGrant(...[SPACE, ONE_SAMPLE].map(spaceReadGrant)));
  byAthena = { ...byEngine, objects: granted, engine: new AthenaEngine(athena.client, granted, athenaSettings) };
}, 60_000);

afterAll(async () => {
  engine?.close();
  await athena?.stop();
  await stores?.stop();
});

async function ask<T>(deps: ReadDeps, route: string, query: string): Promise<T> {
  const answer = await answerRead(deps, 'GET', `/api${route}`, query);
  expect(answer.status).toBe(200);
  return answer.body as T;
}

/**
 * Where `actual` differs from `expected`, each difference with its path; numbers that are not whole count as
 * equal to 1e-9 (an SQL sum adds in another order). Compared in plain code and asserted once: an `expect` per
 * figure took 5.6 s of this file's CPU.
 */
function differences(actual: unknown, expected: unknown, path = '$', found: string[] = []): string[] {
  if (typeof expected === 'number' && !Number.isInteger(expected)) {
    if (!(Math.abs((actual as number) - expected) < 1e-9)) found.push(`${path}: ${String(actual)}, not ${expected}`);
    return found;
  }
  if (expected === null || typeof expected !== 'object') {
    if (!Object.is(actual, expected)) found.push(`${path}: ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`);
    return found;
  }
  if (actual === null || typeof actual !== 'object') {
    found.push(`${path}: ${JSON.stringify(actual)}, not an object`);
    return found;
  }
  const keys = (value: object) => Object.keys(value).sort().join(',');
  if (keys(actual) !== keys(expected)) {
    found.push(`${path}: keys ${keys(actual)}, not ${keys(expected)}`);
    return found;
  }
  for (const [key, value] of Object.entries(expected))
    differences((actual as Record<string, unknown>)[key], value, `${path}.${key}`, found);
  return found;
}

/** `actual` equals `expected`, numbers that are not whole to 1e-9. */
const expectSameFigures = (actual: unknown, expected: unknown) => expect(differences(actual, expected)).toEqual([]);

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

const ENGINES = { DuckDB: () => byEngine, 'Athena (stand-in)': () => byAthena };

describe.each(Object.keys(ENGINES))('/stats and /pairs answered by %s over the run dataset', (name) => {
  const engineDeps = () => ENGINES[name as keyof typeof ENGINES]();

  it.each(QUERIES)('gives every group the figures of the in-memory path (%s)', async (query) => {
    const expected = await ask<StatsBody>(inMemory, apiPaths.stats(SPACE), query);
    const actual = await ask<StatsBody>(engineDeps(), apiPaths.stats(SPACE), query);
    const withoutAsOf = ({ asOf: _, ...body }: StatsBody) => body;
    expectSameFigures(withoutAsOf(actual), withoutAsOf(expected));
  });

  it.each(['', 'outcome=judge', 'cluster=repo'])(
    'gives every group of a campaign of one sample a task the figures of the in-memory path (%s)',
    async (query) => {
      const expected = await ask<StatsBody>(inMemory, apiPaths.stats(ONE_SAMPLE), query);
      const actual = await ask<StatsBody>(engineDeps(), apiPaths.stats(ONE_SAMPLE), query);
      expect(actual.groups).toHaveLength(6);
      expect(actual.groups.every((g) => g.samples.curve.length === 1 && g.tasks === 20)).toBe(true);
      const withoutAsOf = ({ asOf: _, ...body }: StatsBody) => body;
      expectSameFigures(withoutAsOf(actual), withoutAsOf(expected));
    },
  );

  it.each(QUERIES.filter((q) => !q.includes('agreement') && !q.includes('minN')))(
    'gives every pair the figures of the in-memory path (%s)',
    async (query) => {
      const expected = await ask<PairsBody>(inMemory, apiPaths.pairs(SPACE), query);
      const actual = await ask<PairsBody>(engineDeps(), apiPaths.pairs(SPACE), query);
      const withoutAsOf = ({ asOf: _, ...body }: PairsBody) => body;
      expectSameFigures(withoutAsOf(actual), withoutAsOf(expected));
    },
  );

  it('counts a run once, as its last change set has it, with repeated samples, flags and costs in view', async () => {
    const { groups } = await ask<StatsBody>(engineDeps(), apiPaths.stats(SPACE), '');
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
    expect((await ask<StatsBody>(engineDeps(), apiPaths.stats(SPACE), '')).asOf).toBe(compacted);
    expect((await ask<PairsBody>(engineDeps(), apiPaths.pairs(SPACE), '')).asOf).toBe(compacted);
    // The default threshold (a million runs) leaves this campaign to the runs the read API holds, current now.
    const belowThreshold = { ...engineDeps(), config: inMemory.config };
    const held = await ask<StatsBody>(belowThreshold, apiPaths.stats(SPACE), '');
    expect(held.asOf).not.toBe(compacted);
    expect(held.asOf).toBe((await ask<StatsBody>(inMemory, apiPaths.stats(SPACE), '')).asOf);
  });
});

it('answers 413 where Athena answers with more rows than one read may hold: /pairs by repository, never by task', async () => {
  const narrow = {
    ...byAthena,
    engine: new AthenaEngine(athena.client, stores.data, { ...athenaSettings, maxAnswerRows: 120 }),
  };
  const refused = await answerRead(narrow, 'GET', `/api${apiPaths.pairs(SPACE)}`, 'cluster=repo');
  expect(refused.status).toBe(413);
  expect(refused.body).toMatchObject({
    error: 'answer-too-large',
    message: expect.stringMatching(/narrow the filter/),
  });
  // Clustered by task, one row per configuration and sample kind (/stats) and per pair and paired kind (/pairs):
  // bounded by the samples a task has, not by the tasks.
  for (const route of [apiPaths.stats(SPACE), apiPaths.pairs(SPACE)])
    expectSameFigures(await ask(narrow, route, ''), await ask(byAthena, route, ''));
});

/** The export's bytes, in the answer or through the link of its 303 (the engine's always has one). */
async function exported(
  deps: ReadDeps,
  format: string,
  query: string,
): Promise<{ bytes: Buffer; runs: number | null }> {
  const answer = await answerRead(deps, 'GET', `/api${apiPaths.export(SPACE, format as ExportFormat)}`, query);
  if (answer.status === 200 && !deps.engine) return { bytes: Buffer.from(answer.body as Uint8Array), runs: null };
  expect(answer.status).toBe(303);
  const { link, runs } = answer.body as { link: string; runs: number };
  expect(answer.headers?.location).toBe(link);
  const response = await fetch(link);
  expect(response.status).toBe(200);
  return { bytes: Buffer.from(await response.arrayBuffer()), runs };
}

/** The rows of a Parquet file, by DuckDB, with its column types. */
async function parquetRows(bytes: Buffer) {
  const directory = await mkdtemp(join(tmpdir(), 'export-'));
  try {
    const file = join(directory, 'export.parquet');
    await writeFile(file, bytes);
    const source = `read_parquet('${file}')`;
    return {
      types: (await engine.rows(`DESCRIBE SELECT * FROM ${source}`)).map(
        (c) => `${c['column_name']} ${c['column_type']}`,
      ),
      rows: await engine.rows(`SELECT * FROM ${source} ORDER BY id`),
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => (String(a['id']) < String(b['id']) ? -1 : 1);

const EXPORT_QUERIES = [
  '',
  'outcome=judge&verdict=flagged&verdict=unjudged&verdict=error',
  'hiddenTest=none&hiddenTest=error',
  'q=repo-3%20pass',
  'q=not%20judged',
  'q=repo-21%2322',
  'model=synthetic-model-00&difficulty=easy',
  'tier=hard&q=nothing-names-this',
  'agreement=disagree&wave=2',
];

/** The rows of an export the engine wrote in parts (Athena's UNLOAD), fetched through each part's link. */
async function exportedParts(deps: ReadDeps, format: 'json' | 'parquet', query: string) {
  const answer = await answerRead(deps, 'GET', `/api${apiPaths.export(SPACE, format)}`, query);
  expect(answer.status).toBe(200);
  expect(answer.headers?.[DOWNLOAD_LINK_HEADER]).toBe('parts');
  const body = answer.body as ExportPartsBody;
  expect(body.expiresInSeconds).toBe(900);
  expect(body.parts.map((p) => p.filename)).toEqual(
    body.parts.map((_, i) => `${SPACE}-runs-${i + 1}.${format === 'json' ? 'jsonl.gz' : 'parquet'}`),
  );
  const parts = await Promise.all(
    body.parts.map(async ({ link }) => {
      const response = await fetch(link);
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    }),
  );
  return { body, parts };
}

/** Every line of each part (gzip-compressed JSON Lines), in part order. */
const jsonLines = (parts: Buffer[]) =>
  parts.flatMap((part) =>
    gunzipSync(part)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string }),
  );

/** Each part sorted by run id (UNLOAD sorts within a part, not across them). */
const sortedWithin = (rows: readonly Record<string, unknown>[]) =>
  rows.every((row, i) => i === 0 || String(rows[i - 1]!['id']) < String(row['id']));

describe.each(Object.keys(ENGINES))('exports written by %s to the data bucket', (name) => {
  const engineDeps = () => ({ ...ENGINES[name as keyof typeof ENGINES](), downloads });
  const inParts = name !== 'DuckDB';
  // An in-memory export past 4 kB is answered by a link too, as in AWS.
  const linked = () => ({ ...inMemory, downloads, maxAnswerBytes: 4000 });

  it.each(EXPORT_QUERIES)('hold the rows and values of the in-memory export as CSV (%s)', async (query) => {
    const expected = await exported(linked(), 'csv', query);
    const actual = await exported(engineDeps(), 'csv', query);
    // Athena quotes every cell of its CSV and ends lines with LF (§6 "Exports"): compared as parsed CSV.
    const [header, ...lines] = parse(expected.bytes) as string[][];
    const [actualHeader, ...actualLines] = parse(actual.bytes) as string[][];
    expect(actualHeader).toEqual(header);
    const sorted = (rows: string[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(actualLines)).toEqual(sorted(lines));
    if (!inParts)
      expect(actual.bytes.toString('utf8').split('\r\n')[0]).toBe(expected.bytes.toString('utf8').split('\r\n')[0]);
    expect(actual.runs).toBe(lines.length);
    // Every query but the one that names nothing holds runs, so the values are compared.
    expect(lines.length > 0).toBe(!query.includes('nothing'));
  });

  it.each(EXPORT_QUERIES)('hold the rows and values of the in-memory export as JSON (%s)', async (query) => {
    const expected = JSON.parse((await exported(linked(), 'json', query)).bytes.toString('utf8')) as ExportBody;
    const asOf = (await readManifest(stores.data, SPACE))!.asOf;
    if (!inParts) {
      const actual = JSON.parse((await exported(engineDeps(), 'json', query)).bytes.toString('utf8')) as ExportBody;
      expect(actual.outcome).toBe(expected.outcome);
      expect(actual.asOf).toBe(asOf);
      // DuckDB writes the runs as it reads them, in no order (§6 "Exports").
      expectSameFigures([...actual.runs].sort(byId), [...expected.runs].sort(byId));
      return;
    }
    const { body, parts } = await exportedParts(engineDeps(), 'json', query);
    expect([body.outcome, body.asOf, body.runs]).toEqual([expected.outcome, asOf, expected.runs.length]);
    const rows = parts.map((part) => jsonLines([part]));
    expect(rows.every(sortedWithin)).toBe(true);
    expectSameFigures(rows.flat().sort(byId), [...expected.runs].sort(byId));
  });

  it.each(EXPORT_QUERIES.slice(0, 4))(
    'hold the rows, values and column types of the in-memory export as Parquet (%s)',
    async (query) => {
      const expected = await parquetRows((await exported(linked(), 'parquet', query)).bytes);
      const actual = inParts
        ? await Promise.all((await exportedParts(engineDeps(), 'parquet', query)).parts.map(parquetRows))
        : [await parquetRows((await exported(engineDeps(), 'parquet', query)).bytes)];
      for (const part of actual) expect(part.types).toEqual(expected.types);
      expect(actual.length).toBe(inParts ? 2 : 1);
      const rows = actual.flatMap((part) => part.rows).sort(byId);
      expect(rows.length).toBeGreaterThan(0);
      expectSameFigures(rows, expected.rows);
    },
  );

  it('leaves a space that exports judge reasons to the rows, which hold them', async () => {
    const config = parseConfig({
      spaces: { [SPACE]: { senders: ['mac-studio-1'], exports: { fields: ['id', 'judgeReason'] } } },
      engine: { aboveRuns: 100 },
    });
    const answer = await answerRead(
      { ...byEngine, config, downloads },
      'GET',
      `/api${apiPaths.export(SPACE, 'json')}`,
      '',
    );
    expect(answer.status).toBe(200);
    const { runs } = JSON.parse(Buffer.from(answer.body as Uint8Array).toString('utf8')) as {
      runs: { judgeReason: string | null }[];
    };
    expect(runs.some((r) => r.judgeReason === 'synthetic')).toBe(true);
  });
});

describe('an export written by DuckDB', () => {
  const view = allRunsView(SPACE);
  /** How many of the plan's operators sort every row, and how many join. */
  const operators = async (sql: string) => {
    const plan = (await engine.rows(`EXPLAIN ${sql}`)).map((row) => String(row['explain_value'])).join('\n');
    return { sorts: plan.split('ORDER_BY').length - 1, joins: plan.split('_JOIN').length - 1 };
  };

  it.each(['csv', 'parquet', 'json'] as const)(
    'streams its rows (%s): nothing sorts them, and its cells join nothing beyond the runs it selects',
    async (format) => {
      const selected = await operators(filteredSql(engine, view));
      const exported = await operators(exportRowsSql(engine, view, 'tests', DEFAULT_EXPORT_FIELDS, format, {}));
      expect(exported).toEqual({ sorts: 0, joins: selected.joins });
    },
  );
});

describe('the columns route tells the cockpit which way it reads the space', () => {
  const firstHeader = async (deps: ReadDeps) => {
    const answer = await answerRead(deps, 'GET', `/api${apiPaths.columns(SPACE)}`, '');
    expect(answer.status).toBe(200);
    return readHeader(answer.body as Uint8Array)!.header;
  };

  it('answers an empty body naming the engine above cockpit.browserRuns, where the engine answers the space', async () => {
    const runs = (await readManifest(stores.data, SPACE))!.count;
    const browserRuns = 50;
    const header = await firstHeader({
      ...byEngine,
      config: { ...byEngine.config, cockpit: { browserRuns } },
    });
    expect(header.count).toBe(0);
    expect(header.engine).toEqual({ runs, browserRuns });
  });

  it('sends the runs at or below the limit, and wherever the engine does not answer the space', async () => {
    const low = { cockpit: { browserRuns: 50 } };
    for (const deps of [byEngine, { ...inMemory, config: { ...inMemory.config, ...low } }]) {
      const header = await firstHeader(deps);
      expect(header.engine).toBeUndefined();
      expect(header.count).toBeGreaterThan(0);
    }
  });
});

describe('the Runs grid paged by the engine', () => {
  /** Every page of the grid for `query` and `sort`, following the cursors. */
  async function allPages(deps: ReadDeps, query: string, sort: string, limit: number) {
    const pages: GridPage[] = [];
    let cursor: string | null = null;
    do {
      const params = new URLSearchParams(query);
      params.set('sort', sort);
      params.set('limit', String(limit));
      if (cursor) params.set('cursor', cursor);
      pages.push(await ask<GridPage>(deps, `/spaces/${encodeURIComponent(SPACE)}/grid`, params.toString()));
      cursor = pages.at(-1)!.cursor;
    } while (cursor);
    return pages;
  }

  it.each(EXPORT_QUERIES)(
    'pages through the export’s runs, in the grid’s order, alike on both engines (%s)',
    async (query) => {
      const expected = JSON.parse((await exported(inMemory, 'json', query)).bytes.toString('utf8')) as ExportBody;
      const ids = expected.runs.map((r) => r['id']).sort();
      for (const [sort, key] of [
        ['-finishedAt', (r: GridRow) => r.finishedAt],
        ['model', (r: GridRow) => r.model],
        ['-wallSeconds', (r: GridRow) => r.wallSeconds],
      ] as const) {
        const pages = await allPages(byEngine, query, sort, 37);
        const runs = pages.flatMap((p) => p.runs);
        expect(runs.map((r) => r.id).sort()).toEqual(ids);
        expect(pages.every((p) => p.total === ids.length && p.outcome === expected.outcome)).toBe(true);
        const values = runs.map(key).filter((v) => v !== null);
        const ordered = [...values].sort((a, b) => (a! < b! ? -1 : a! > b! ? 1 : 0));
        expect(values).toEqual(sort.startsWith('-') ? ordered.reverse() : ordered);
        // Unknown values come last.
        expect(runs.map(key).findIndex((v) => v === null)).toBe(runs.some((r) => key(r) === null) ? values.length : -1);
        expect(await allPages(byAthena, query, sort, 37)).toEqual(pages);
      }
    },
    // Three sorts paged through on both engines: about 50 queries, 12 s on an idle two-core machine.
    60_000,
  );

  it('refuses a sort, limit or cursor it does not take, and a space the engine does not answer', async () => {
    const route = `/api/spaces/${encodeURIComponent(SPACE)}/grid`;
    const status = async (deps: ReadDeps, query: string) => (await answerRead(deps, 'GET', route, query)).body;
    expect(await status(byEngine, 'sort=difficulty')).toMatchObject({ error: 'bad-sort' });
    expect(await status(byEngine, 'limit=501')).toMatchObject({ error: 'bad-limit' });
    const first = await ask<GridPage>(byEngine, `/spaces/${encodeURIComponent(SPACE)}/grid`, 'sort=model&limit=10');
    expect(first.cursor).not.toBeNull();
    expect(await status(byEngine, `sort=-model&cursor=${first.cursor}`)).toMatchObject({ error: 'bad-cursor' });
    expect(await status(byEngine, 'modle=x')).toMatchObject({ error: 'bad-export-parameter' });
    expect(await status(inMemory, '')).toMatchObject({ error: 'grid-in-browser' });
  });
});

describe('a space rebuilt again, while runs land: the parts a sealed rebuild supersedes', () => {
  const REBUILT = 'RebuiltAgain';
  const table = new InMemoryTable();
  const clock = new SettableClock(new Date('2026-11-29T12:00:00.000Z'));
  const config = { spaces: { [REBUILT]: { senders: ['mac-studio-1'] } } };
  let held: ReadDeps;
  let engines: [string, ReadDeps][];
  let rows: RunRow[];
  const snapshotDeps = () => ({ runs: table, issues: table, objects: stores.data, clock });
  const partsOf = async () => (await stores.data.list(runDatasetSpacePrefix(REBUILT))).map((k) => runPartOf(k)!);
  /** Every group's figures on both engines are the in-memory path's, as the table holds the runs now. */
  const expectTheTablesFigures = async () => {
    for (const query of ['', 'outcome=judge', 'model=synthetic-model-01']) {
      const { asOf: _, ...expected } = await ask<StatsBody>(held, apiPaths.stats(REBUILT), query);
      for (const [, deps] of engines) {
        const { asOf: __, ...actual } = await ask<StatsBody>(deps, apiPaths.stats(REBUILT), query);
        expectSameFigures(actual, expected);
      }
    }
  };
  const rewrite = async (row: RunRow, change: Partial<RunRow>) => {
    const stored = (await table.getRun(REBUILT, row.id))!;
    await table.putRun({ ...stored.value, ...change, updatedAt: clock.now().toISOString() } as RunRow, stored.rev);
  };

  beforeAll(async () => {
    const campaign = syntheticCampaign(
      { space: REBUILT, runs: 60, hosts: ['mac-studio-1'], models: 2, harnesses: ['h1'], tasksPerWave: 10 },
      LANDED_AT,
    );
    rows = [...campaign.rows()];
    for (const issue of campaign.issues) await table.putIssue(issue);
    held = { ...inMemory, config: parseConfig(config), runs: table, attempts: table, issues: table, hosts: table };
    const withEngine = parseConfig({ ...config, engine: { aboveRuns: 10 } });
    engines = [
      ['DuckDB', { ...held, config: withEngine, engine }],
      ['Athena (stand-in)', { ...held, config: withEngine, engine: byAthena.engine! }],
    ];
    // A rebuild, then a delta judging a third of the runs again.
    for (const row of rows.slice(0, 50)) await table.putRun({ ...row, updatedAt: clock.now().toISOString() }, null);
    await compactSpace(snapshotDeps(), REBUILT);
    clock.advance(3600);
    for (const row of rows.slice(0, 50).filter((_, k) => k % 3 === 0))
      await rewrite(row, { judgeVerdict: 'wrong', judgeState: 'judged' });
    await compactSpace(snapshotDeps(), REBUILT);
  }, 60_000);

  it('reads the newest sealed rebuild and the deltas after it, ignoring older parts before and after they are deleted', async () => {
    await expectTheTablesFigures();
    // A day later the table is read whole again; while it is read, one run lands and another is judged anew.
    clock.advance(24 * 3600);
    const listRuns = table.listRuns.bind(table);
    let landedDuringRebuild = false;
    const landing = {
      ...snapshotDeps(),
      runs: Object.assign(Object.create(table) as InMemoryTable, {
        listRuns: async (...args: Parameters<InMemoryTable['listRuns']>) => {
          const page = await listRuns(...args);
          // The whole read (no `since`), after the compaction's delta has read what changed.
          if (!landedDuringRebuild && args[1].since === undefined) {
            landedDuringRebuild = true;
            await table.putRun({ ...rows[55]!, updatedAt: clock.now().toISOString() }, null);
            await rewrite(rows[1]!, { judgeVerdict: 'resolved', judgeState: 'judged' });
          }
          return page;
        },
      }),
    };
    expect(await compactSpace(landing, REBUILT)).toMatchObject({ kind: 'rebuilt', runs: 50 });
    clock.advance(300);
    expect(await compactSpace(snapshotDeps(), REBUILT)).toMatchObject({ kind: 'delta', changed: 2 });
    // The rebuild's compaction first brought the snapshot up to date by a delta of its own.
    expect((await partsOf()).map((p) => p.kind).sort()).toEqual([
      'delta',
      'delta',
      'delta',
      'rebuild',
      'rebuild',
      'sealed',
      'sealed',
    ]);
    await expectTheTablesFigures();
    // An hour after the rebuild began, the parts written before it are deleted; the figures stay the table's.
    clock.advance(3600);
    await compactSpace(snapshotDeps(), REBUILT);
    expect((await partsOf()).map((p) => p.kind).sort()).toEqual(['delta', 'rebuild', 'sealed']);
    await expectTheTablesFigures();
    const { groups } = await ask<StatsBody>(engines[0]![1], apiPaths.stats(REBUILT), '');
    expect(groups.reduce((n, g) => n + g.runs, 0)).toBe(51);
  });

  it('reads no run of a rebuild not yet sealed', async () => {
    // A rebuild under way (or cut off) holding every run, each judged otherwise than the table has it now: until
    // its seal, the figures are the sealed rebuild's and the deltas', which are the table's.
    clock.advance(600);
    const current = await Promise.all(
      [...rows.slice(0, 50), rows[55]!].map(async (r) => (await table.getRun(REBUILT, r.id))!.value),
    );
    const at = clock.now();
    const flipped = current.map((row) =>
      snapshotRun({ ...row, judgeVerdict: row.judgeVerdict === 'resolved' ? 'wrong' : 'resolved' }),
    );
    await stores.data.put(runPartKey(REBUILT, at, 'rebuild', 'under-way'), runPart(flipped, at, 'rebuild'));
    await expectTheTablesFigures();
  });
});
