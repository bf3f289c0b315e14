// Ingest throughput and ack latency for 50 KB signed deliveries against local mode, side by side with a
// bare HTTP server that only reads the body (the floor). Both servers run as child processes so the load
// generator never shares their event loop. Rounds alternate between the two; figures are medians over rounds.
// Then, one delivery at a time on an idle local mode: how long from the POST until the run's row is
// readable at GET /api/spaces/{space}/runs/{id} (ack, queue, landing), against the ack alone.
//   npm run bench:ingest [-- --rounds 5 --deliveries 400 --concurrency 16 --visible 30]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { signedHeaders } from '#shared/signature.ts';
import { spaceOfEndpoint } from '#runner/push.ts';
import { runId } from '#schema/run.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    deliveries: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '16' },
    visible: { type: 'string', default: '30' },
  },
});
const ROUNDS = Number(values.rounds);
const DELIVERIES = Number(values.deliveries);
const CONCURRENCY = Number(values.concurrency);
const VISIBLE = Number(values.visible);
const KEY = 'bench-key';
const root = resolve(import.meta.dirname, '..');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');

function startChild(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [tsx, script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) resolvePromise({ child, url: m[1]! });
    });
  });
}

/** A 50 KB run delivery: a realistic row plus a patch padded to size. */
function delivery(i: number, round: number): Buffer {
  const row = {
    model: 'qwen3-coder:30b',
    taskId: `bench-${round}-${i}`,
    harnessVersion: 'h2',
    host: 'mac-studio-1',
    startedAt: '2026-11-29T10:00:00Z',
    finishedAt: '2026-11-29T10:09:00Z',
    outcome: 'finished',
    steps: 31,
    wallSeconds: 540,
    promptTokens: 812345,
    completionTokens: 9123,
    bashCalls: 12,
    readCalls: 9,
    editCalls: 4,
  };
  const header = 'diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n';
  const body = {
    kind: 'run',
    host: row.host,
    id: runId(row),
    row,
    patch: header + '+ const value = compute(input);\n'.repeat(1530),
    summary: 'Bench run.',
  };
  return Buffer.from(JSON.stringify(body));
}

async function round(
  url: string,
  path: string,
  payloads: Buffer[],
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  async function worker() {
    while (next < payloads.length) {
      const raw = payloads[next++]!;
      const t0 = performance.now();
      const status = await post(agent, url + path, raw);
      if (status !== 202) throw new Error(`unexpected status ${status}`);
      latencies.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { perSecond: payloads.length / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

function post(agent: Agent, url: string, raw: Buffer): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          // Signed when sent, as replay-push signs (v2: the space, a delivery id, this second).
          ...signedHeaders(raw, KEY, {
            space: spaceOfEndpoint(url),
            deliveryId: randomUUID(),
            timestamp: Math.floor(Date.now() / 1000),
          }),
          'content-length': raw.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolvePromise(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(raw);
  });
}

/** Sequential pushes: ms until the 202, and ms until the row is readable (polled every 2 ms). */
async function untilReadable(
  url: string,
  space: string,
  payloads: Buffer[],
): Promise<{ ack: number[]; readable: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const ack: number[] = [];
  const readable: number[] = [];
  for (const raw of payloads) {
    const { id } = JSON.parse(raw.toString()) as { id: string };
    const t0 = performance.now();
    if ((await post(agent, `${url}/hooks/${space}/ingest`, raw)) !== 202) throw new Error('delivery refused');
    ack.push(performance.now() - t0);
    while ((await fetch(`${url}/api/spaces/${space}/runs/${encodeURIComponent(id)}`)).status !== 200)
      await new Promise((r) => setTimeout(r, 2));
    readable.push(performance.now() - t0);
  }
  agent.destroy();
  return { ack, readable };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const median = (xs: number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

const dir = mkdtempSync(join(tmpdir(), 'replay-bench-'));
mkdirSync(join(dir, 'keys'));
writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__mac-studio-1'), KEY);
writeFileSync(join(dir, 'config.json'), JSON.stringify({ spaces: { Bench: { senders: ['mac-studio-1'] } } }));

const local = await startChild(
  'infra/local/main.ts',
  {
    PORT: '0',
    REPLAY_CONFIG: join(dir, 'config.json'),
    REPLAY_DATA_DIR: join(dir, 'data'),
    REPLAY_KEYS_DIR: join(dir, 'keys'),
  },
  /local mode: (http:\/\/[\d.:]+)\//,
);
const floor = await startChild('bench/floor-server.ts', {}, /floor listening: (http:\/\/[\d.:]+)\//);

const results = { local: [] as Awaited<ReturnType<typeof round>>[], floor: [] as Awaited<ReturnType<typeof round>>[] };
const size = delivery(0, 0).length;
console.log(
  `${ROUNDS} rounds × ${DELIVERIES} deliveries of ${(size / 1024).toFixed(1)} KiB, ${CONCURRENCY} concurrent, Node ${process.version}`,
);
await round(
  local.url,
  '/hooks/Bench/ingest',
  Array.from({ length: 50 }, (_, i) => delivery(i, -1)),
); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  const payloads = Array.from({ length: DELIVERIES }, (_, i) => delivery(i, r));
  results.floor.push(await round(floor.url, '/hooks/Bench/ingest', payloads));
  results.local.push(await round(local.url, '/hooks/Bench/ingest', payloads));
}

const summary = (name: string, rs: typeof results.local) => ({
  name,
  perSecond: median(rs.map((x) => x.perSecond)),
  p50: median(rs.map((x) => x.p50)),
  p99: median(rs.map((x) => x.p99)),
});
const l = summary('local mode (verify, store, queue)', results.local);
const f = summary('floor (read body, 202)', results.floor);
console.log('');
console.log('server                                deliveries/s   p50 ack ms   p99 ack ms');
for (const s of [l, f])
  console.log(
    `${s.name.padEnd(38)}${s.perSecond.toFixed(0).padStart(12)}${s.p50.toFixed(1).padStart(13)}${s.p99.toFixed(1).padStart(13)}`,
  );
console.log(
  `${'ratio local / floor'.padEnd(38)}${(l.perSecond / f.perSecond).toFixed(2).padStart(12)}` +
    `${(l.p50 / f.p50).toFixed(1).padStart(13)}${(l.p99 / f.p99).toFixed(1).padStart(13)}`,
);

const visible = await untilReadable(
  local.url,
  'Bench',
  Array.from({ length: VISIBLE }, (_, i) => delivery(i, ROUNDS)),
);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
console.log('');
console.log(`one at a time, ${VISIBLE} deliveries              p50 ms       p99 ms`);
console.log(
  `${'push → 202'.padEnd(38)}${median(visible.ack).toFixed(1).padStart(12)}${quantile(sorted(visible.ack), 0.99).toFixed(1).padStart(13)}`,
);
console.log(
  `${'push → row readable'.padEnd(38)}${median(visible.readable).toFixed(1).padStart(12)}${quantile(sorted(visible.readable), 0.99).toFixed(1).padStart(13)}`,
);
console.log(
  `${'ratio readable / 202'.padEnd(38)}${(median(visible.readable) / median(visible.ack)).toFixed(1).padStart(12)}`,
);

const exited = (c: ChildProcess) => new Promise((r) => c.once('exit', r));
local.child.kill('SIGTERM');
floor.child.kill('SIGTERM');
await Promise.all([exited(local.child), exited(floor.child)]);
rmSync(dir, { recursive: true, force: true });
