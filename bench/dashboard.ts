// `npm run bench:dashboard`: the cockpit with 100,000 seeded runs in headless Chromium (loaded straight into local
// mode's store and compacted once; bench/results/dashboard-<N>/ is kept, --fresh reloads). Per navigation in a
// fresh context: time to the first complete render (`cockpit-ready`), bytes, heap after a GC; then filter changes
// to the painted frame and to every chart below the fold. Floor: downloading and JSON.parse-ing the same rows
// from a bare server. Then the outcome switch and all pairs on 12 configurations (bench/analysis-bench.ts), and the
// Reliability card on 12 configurations × 5 samples (bench/reliability-card-bench.ts).
// Options: --runs N (100000) --repeats K (5) --rounds R (10) --fresh --analysis-only --reliability-only --detail-only
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser, CDPSession } from 'playwright-core';
import { parseConfig } from '#schema/config.ts';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { launchChromium } from '../test/browser/helpers/chromium.ts';
import { cockpitReady } from './cockpit-ready.ts';
import { measureAnalysis } from './analysis-bench.ts';
import { measureRunDetail } from './run-detail-bench.ts';
import { measureReliabilityCard } from './reliability-card-bench.ts';
import { loadSpace, preparedBefore } from './load-space.ts';
import { BENCH_CAMPAIGN, syntheticCampaign } from './synthetic-campaign.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Nothing here may be judged: without credentials rows would be rewritten as "waiting" mid-measurement.

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    repeats: { type: 'string', default: '5' },
    fresh: { type: 'boolean', default: false },
    'analysis-only': { type: 'boolean', default: false },
    'detail-only': { type: 'boolean', default: false },
    'reliability-only': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '10' },
  },
});
const RUNS = Number(args.runs);
const REPEATS = Number(args.repeats);
const SPACE = 'BenchSpace';
const { hosts: HOSTS, models: MODELS, harnesses: HARNESSES } = BENCH_CAMPAIGN;
const TARGETS = { firstRenderMs: 2000, filterMs: 150 };

const dataDir = resolve(import.meta.dirname, 'results', `dashboard-${RUNS}`);

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
  await cockpitReady(page, RUNS, 120_000);
  const { firstRenderMs, bytes } = await page.evaluate(() => {
    const ready = performance.getEntriesByName('cockpit-ready')[0]!.startTime;
    const entries = [
      ...performance.getEntriesByType('navigation'),
      ...performance.getEntriesByType('resource'),
    ] as PerformanceResourceTiming[];
    return {
      firstRenderMs: ready,
      bytes: entries.filter((e) => e.startTime <= ready).reduce((n, e) => n + e.transferSize, 0),
    };
  });
  const heapBytes = await heapAfterGc(cdp);
  // Filter changes as a reader makes them: a tier on, a second tier on, both off again, a model, clear.
  const clicks = [
    '[data-tier="easy"]',
    '[data-tier="hard"]',
    '[data-tier="easy"]',
    '[data-tier="hard"]',
    '.filters .clear',
  ];
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

