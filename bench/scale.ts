// `npm run bench:scale -- --runs N`: the engine path of the read API at size, in local mode's engine (DuckDB over
// the run dataset's Parquet parts, docs/contract.md §6 "Reading at scale"), each figure beside a floor measured
// in the same run:
// - build: the synthetic campaign's runs projected to the read side's form and written as Parquet parts of
//   PART_RUNS runs and a seal (as the compactor's daily rebuild writes them), beside DuckDB copying the finished dataset into
//   one Parquet file (reading and writing the same bytes, no projection);
// - `/stats` warm: the engine path's queries and figures for every configuration (engineOutcome and
//   engineStatistics, what the route runs above `engine.aboveRuns`), beside DuckDB counting the dataset by
//   configuration alone (one scan, no latest-part window, no figures);
// - `/pairs` warm: all pairs of 12 configurations (enginePairs, clustered by task), beside DuckDB counting their
//   tasks by configuration (one scan, no latest-part window, no figures);
// - a page of the Runs grid (gridPageSql, engine mode's `/grid`): the first, newest first, and the last by wall
//   time, beside DuckDB ordering the dataset by finishing time for one page (no latest-part window, no filters);
// - export of all rows: the engine's export (exportRowsSql through exportTo, Parquet, CSV and JSON), beside DuckDB
//   copying the dataset's rows to a file of the same format (no projection, no latest-part window).
// Medians of --repeats (5), the engine warm (one untimed run of each first). The build runs in a process of its
// own, and every step of the read path runs before any floor, so this process's largest resident set once those
// steps are done is the read path's peak memory (DuckDB, queries, figures); the build's is reported apart.
// Options: --runs N (1000000) --repeats K (5) --fresh --build-only (build, then stop) --memory-mb M (the engine's
// memory limit, engine.memoryMb; its default unless given) --exports-only (the exports alone, so the peak resident
// memory is theirs)
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDbEngine } from '#adapters/local/duckdb-engine.ts';
import { snapshotRun, type SnapshotRun } from '#analytics/run-snapshot.ts';
import { engineOutcome, enginePairs, engineStatistics } from '#core/read/engine-figures.ts';
import { allRunsView, exportRowsSql, gridPageSql } from '#core/read/engine-queries.ts';
import { DEFAULT_GRID_PAGE as GRID_PAGE } from '#core/read/analysis-routes.ts';
import { runPart, runPartKey, sealPart } from '#core/read/run-dataset.ts';
import { DEFAULT_EXPORT_FIELDS } from '#schema/export-fields.ts';
import { DEFAULT_ENGINE_MEMORY_MB, DEFAULT_ENGINE_THREADS } from '#schema/config.ts';
import { DEFAULT_MIN_N } from '#schema/defaults.ts';
import { BENCH_CAMPAIGN, syntheticCampaign } from './synthetic-campaign.ts';

const SPACE = 'ScaleBench';
const PART_RUNS = 100_000;
const PAIRED_MODELS = Array.from({ length: 6 }, (_, m) => `synthetic-model-${String(m).padStart(2, '0')}`);
const PRICES = { 'synthetic-model-00': { inputPerMTok: 3, outputPerMTok: 15 } };

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000000' },
    repeats: { type: 'string', default: '5' },
    fresh: { type: 'boolean' },
    'build-only': { type: 'boolean' },
    'memory-mb': { type: 'string', default: String(DEFAULT_ENGINE_MEMORY_MB) },
    'exports-only': { type: 'boolean' },
  },
});
const runs = Number(values.runs);
const repeats = Number(values.repeats);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const root = resolve(import.meta.dirname, 'results', `scale-${runs}`);
const bucket = join(root, 'bucket');
const scratch = join(root, 'scratch');
const marker = join(root, 'built.json');

