// `npm run bench:sync`: replay-push sync throughput, in run folders per second, against local mode (`npm start`
// as its own process: the pipeline is another machine for a runner host), with 50 KB patches. Baseline in the
// same run: the same deliveries, built beforehand, POSTed with runner/push.ts at the same concurrency (the
// endpoint's own pace: no folder reading, outbox writes, fsyncs or ledger). A third figure, sync against a bare
// server that answers 202 at once, is the client's ceiling. Trials alternate; medians, ratios and the size of
// the bundled replay-push.mjs are printed. Options: --folders N (200) --trials T (5) --concurrency C (8)
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildClient } from '../bin/build-client.ts';
import { keyEnvName } from '#shared/key-names.ts';
import { postSigned } from '#runner/push.ts';
import { buildRunDelivery } from '#runner/delivery.ts';
import { Outbox } from '#runner/outbox.ts';
import { prepareFolders, syncRunFolders } from '#runner/sync.ts';
import { median } from '#runner/derive.ts';
import { killProcess, startLocalProcess } from '../test/helpers/local-process.ts';

const { values: args } = parseArgs({
  options: {
    folders: { type: 'string', default: '200' },
    trials: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
  },
});
const FOLDERS = Number(args.folders);
const TRIALS = Number(args.trials);
const CONCURRENCY = Number(args.concurrency);
const HOST = 'mac-bench-1';
const KEY = 'bench-sync-key';
const PATCH_BYTES = 50 * 1024;

function patch(seed: string): string {
  const lines: string[] = [
    'diff --git a/src/Bench.cs b/src/Bench.cs',
    '--- a/src/Bench.cs',
    '+++ b/src/Bench.cs',
    '@@ -1,400 +1,400 @@',
  ];
  for (let n = 0; lines.join('\n').length < PATCH_BYTES; n++)
    lines.push(`${n % 3 ? '+' : '-'}    var value${n} = Compute("${seed}", ${n}); // benchmark line`);
  return `${lines.join('\n')}\n`;
}

/** A runs root of FOLDERS run folders; `trial` makes every run id new, so each trial lands fresh rows. */
function writeRunsRoot(dir: string, trial: string): string {
  const root = join(dir, `runs-${trial}`);
  for (let n = 0; n < FOLDERS; n++) {
    const folder = join(root, `run-${n}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'candidate.diff'), patch(`${trial}-${n}`));
    writeFileSync(join(folder, 'summary.md'), 'Benchmark run.');
    writeFileSync(
      join(folder, 'result.json'),
      JSON.stringify({
        format: 'replay-run/1',
        model: 'bench-model',
        taskId: `bench-task-${n}`,
        harnessVersion: trial,
        host: HOST,
        startedAt: '2026-11-20T10:00:00Z',
        finishedAt: '2026-11-20T10:10:00Z',
        outcome: 'finished',
      }),
    );
  }
  return root;
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'replay-bench-sync-'));
const keysDir = join(dir, 'keys');
mkdirSync(keysDir, { recursive: true });
writeFileSync(join(keysDir, keyEnvName('Hosting:ModuleReportSecret', HOST)), KEY, { mode: 0o600 });
writeFileSync(join(dir, 'config.json'), JSON.stringify({ spaces: { Bench: { senders: [HOST] } } }));
const local = await startLocalProcess({
  REPLAY_CONFIG: join(dir, 'config.json'),
  REPLAY_DATA_DIR: join(dir, 'data'),
  REPLAY_KEYS_DIR: keysDir,
  POWERTOOLS_LOG_LEVEL: 'ERROR',
});
const endpoint = `${local.url}/hooks/Bench/ingest`;

// The client's ceiling: an endpoint that reads the body and accepts it, nothing else.
const bare = createServer((request, response) => {
  request
    .resume()
    .on('end', () =>
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"signature":"verified","status":"queued"}'),
    );
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareEndpoint = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/hooks/Bench/ingest`;

async function timedSync(trial: string, target: string): Promise<number> {
  const root = writeRunsRoot(dir, trial);
  const folders = Array.from({ length: FOLDERS }, (_, n) => join(root, `run-${n}`));
  const started = performance.now();
  const outbox = await Outbox.open(join(root, '.replay-outbox'));
  const report = await syncRunFolders(outbox, folders, root, {
    endpoint: target,
    keyFile: join(keysDir, keyEnvName('Hosting:ModuleReportSecret', HOST)),
    env: {},
    concurrency: CONCURRENCY,
  });
  await outbox.close();
  if (report.delivered !== FOLDERS) throw new Error(`sync delivered ${report.delivered} of ${FOLDERS}`);
  return FOLDERS / ((performance.now() - started) / 1000);
}

const client: number[] = [];
const ceiling: number[] = [];
const baseline: number[] = [];
try {
  console.log(
    `replay-push sync: ${FOLDERS} run folders with ${PATCH_BYTES / 1024} KB patches per trial, ` +
      `concurrency ${CONCURRENCY}, local mode in its own process; ${TRIALS} trials each, alternating.`,
  );
  for (let trial = 0; trial < TRIALS; trial++) {
    // Baseline: deliveries built beforehand (from other folders, so ids differ), then only POSTed.
    const baseRoot = writeRunsRoot(dir, `base${trial}`);
    const prepared = await prepareFolders(
      readdirSync(baseRoot).map((name) => join(baseRoot, name)),
      { runsRoot: baseRoot },
    );
    const bodies = prepared.runs.map((run) => Buffer.from(buildRunDelivery(run).body));
    const started = performance.now();
    await inParallel(bodies, async (body) => {
      const answer = await postSigned(endpoint, body, KEY, randomUUID());
      if (answer.status !== 202)
        throw new Error(`baseline delivery refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    });
    baseline.push(FOLDERS / ((performance.now() - started) / 1000));

    client.push(await timedSync(`sync${trial}`, endpoint));
    ceiling.push(await timedSync(`bare${trial}`, bareEndpoint));
    console.log(
      `  trial ${trial + 1}: sync ${client.at(-1)!.toFixed(1)} folders/s, baseline ` +
        `${baseline.at(-1)!.toFixed(1)} deliveries/s, sync to a bare endpoint ${ceiling.at(-1)!.toFixed(1)} folders/s`,
    );
  }
  const syncMedian = median(client)!;
  const baseMedian = median(baseline)!;
  console.log(
    `\nmedian sync:     ${syncMedian.toFixed(1)} run folders/s  (read, derive, cut, outbox write + fsync, sign, send, ledger)`,
  );
  console.log(`median baseline: ${baseMedian.toFixed(1)} deliveries/s  (prebuilt bodies POSTed with runner/push.ts)`);
  console.log(`ratio sync / baseline: ${(syncMedian / baseMedian).toFixed(2)}`);
  console.log(
    `median sync to a bare endpoint (the client's own ceiling): ${median(ceiling)!.toFixed(1)} ` +
      `run folders/s, ${(median(ceiling)! / baseMedian).toFixed(1)}× the local-mode baseline`,
  );
  const bundle = await buildClient(join(dir, 'replay-push.mjs'));
  console.log(`bundled replay-push.mjs: ${(bundle.bytes / 1024).toFixed(0)} KiB (${bundle.bytes} bytes)`);
} finally {
  bare.close();
  await killProcess(local);
  rmSync(dir, { recursive: true, force: true });
}