/** Downloading a body and parsing it (JSON), or only downloading it (the columns, which the cockpit reads in place). */
async function measureFloor(
  browser: Browser,
  url: string,
  path: string,
  body: 'json' | 'binary' = 'json',
): Promise<{ ms: number; bytes: number; heapBytes: number }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(`${url}/`);
  const result = await page.evaluate(
    async ([p, kind]) => {
      const t0 = performance.now();
      const response = await fetch(p);
      const parsed = kind === 'json' ? (JSON.parse(await response.text()) as unknown) : await response.arrayBuffer();
      const ms = performance.now() - t0;
      (window as unknown as { kept: unknown }).kept = parsed;
      const entry = performance
        .getEntriesByType('resource')
        .find((e) => e.name.endsWith(p)) as PerformanceResourceTiming;
      return { ms, bytes: entry.transferSize };
    },
    [path, body] as const,
  );
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
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': body.length,
    });
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
  const analysis = { runs: RUNS, rounds: Number(args.rounds), fresh: args.fresh };
  if (args['detail-only']) {
    const browser = await launchChromium();
    try {
      await measureRunDetail(browser, REPEATS);
    } finally {
      await browser.close();
    }
    return;
  }
  if (args['reliability-only']) {
    const browser = await launchChromium();
    try {
      await measureReliabilityCard(browser, analysis);
    } finally {
      await browser.close();
    }
    return;
  }
  if (args['analysis-only']) {
    const browser = await launchChromium();
    try {
      await measureAnalysis(browser, analysis);
    } finally {
      await browser.close();
    }
    return;
  }
  const loaded = preparedBefore(dataDir, RUNS, args.fresh);
  const config = parseConfig({ spaces: { [SPACE]: { senders: HOSTS } }, cockpits: { Bench: { space: SPACE } } });

  const generatedAt = Date.now();
  const landedAt = new Date().toISOString();
  const campaign = syntheticCampaign({ space: SPACE, runs: RUNS, ...BENCH_CAMPAIGN }, landedAt);
  const { issues } = campaign;
  const rows = [...campaign.rows()];
  console.log(
    `Generated ${rows.length} synthetic runs of ${MODELS * HARNESSES.length} model configurations on ${issues.length} tasks in ${Date.now() - generatedAt} ms.`,
  );
  if (!loaded) await loadSpace(config, dataDir, SPACE, issues, rows);

  // The compactor keeps the persisted snapshot current, as in AWS; bench/columns-cold.ts measures cold starts.
  const local = await startLocalMode({ config, dataDir, port: 0, sweepIntervalSeconds: 3600, env: {} });
  console.log(`Local mode at ${local.url}, data in ${dataDir}`);

  const columnsBody = Buffer.from(await (await fetch(`${local.url}/api/spaces/${SPACE}/columns`)).arrayBuffer());
  const rowsJson = Buffer.from(JSON.stringify({ runs: rows, cursor: null, asOf: landedAt }));
  const floor = await floorServer({
    '/rows.json': gzipSync(rowsJson, { level: 6 }),
    '/columns.bin': gzipSync(columnsBody, { level: 6 }),
  });
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
      compactFloors.push(await measureFloor(browser, floor.url, '/columns.bin', 'binary'));
      const last = samples.at(-1)!;
      console.log(
        `  round ${i + 1}: first render ${ms(last.firstRenderMs)}, filter changes ` +
          `${last.filterMs.map(ms).join(', ')} on screen; floor ${ms(floors.at(-1)!.ms)}`,
      );
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
    const row = (name: string, cockpit: string, floorValue: string, ratio: string, target = '') =>
      console.log(`${name.padEnd(28)}${cockpit.padStart(12)}${floorValue.padStart(12)}${ratio.padStart(9)}  ${target}`);

    console.log(
      `\nCockpit with ${rows.length.toLocaleString('en-US')} runs, headless Chromium, ` +
        `medians of ${REPEATS} navigations (filter: ${samples[0]!.filterMs.length} changes each).`,
    );
    console.log(
      `Floor: the same browser downloading and JSON.parse-ing the same ${rows.length.toLocaleString('en-US')} ` +
        `rows as the row API serves them (${mb(rowsJson.length)} of JSON, gzip), from a bare Node server.\n`,
    );
    row('', 'cockpit', 'floor', 'ratio', 'target');
    row(
      'first complete render',
      ms(first),
      ms(floorMs),
      `${(first / floorMs).toFixed(2)}×`,
      `< ${ms(TARGETS.firstRenderMs)} ${first < TARGETS.firstRenderMs ? 'met' : 'MISSED'}`,
    );
    row(
      'filter change, on screen',
      ms(filter),
      '',
      '',
      `< ${ms(TARGETS.filterMs)} ${filter < TARGETS.filterMs ? 'met' : 'MISSED'} (slowest ${ms(filterWorst)})`,
    );
    row('filter change, every chart', ms(filterAll), '', '', '(charts below the fold follow one frame later)');
    row('bytes transferred', mb(bytes), mb(floorBytes), `${(bytes / floorBytes).toFixed(2)}×`);
    row('JS heap + buffers after GC', mb(heap), mb(floorHeap), `${(heap / floorHeap).toFixed(2)}×`);
    console.log(
      `\nFor reference: the compact columnar body alone (${mb(columnsBody.length)} of typed arrays, ${mb(median(compactFloors.map((f) => f.bytes)))} ` +
        `gzip) downloads in ${ms(median(compactFloors.map((f) => f.ms)))} from the bare server (the cockpit reads it in place).`,
    );
  } finally {
    await browser.close();
    floor.server.close();
    await local.stop();
  }
  const browser2 = await launchChromium();
  try {
    await measureAnalysis(browser2, analysis);
    await measureReliabilityCard(browser2, analysis);
    await measureRunDetail(browser2, REPEATS);
  } finally {
    await browser2.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