/** Writes the dataset and its marker: the build's milliseconds and peak resident memory. */
async function build(): Promise<void> {
  rmSync(root, { recursive: true, force: true });
  const t0 = performance.now();
  const { rows } = syntheticCampaign({ space: SPACE, runs, ...BENCH_CAMPAIGN }, '2026-12-01T00:00:00.000Z');
  // As the compactor's daily rebuild writes them: every part stamped with the rebuild's start, then its seal.
  const writtenAt = new Date('2026-12-01T00:00:00Z');
  let part: SnapshotRun[] = [];
  let written = 0;
  const put = async (kind: 'rebuild' | 'sealed', body: Uint8Array) => {
    const path = join(bucket, runPartKey(SPACE, writtenAt, kind, `part-${String(written++).padStart(4, '0')}`));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body);
  };
  const flush = async () => {
    await put('rebuild', runPart(part, writtenAt, 'rebuild'));
    part = [];
  };
  for (const row of rows()) {
    part.push(snapshotRun(row));
    if (part.length === PART_RUNS) await flush();
  }
  if (part.length) await flush();
  await put('sealed', sealPart(writtenAt));
  const ms = performance.now() - t0;
  writeFileSync(marker, JSON.stringify({ runs, buildMs: ms, buildPeakMb: process.resourceUsage().maxRSS / 1024 }));
}

/** Builds the dataset in a process of its own (unless a previous run built it for this size); answers its marker. */
function built(): { buildMs: number; buildPeakMb: number } | null {
  if (!values.fresh && existsSync(marker) && JSON.parse(readFileSync(marker, 'utf8')).runs === runs) return null;
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, import.meta.filename, '--runs', String(runs), '--build-only'],
    { stdio: 'inherit' },
  );
  if (child.status !== 0) throw new Error(`The build failed (exit ${child.status}).`);
  return JSON.parse(readFileSync(marker, 'utf8'));
}

async function timedRepeats(work: () => Promise<unknown>): Promise<number[]> {
  await work();
  const ms: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const t0 = performance.now();
    await work();
    ms.push(performance.now() - t0);
  }
  return ms;
}

