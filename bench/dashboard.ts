// `npm run bench:dashboard`: the cockpit with 100,000 runs in one space, measured in headless Chromium.
//
// Rows are synthetic (seeded) and loaded straight into local mode's store (bench/direct-load.ts); the
// data folder bench/results/dashboard-<N>/ is kept, so later runs skip the load (--fresh reloads).
// Measured per navigation, in a fresh browser context each time: time from navigation to the first
// complete render (the cockpit's `cockpit-ready` mark: data fetched and decoded, every chart of the
// dashboard filled and drawn, the page laid out), bytes transferred, and the JS heap plus array buffers
// after a full GC; then filter changes, timed from the click to the painted frame showing the new figures
// on screen, and to the moment every chart below the fold shows them too. The floor is what the same
// browser needs merely to download and JSON.parse the same rows as the row API serves them, from a bare
// Node server with the body pre-compressed.
//
// Options: --runs N (default 100000) --repeats K (default 5) --fresh
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser, CDPSession } from 'playwright-core';
import { parseConfig } from '../shared/schema/config.ts';
import type { StoredIssue } from '../shared/schema/issue.ts';
import { runId, type RunRow } from '../shared/schema/run.ts';
import { seeded } from '../infra/local/demo-campaign.ts';
import { startLocalMode } from '../infra/local/local-mode.ts';
import { launchChromium } from '../test/browser/helpers/chromium.ts';
import { judged, landedRow, loadIssues, loadRows, storedIssue } from './direct-load.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Nothing here may be judged: without credentials rows would be rewritten as "waiting" mid-measurement.

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '100000' }, repeats: { type: 'string', default: '5' }, fresh: { type: 'boolean', default: false } },
});
const RUNS = Number(args.runs);
const REPEATS = Number(args.repeats);
const SPACE = 'BenchSpace';
const HOSTS = ['bench-host-1', 'bench-host-2', 'bench-host-3'];
const MODELS = 25;
const HARNESSES = ['h1', 'h2'];
const TARGETS = { firstRenderMs: 2000, filterMs: 150 };

const dataDir = resolve(import.meta.dirname, 'results', `dashboard-${RUNS}`);
const marker = join(dataDir, 'loaded.json');
const LOADED_AT = '2026-01-15T12:00:00.000Z';

/** Deterministic synthetic campaign: MODELS × HARNESSES configurations, each on RUNS / configurations tasks. */
function synthetic(): { rows: RunRow[]; issues: StoredIssue[] } {
  const random = seeded(42);
  const configurations = MODELS * HARNESSES.length;
  const tasks = Math.ceil(RUNS / configurations);
  const taskId = (t: number) => `synthetic__repo-${t % 40}-task-${String(t).padStart(5, '0')}`;
  const issues = Array.from({ length: tasks }, (_, t) =>
    storedIssue(
      SPACE,
      {
        taskId: taskId(t),
        order: t + 1,
        repo: `synthetic/repo-${t % 40}`,
        issueNumber: t + 1,
        tier: (['easy', 'medium', 'hard'] as const)[Math.floor(random() * 3)],
        wave: Math.floor(t / 500) + 1,
        prToMergeHours: Math.round(random() * 2000) / 10,
        baseSha: 'a'.repeat(40),
        mergeSha: 'b'.repeat(40),
      },
      LOADED_AT,
    ),
  );
  const rows: RunRow[] = [];
  for (let k = 0; k < RUNS; k++) {
    const config = k % configurations;
    const t = Math.floor(k / configurations);
    const skill = (config % MODELS) / MODELS;
    const steps = 5 + Math.floor(random() * 120);
    const known = () => random() > 0.05;
    const wall = known() ? Math.round(steps * (5 + random() * 20) * 10) / 10 : null;
    const tokens = known() ? Math.round(steps * (100 + random() * 600)) : null;
    const resolved = random() < 0.15 + skill * 0.5;
    const identity = { model: `synthetic-model-${String(config % MODELS).padStart(2, '0')}`, taskId: taskId(t), harnessVersion: HARNESSES[Math.floor(config / MODELS)]! };
    const delivery = {
      kind: 'run',
      id: runId(identity),
      row: {
        ...identity,
        host: HOSTS[k % HOSTS.length],
        repo: `synthetic/repo-${t % 40}`,
        tier: issues[t]!.tier,
        wave: issues[t]!.wave,
        startedAt: '2026-01-10T00:00:00Z',
        finishedAt: new Date(Date.parse('2026-01-10T00:00:00Z') + k * 1000).toISOString(),
        wallSeconds: wall,
        steps,
        maxSteps: 120,
        outcome: steps >= 120 ? 'budget' : 'finished',
        promptTokens: tokens && tokens * 20,
        completionTokens: tokens,
        outputTokensPerMinute: wall && tokens ? Math.round((tokens / (wall / 60)) * 10) / 10 : null,
        patchFilesChanged: 1 + Math.floor(random() * 4),
        patchLinesAdded: Math.floor(random() * 80),
        patchLinesRemoved: Math.floor(random() * 40),
        contamination: random() < 0.01 ? [{ step: 3, path: 'tests/hidden.py' }] : [],
        metricsSource: 'generated',
      },
      patch: random() < 0.08 ? '' : 'diff --git a/x b/x\n',
    };
    const hidden = { hiddenTestResult: { status: resolved ? 'pass' : 'fail', ranAt: LOADED_AT } };
    const row = landedRow(SPACE, delivery, LOADED_AT, random() < 0.9 ? hidden : undefined);
    const verdict = random() < 0.1 ? (resolved ? 'partial' : 'resolved') : resolved ? 'resolved' : 'wrong';
    rows.push(
      random() < 0.9
        ? judged(row, { verdict, rootCauseFound: resolved, sameFilesAsReference: resolved, testAdded: false, wouldCompile: true, reason: 'synthetic' }, 'bench-judge', LOADED_AT)
        : { ...row, judgeNextAttemptAt: null, judgeState: row.judgeVerdict ? row.judgeState : 'waiting-credentials' },
    );
  }
  return { rows, issues };
}

