// `npm run bench:export`: the exports of 100,000 runs from local mode (docs/contract.md §6), each format timed from
// the request to its last byte, beside the floor of the same run: the cockpit's own read of the same runs
// (`/columns`, the read model's binary answer). It also asks the read API as it runs behind API Gateway (an answer
// capped at LAMBDA_ANSWER_BYTES, large exports put in the data bucket) and prints what it answered: an export past
// the cap is never built into an answer, it is a 303 to a link. Medians of --repeats (5) requests, warm process.
// Options: --runs N (100000) --repeats K (5) --fresh
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { S3LinkedDownloads } from '#adapters/aws/s3-linked-downloads.ts';
import { LAMBDA_ANSWER_BYTES } from '#core/operations.ts';
import { systemClock } from '#core/ports.ts';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { parseConfig } from '#schema/config.ts';
import { loadSpace, preparedBefore } from './load-space.ts';
import { syntheticCampaign } from './synthetic-campaign.ts';

const SPACE = 'ExportBench';
const HOSTS = ['bench-host-1', 'bench-host-2'];
const TARGET_MS = 5_000;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    repeats: { type: 'string', default: '5' },
    fresh: { type: 'boolean' },
  },
});
const runs = Number(values.runs);
const repeats = Number(values.repeats);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function timed(url: string, gzip: boolean): Promise<{ ms: number; bytes: number; status: number }> {
  const t0 = performance.now();
  const response = await fetch(url, { headers: gzip ? { 'accept-encoding': 'gzip' } : {} });
  const bytes = (await response.arrayBuffer()).byteLength;
  return { ms: performance.now() - t0, bytes, status: response.status };
}

const dataDir = resolve(import.meta.dirname, 'results', `export-${runs}`);
const loaded = preparedBefore(dataDir, runs, values.fresh ?? false);
const config = parseConfig({ spaces: { [SPACE]: { senders: HOSTS } }, cockpits: { Exports: { space: SPACE } } });
const campaign = syntheticCampaign(
  { space: SPACE, runs, hosts: HOSTS, models: 6, harnesses: ['h1', 'h2'], tasksPerWave: 730 },
  new Date().toISOString(),
);
if (!loaded) await loadSpace(config, dataDir, SPACE, campaign.issues, [...campaign.rows()]);
const local = await startLocalMode({ config, dataDir, port: 0, sweepIntervalSeconds: 3600, env: {} });
try {
  const api = `${local.url}/api/spaces/${SPACE}`;
  const cases = [
    ['floor: /columns (gzip)', `${api}/columns`, true],
    ['export.parquet', `${api}/export.parquet`, false],
    ['export.csv (gzip)', `${api}/export.csv`, true],
    ['export.json (gzip)', `${api}/export.json`, true],
  ] as const;
  for (const [, url, gzip] of cases) await timed(url, gzip);
  const results = new Map<string, { ms: number[]; bytes: number }>();
  for (let k = 0; k < repeats; k++)
    for (const [name, url, gzip] of cases) {
      const r = await timed(url, gzip);
      if (r.status !== 200) throw new Error(`${name} answered ${r.status}`);
      const seen = results.get(name) ?? { ms: [], bytes: r.bytes };
      seen.ms.push(r.ms);
      results.set(name, seen);
    }
  const floor = median(results.get(cases[0][0])!.ms);
  console.log(`\nExports of ${runs.toLocaleString('en-US')} runs, medians of ${repeats} (warm local mode):`);
  console.log(
    `${''.padEnd(26)}${'median'.padStart(10)}${'max'.padStart(10)}${'MB'.padStart(8)}${'× floor'.padStart(9)}  target`,
  );
  for (const [name, { ms, bytes }] of results) {
    const m = median(ms);
    const target = name.startsWith('export') ? `< ${TARGET_MS} ms ${m < TARGET_MS ? 'met' : 'MISSED'}` : '';
    console.log(
      `${name.padEnd(26)}${`${Math.round(m)} ms`.padStart(10)}${`${Math.round(Math.max(...ms))} ms`.padStart(10)}` +
        `${(bytes / 1e6).toFixed(1).padStart(8)}${`${(m / floor).toFixed(2)}×`.padStart(9)}  ${target}`,
    );
  }

  // As behind API Gateway: the answer cap, and the data bucket for what does not fit.
  const { table, data } = local.adapters;
  const deps: ReadDeps = {
    config,
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects: data,
    pairing: { isPaired: async () => true },
    budget: table,
    clock: systemClock,
    maxAnswerBytes: LAMBDA_ANSWER_BYTES,
    downloads: new S3LinkedDownloads(local.emulators.s3, local.emulators.names.dataBucket),
  };
  for (const format of ['parquet', 'csv'] as const) {
    const t0 = performance.now();
    const answer = await answerRead(deps, 'GET', `/api/spaces/${SPACE}/export.${format}`, '', {
      'accept-encoding': 'gzip',
    });
    const size = answer.body instanceof Uint8Array ? answer.body.byteLength : JSON.stringify(answer.body).length;
    console.log(
      `with the ${(LAMBDA_ANSWER_BYTES / 1e6).toFixed(1)} MB answer cap, export.${format}: ${answer.status}` +
        `${answer.status === 303 ? ' to a presigned link' : ''}, an answer of ${size} bytes, ${Math.round(performance.now() - t0)} ms`,
    );
  }
} finally {
  await local.stop();
}