if (values['build-only']) {
  await build();
  process.exit(0);
}
const fresh = built();
mkdirSync(scratch, { recursive: true });
const memoryMb = Number(values['memory-mb']);
const engine = await DuckDbEngine.open(
  bucket,
  '',
  // The bucket's put: every byte of the pieces read and written once, a file of the key's name.
  async (key, paths) => {
    await mkdir(dirname(join(scratch, key)), { recursive: true });
    const object = await open(join(scratch, key), 'w');
    try {
      for (const path of paths)
        for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) await object.write(chunk);
    } finally {
      await object.close();
    }
  },
  { memoryMb, threads: DEFAULT_ENGINE_THREADS },
);
// The memory floor: Node, the modules and DuckDB opened, nothing read yet.
const openedMb = process.resourceUsage().maxRSS / 1024;
const view = allRunsView(SPACE);
const sink = (format: string) => `'${join(scratch, `floor.${format}`)}'`;
/** A step of the read path and its floor, each a piece of work to time; the build is timed in its own process. */
interface Step {
  name: string;
  work: (() => Promise<unknown>) | { builtMs: number[] };
  floor: () => Promise<unknown>;
}
const steps: Step[] = [];
const outcome = await engineOutcome(engine, view, null);
if (!values['exports-only']) {
  steps.push({
    name: 'build the dataset',
    work: { builtMs: fresh === null ? [] : [fresh.buildMs] },
    floor: () => engine.rows(`COPY (SELECT * FROM ${engine.runDataset}) TO ${sink('parquet')} (FORMAT parquet)`),
  });
  steps.push({
    name: '/stats (warm)',
    work: async () =>
      engineStatistics(engine, view, await engineOutcome(engine, view, null), PRICES, DEFAULT_MIN_N, 'task'),
    floor: () => engine.rows(`SELECT model, harnessVersion, count(*) AS runs FROM ${engine.runDataset} GROUP BY 1, 2`),
  });
  // All pairs of the most configurations it compares: 6 models × 2 harnesses.
  const paired = { ...view, filters: { ...view.filters, models: PAIRED_MODELS } };
  steps.push({
    name: '/pairs (warm, 12 configs)',
    work: () => enginePairs(engine, paired, outcome, 'task'),
    floor: () =>
      engine.rows(
        `SELECT model, harnessVersion, count(DISTINCT taskId) AS tasks FROM ${engine.runDataset} ` +
          `WHERE model IN (${PAIRED_MODELS.map((m) => `'${m}'`).join(', ')}) GROUP BY 1, 2`,
      ),
  });
  // The Runs grid of engine mode: its first page, newest first, and the last page by wall time.
  const gridFloor = () => engine.rows(`SELECT * FROM ${engine.runDataset} ORDER BY finishedAt DESC LIMIT ${GRID_PAGE}`);
  for (const [name, sort, offset] of [
    ['/grid first page', { column: 'finishedAt', descending: true }, 0],
    ['/grid last page (wall time)', { column: 'wallSeconds', descending: true }, Math.max(0, runs - GRID_PAGE)],
  ] as const)
    steps.push({
      name,
      work: () => engine.rows(gridPageSql(engine, view, outcome, sort, offset, GRID_PAGE)),
      floor: gridFloor,
    });
}
for (const format of ['parquet', 'csv', 'json'] as const) {
  const sql = exportRowsSql(engine, view, outcome, DEFAULT_EXPORT_FIELDS, format, PRICES);
  const options = { csv: 'FORMAT csv, HEADER true', json: 'FORMAT json, ARRAY true', parquet: 'FORMAT parquet' }[
    format
  ];
  steps.push({
    name: `export.${format} of all rows`,
    work: () => engine.exportTo(sql, format, { prefix: `exports/${SPACE}/`, filename: `all.${format}` }, {}),
    floor: () => engine.rows(`COPY (SELECT * FROM ${engine.runDataset}) TO ${sink(format)} (${options})`),
  });
}
// Every step of the read path first, so the largest resident set by then is theirs; then the floors, whose plain
// copies hold more than the exports do.
const measured = new Map<string, number[]>();
const floors = new Map<string, number[]>();
let peakMb = 0;
try {
  for (const { name, work } of steps)
    measured.set(name, typeof work === 'function' ? await timedRepeats(work) : work.builtMs);
  peakMb = process.resourceUsage().maxRSS / 1024;
  for (const { name, floor } of steps) floors.set(name, await timedRepeats(floor));
} finally {
  engine.close();
}
const results = steps.map(({ name }) => [name, measured.get(name)!, floors.get(name)!] as const);
console.log(
  `\nThe engine path at ${runs.toLocaleString('en-US')} runs (DuckDB, local, ${memoryMb} MB limit), medians of ${repeats} warm:`,
);
console.log(
  `${''.padEnd(28)}${'median'.padStart(10)}${'max'.padStart(10)}${'floor'.padStart(10)}${'× floor'.padStart(9)}`,
);
for (const [name, ms, floor] of results) {
  if (!ms.length) {
    console.log(`${name.padEnd(28)}${'(built before)'.padStart(20)}${`${Math.round(median(floor))} ms`.padStart(10)}`);
    continue;
  }
  const [m, f] = [median(ms), median(floor)];
  console.log(
    `${name.padEnd(28)}${`${Math.round(m)} ms`.padStart(10)}${`${Math.round(Math.max(...ms))} ms`.padStart(10)}` +
      `${`${Math.round(f)} ms`.padStart(10)}${`${(m / f).toFixed(2)}×`.padStart(9)}`,
  );
}
console.log(
  `peak resident memory of the read path (this process: DuckDB, queries, figures): ${Math.round(peakMb)} MB, ` +
    `floor ${Math.round(openedMb)} MB (Node, the modules and DuckDB opened)`,
);
if (fresh) console.log(`peak resident memory of the build (its own process): ${Math.round(fresh.buildPeakMb)} MB`);