interface Sample {
  firstRenderMs: number;
  bytes: number;
  heapBytes: number;
  /** Click to the next frame: what is on screen shows the new figures. */
  filterMs: number[];
  /** Click until every chart, on screen or below it, shows them. */
  filterAllMs: number[];
}

async function measureCockpit(browser: Browser, url: string): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(url);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 120_000 });
  const { firstRenderMs, bytes } = await page.evaluate(() => {
    const ready = performance.getEntriesByName('cockpit-ready')[0]!.startTime;
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')] as PerformanceResourceTiming[];
    return { firstRenderMs: ready, bytes: entries.filter((e) => e.startTime <= ready).reduce((n, e) => n + e.transferSize, 0) };
  });
  const heapBytes = await heapAfterGc(cdp);
  // Filter changes as a reader makes them: a tier on, a second tier on, both off again, a model, clear.
  const clicks = ['[data-tier="easy"]', '[data-tier="hard"]', '[data-tier="easy"]', '[data-tier="hard"]', '.filters .clear'];
  const filterMs: number[] = [];
  const filterAllMs: number[] = [];
  await page.locator('[data-filter="model"] summary').click();
  for (const selector of [...clicks, '[data-filter="model"] .menu-item input', '.filters .clear']) {
    const [visible, all] = await page.evaluate(async (s) => {
      // (No named functions in here: tsx would wrap them in a helper the page does not have.)
      const target = document.querySelector<HTMLElement>(s)!;
      const t0 = performance.now();
      target.click();
      // What is on screen renders in the click handler; the frame after it includes style, layout and paint.
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const visible = performance.now() - t0;
      // Charts below the fold follow right after that frame.
      while (document.documentElement.dataset.pendingParts !== '0') await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return [visible, performance.now() - t0];
    }, selector);
    filterMs.push(visible);
    filterAllMs.push(all);
  }
  await context.close();
  return { firstRenderMs, bytes, heapBytes, filterMs, filterAllMs };
}

async function measureFloor(browser: Browser, url: string, path: string): Promise<{ ms: number; bytes: number; heapBytes: number }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(`${url}/`);
  const result = await page.evaluate(async (p) => {
    const t0 = performance.now();
    const response = await fetch(p);
    const parsed = JSON.parse(await response.text()) as unknown;
    const ms = performance.now() - t0;
    (window as unknown as { kept: unknown }).kept = parsed;
    const entry = performance.getEntriesByType('resource').find((e) => e.name.endsWith(p)) as PerformanceResourceTiming;
    return { ms, bytes: entry.transferSize };
  }, path);
  const heapBytes = await heapAfterGc(cdp);
  await context.close();
  return { ...result, heapBytes };
}

/** JS heap plus ArrayBuffer backing stores (where the cockpit's typed arrays live), after a full GC. */
async function heapAfterGc(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
  return usage.usedSize + (usage.backingStorageSize ?? 0);
}

