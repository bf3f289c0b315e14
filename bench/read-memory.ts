// `npm run bench:read-memory -- --runs N`: the read function's resident memory in AWS's shape at size. The read
// function asks Athena, which reads the run dataset; the function holds answers (a row per configuration and
// sample kind, a grid page) and the keys of an export's objects, never the runs. Here the engine path of
// `/stats`, `/pairs`, the grid's first and last pages and the exports of every run (Parquet and JSON, UNLOADed;
// CSV, the query's own result object) run in this process through the Athena adapter, against the Athena
// stand-in (DuckDB over bench:scale's dataset, test/helpers/athena-stand-in.ts) and the S3 emulator, both in a
// child process of their own, so this process's largest resident set is the function's. Its floor: the same
// process with the modules loaded and the clients made, before any query. The stand-in is far slower than
// Athena, so the adapter's polling may wait up to 10 minutes a query here (12 s in the function).
// Options: --runs N (2000000; the dataset bench:scale built, `npm run bench:scale -- --runs N --build-only`)
// --csv (also the CSV export: the stand-in holds a SELECT's rows in memory, about 2 GB a million runs)
import '../test/helpers/quiet-sdk-notice.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { AthenaEngine, athenaClient } from '#adapters/aws/athena-engine.ts';
import { S3ObjectStore, s3Client } from '#adapters/aws/s3-object-store.ts';
import type { AwsConnection } from '#adapters/aws/sdk-settings.ts';
import { AWS_CALLS } from '#core/operations.ts';
import { DEFAULT_GRID_PAGE as GRID_PAGE } from '#core/read/analysis-routes.ts';
import { engineOutcome, enginePairs, engineStatistics } from '#core/read/engine-figures.ts';
import { allRunsView, exportRowsSql, gridPageSql } from '#core/read/engine-queries.ts';
import { RUN_DATASET_PREFIX } from '#core/storage-layout.ts';
import { DEFAULT_EXPORT_FIELDS } from '#schema/export-fields.ts';
import { DEFAULT_MIN_N } from '#schema/defaults.ts';
import { startEmulatorServers } from '#infra/local/emulators.ts';
import { startAthenaStandIn } from '../test/helpers/athena-stand-in.ts';

const SPACE = 'ScaleBench';
const PRICES = { 'synthetic-model-00': { inputPerMTok: 3, outputPerMTok: 15 } };
const PAIRED_MODELS = Array.from({ length: 6 }, (_, m) => `synthetic-model-${String(m).padStart(2, '0')}`);
const [DATASET_BUCKET, DATA_BUCKET, WORK_GROUP] = ['scale-runs', 'replay-data', 'replay'];

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000000' },
    csv: { type: 'boolean' },
    serve: { type: 'boolean' },
  },
});
const datasetDirectory = resolve(import.meta.dirname, 'results', `scale-${Number(values.runs)}`, 'bucket');

interface Served {
  connection: AwsConnection;
  athena: string;
}

if (values.serve) {
  // The child: the S3 emulator and the Athena stand-in, until this process's input closes.
  const dir = mkdtempSync(join(tmpdir(), 'replay-read-memory-'));
  const servers = await startEmulatorServers(dir);
  const s3 = s3Client(servers.connection);
  await s3.send(new CreateBucketCommand({ Bucket: DATA_BUCKET }));
  const athena = await startAthenaStandIn({
    s3,
    bucketDirectory: (bucket) => (bucket === DATASET_BUCKET ? datasetDirectory : join(servers.s3Directory, bucket)),
    objectSuffix: '',
    workGroups: { [WORK_GROUP]: { outputLocation: `s3://${DATA_BUCKET}/athena-results/` } },
    tables: [{ database: 'replay_runs', table: 'runs', location: `s3://${DATASET_BUCKET}/${RUN_DATASET_PREFIX}` }],
  });
  console.log(JSON.stringify({ connection: servers.connection, athena: athena.endpoint } satisfies Served));
  process.stdin.resume();
  await new Promise((done) => process.stdin.once('end', done));
  await athena.stop();
  await servers.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

if (!existsSync(datasetDirectory))
  throw new Error(
    `No dataset at ${datasetDirectory}: run \`npm run bench:scale -- --runs ${values.runs} --build-only\`.`,
  );
const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, '--serve', '--runs', values.runs], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const served = await new Promise<Served>((done, fail) => {
  createInterface({ input: child.stdout }).once('line', (line) => done(JSON.parse(line) as Served));
  child.once('exit', (code) => fail(new Error(`The stand-in's process ended (exit ${code}).`)));
});

// The emulators' limits on each call: the stand-in answers a poll only between the steps of its DuckDB work.
const timeouts = AWS_CALLS.emulated;
const objects = new S3ObjectStore(s3Client(served.connection, timeouts), DATA_BUCKET, timeouts);
const settings = {
  workGroup: WORK_GROUP,
  dataBucket: DATA_BUCKET,
  database: 'replay_runs',
  table: 'runs',
  polling: { firstMs: 50, factor: 1.5, maxMs: 1_000, timeoutMs: 600_000 },
};
const athena = athenaClient({ ...served.connection, endpoints: { athena: served.athena } }, timeouts);
const engine = new AthenaEngine(athena, objects, settings, timeouts);
const floorMb = process.resourceUsage().maxRSS / 1024;
const view = allRunsView(SPACE);
const outcome = await engineOutcome(engine, view, null);
const lastPage = Math.max(0, Number(values.runs) - GRID_PAGE);
const paired = { ...view, filters: { ...view.filters, models: PAIRED_MODELS } };
const steps: [string, () => Promise<unknown>][] = [
  ['/stats', () => engineStatistics(engine, view, outcome, PRICES, DEFAULT_MIN_N, 'task')],
  ['/pairs (12 configurations)', () => enginePairs(engine, paired, outcome, 'task')],
  [
    '/grid first page',
    () => engine.rows(gridPageSql(engine, view, outcome, { column: 'finishedAt', descending: true }, 0, GRID_PAGE)),
  ],
  [
    '/grid last page (wall time)',
    () =>
      engine.rows(gridPageSql(engine, view, outcome, { column: 'wallSeconds', descending: true }, lastPage, GRID_PAGE)),
  ],
];
for (const format of values.csv ? (['parquet', 'json', 'csv'] as const) : (['parquet', 'json'] as const)) {
  const sql = exportRowsSql(engine, view, outcome, DEFAULT_EXPORT_FIELDS, format, PRICES);
  const prefix = () => `exports/${SPACE}/${Date.now()}-${format}/`;
  steps.push([
    `export.${format} of all rows`,
    async () => {
      const exported = await engine.exportTo(sql, format, { prefix: prefix(), filename: `all.${format}` });
      if (exported.runs !== Number(values.runs)) throw new Error(`export.${format}: ${exported.runs} runs.`);
    },
  ]);
}

console.log(`The read function through Athena (the stand-in) at ${Number(values.runs).toLocaleString('en-US')} runs:`);
try {
  for (const [name, step] of steps) {
    const t0 = performance.now();
    await step();
    const ms = performance.now() - t0;
    const rss = process.resourceUsage().maxRSS / 1024;
    console.log(`${name.padEnd(30)}${`${Math.round(ms)} ms`.padStart(12)}   peak so far ${Math.round(rss)} MB`);
  }
} finally {
  child.stdin.end();
}
console.log(
  `peak resident memory of the read function's process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB, ` +
    `floor ${Math.round(floorMb)} MB (Node, the modules and the clients)`,
);