/** A bare static server: the floor has no store, no handler, no encoding work per request. */
async function floorServer(files: Record<string, Buffer>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = files[req.url ?? ''];
    if (req.url === '/') return res.end('<!doctype html><title>floor</title>');
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (v: number) => `${Math.round(v)} ms`;

async function main() {
  if (args.fresh) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const config = parseConfig({ spaces: { [SPACE]: { senders: HOSTS } }, cockpits: { Bench: { space: SPACE } } });
  const local = await startLocalMode({ config, dataDir, port: 0, sweepIntervalSeconds: 3600, env: {} });
  console.log(`Local mode at ${local.url}, data in ${dataDir}`);

  const generatedAt = Date.now();
  const { rows, issues } = synthetic();
  console.log(`Generated ${rows.length} synthetic runs of ${MODELS * HARNESSES.length} model configurations on ${issues.length} tasks in ${Date.now() - generatedAt} ms.`);
  const loaded = existsSync(marker) && (JSON.parse(readFileSync(marker, 'utf8')) as { runs: number }).runs === RUNS;
  if (!loaded) {
    const started = Date.now();
    const store = local.adapters.table;
    await loadIssues(store, issues);
    await loadRows(store, rows, { concurrency: 32, onProgress: (n) => console.log(`  loaded ${n} runs (${((Date.now() - started) / 1000).toFixed(0)} s)`) });
    writeFileSync(marker, JSON.stringify({ runs: RUNS }));
    console.log(`Loaded into the store in ${((Date.now() - started) / 1000).toFixed(1)} s (kept for the next run).`);
  }

  // The first request reads the whole space into the read API's snapshot: a cost paid once per process.
  let started = Date.now();
  const columns = await fetch(`${local.url}/api/spaces/${SPACE}/columns`, { headers: { 'accept-encoding': 'gzip' } });
  const columnsBody = Buffer.from(await columns.arrayBuffer());
  const coldMs = Date.now() - started;
  started = Date.now();
  await (await fetch(`${local.url}/api/spaces/${SPACE}/columns`)).arrayBuffer();
  const warmMs = Date.now() - started;

  const rowsJson = Buffer.from(JSON.stringify({ runs: rows, cursor: null, asOf: LOADED_AT }));
  const floor = await floorServer({ '/rows.json': gzipSync(rowsJson, { level: 6 }), '/columns.json': gzipSync(columnsBody, { level: 6 }) });
  const browser = await launchChromium();
  try {
    const samples: Sample[] = [];
    const floors: { ms: number; bytes: number; heapBytes: number }[] = [];
    const compactFloors: { ms: number; bytes: number }[] = [];
    // One unmeasured round warms the browser's code caches for both sides alike.
    await measureCockpit(browser, `${local.url}/`);
    await measureFloor(browser, floor.url, '/rows.json');
    for (let i = 0; i < REPEATS; i++) {
      samples.push(await measureCockpit(browser, `${local.url}/`));
      floors.push(await measureFloor(browser, floor.url, '/rows.json'));
      compactFloors.push(await measureFloor(browser, floor.url, '/columns.json'));
      const last = samples.at(-1)!;
      console.log(`  round ${i + 1}: first render ${ms(last.firstRenderMs)}, filter changes ${last.filterMs.map(ms).join(', ')} on screen; floor ${ms(floors.at(-1)!.ms)}`);
    }
    const first = median(samples.map((s) => s.firstRenderMs));
    const filter = median(samples.flatMap((s) => s.filterMs));
    const filterWorst = Math.max(...samples.flatMap((s) => s.filterMs));
    const filterAll = median(samples.flatMap((s) => s.filterAllMs));
    const floorMs = median(floors.map((f) => f.ms));
    const bytes = median(samples.map((s) => s.bytes));
    const floorBytes = median(floors.map((f) => f.bytes));
    const heap = median(samples.map((s) => s.heapBytes));
    const floorHeap = median(floors.map((f) => f.heapBytes));
    const row = (name: string, cockpit: string, floorValue: string, ratio: string, target = '') => console.log(`${name.padEnd(28)}${cockpit.padStart(12)}${floorValue.padStart(12)}${ratio.padStart(9)}  ${target}`);

    console.log(`\nCockpit with ${rows.length.toLocaleString('en-US')} runs, headless Chromium, medians of ${REPEATS} navigations (filter: ${samples[0]!.filterMs.length} changes each).`);
    console.log(`Floor: the same browser downloading and JSON.parse-ing the same ${rows.length.toLocaleString('en-US')} rows as the row API serves them (${mb(rowsJson.length)} of JSON, gzip), from a bare Node server.\n`);
    row('', 'cockpit', 'floor', 'ratio', 'target');
    row('first complete render', ms(first), ms(floorMs), `${(first / floorMs).toFixed(2)}×`, `< ${ms(TARGETS.firstRenderMs)} ${first < TARGETS.firstRenderMs ? 'met' : 'MISSED'}`);
    row('filter change, on screen', ms(filter), '', '', `< ${ms(TARGETS.filterMs)} ${filter < TARGETS.filterMs ? 'met' : 'MISSED'} (slowest ${ms(filterWorst)})`);
    row('filter change, every chart', ms(filterAll), '', '', '(charts below the fold follow one frame later)');
    row('bytes transferred', mb(bytes), mb(floorBytes), `${(bytes / floorBytes).toFixed(2)}×`);
    row('JS heap + buffers after GC', mb(heap), mb(floorHeap), `${(heap / floorHeap).toFixed(2)}×`);
    console.log(`\nFor reference: the compact columnar body alone (${mb(columnsBody.length)} JSON, ${mb(median(compactFloors.map((f) => f.bytes)))} gzip) downloads and parses in ${ms(median(compactFloors.map((f) => f.ms)))} from the bare server.`);
    console.log(`Read API, columns endpoint: first request after start ${ms(coldMs)} (reads all ${rows.length.toLocaleString('en-US')} rows from the store into its snapshot), then ${ms(warmMs)}.`);
  } finally {
    await browser.close();
    floor.server.close();
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
