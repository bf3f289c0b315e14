// How reliable is this agent? (docs/cockpit.md): the Reliability card, the matrix's c/n cells and the run detail's
// other samples, in headless Chromium, on a campaign of 4 tasks × 3 samples small enough to work by hand. A small
// server here plays the read API. On the hidden tests:
//
//   task     agent-a   agent-b
//   t1       3/3       3/3
//   t2       2/3       3/3
//   t3       1/3       0/3
//   t4       0/3       0/3
//
// agent-a: pass@k = mean over tasks of 1 − C(n−c, k)/C(n, k): k=1 (1 + 2/3 + 1/3 + 0)/4 = 1/2, k=2 (1 + 1 + 2/3 + 0)/4
// = 2/3, k=3 (1 + 1 + 1 + 0)/4 = 3/4; pass^k = mean of C(c, k)/C(n, k): k=1 1/2, k=2 (1 + 1/3)/4 = 1/3, k=3 1/4.
// agent-b: every task all or nothing, so pass@k = pass^k = 1/2 for every k. Both: 6 of 12 samples, mean 1/2; the
// task-clustered SE is √(Σ (c − n/2)²)/12 — agent-a √5/12, agent-b 3/12 — so the effective n = p(1−p)/SE² is
// 7.2 and 4, and the intervals are Wilson's at them: 1/2 ± 0.2949 and ± 0.3500, 21%–79% and 15%–85%; every task
// has 3 samples, so pass@1 and pass^1, the same figure, carry the same interval. Bootstrap intervals over 4 tasks
// beyond k = 1: agent-b's task means are 1, 1, 0, 0, so a resample's mean is 0 (or 1) with chance 1/16 > 2.5%:
// [0%, 100%]; agent-a's pass^3 values are 1, 0, 0, 0, a resample's mean 1 with chance 1/256 < 2.5% but ≥ 3/4 with
// chance 13/256 > 2.5%: [0%, 75%]. Where a bound's exact percentile sits next to 2.5% (agent-a's pass@2: a mean
// ≤ 2/12 with chance 5/256 = 1.95%, so exactly 3/12), the 2,000 resamples at the fixed seed may land one step away
// (1/12): the printed bounds are the fixed-seed draw's, held within a step of the exact ones in
// test/unit/shared/analytics/reliability.test.ts.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { CompactRun } from '#analytics/columns.ts';
import { runId } from '#schema/run-id.ts';
import { launchChromium } from './helpers/chromium.ts';
import { analysisPages, settled } from './helpers/analysis-page.ts';
import { SHOTS } from './helpers/judged-campaign.ts';
import { columns, emptySpaceApi, json, oneCockpit, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';
import { LANDED_AT, runRow } from '../helpers/records.ts';

const RESOLVED: Record<string, number[]> = { 'agent-a': [3, 2, 1, 0], 'agent-b': [3, 3, 0, 0] };
const TASKS = ['acme__widgets-1', 'acme__widgets-2', 'acme__widgets-3', 'acme__widgets-4'];
const SAMPLES = 3;

// The tasks land out of id order, so the table's task dictionary and the id order differ.
const LANDING_ORDER = [2, 0, 3, 1];

const RUNS: CompactRun[] = Object.entries(RESOLVED).flatMap(([model, resolved]) =>
  LANDING_ORDER.map((t) => [TASKS[t]!, t] as const).flatMap(([taskId, t]) =>
    Array.from({ length: SAMPLES }, (_, s) => {
      const pass = s < resolved[t]!;
      return compactRunOf({
        model,
        taskId,
        harnessVersion: 'h1',
        sample: s + 1,
        hiddenTest: pass ? 'pass' : 'fail',
        verdict: pass ? 'resolved' : 'wrong',
        firstVerdict: pass ? 'resolved' : 'wrong',
      });
    }),
  ),
);
const idOf = (r: CompactRun) => runId({ ...r, sample: r.sample ?? 1 });
const byId = new Map(RUNS.map((r) => [idOf(r), r]));

let server: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  server = await startDashboardServer((_req, res, u) => {
    if (u.pathname === '/cockpit.json') return oneCockpit(res, 'Repeats', 'R', 2);
    if (u.pathname === '/api/spaces/R/columns') return columns(res, RUNS);
    const run = /^\/api\/spaces\/R\/runs\/([^/]+)(\/attempts|\/texts)?$/.exec(u.pathname);
    const found = run && byId.get(decodeURIComponent(run[1]!));
    if (run && found) {
      const { model, taskId, harnessVersion, sample, hiddenTest, verdict } = found;
      const hiddenTestResult = { status: hiddenTest!, passed: hiddenTest === 'pass' ? 1 : 0, ranAt: LANDED_AT };
      const row = runRow(
        { model, taskId, harnessVersion, sample },
        { judgeVerdict: verdict, judgeState: 'judged', hiddenTestResult },
      );
      if (run[2] === '/texts') return json(res, 200, { patch: null, summary: null });
      return run[2] ? json(res, 200, { attempts: [] }) : json(res, 200, row);
    }
    return emptySpaceApi(res, u, 'R');
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const { open } = analysisPages(
  () => server,
  () => browser,
);

async function cardCsv(page: Page, card: string): Promise<Record<string, string>[]> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`#${card} .card-data`).click()]);
  const [head, ...lines] = readFileSync((await download.path())!, 'utf8')
    .trim()
    .split(/\r?\n/);
  const names = head!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, k) => [names[k]!, v])));
}

const cells = (page: Page, table: string) =>
  page
    .locator(`${table} tbody tr`)
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent)));

describe('how reliable is this agent', () => {
  it('does not tell the reader there is one run per model and task where each task has three samples', async () => {
    const page = await open();
    const caveats = await page.locator('.caveats').innerText();
    expect(caveats).not.toContain('One run per model and task');
    expect(caveats).toContain('samples of one task are not independent');
    await page.close();
  });

  it('draws pass@k and pass^k per configuration, every point named, with the figures worked by hand', async () => {
    const page = await open();
    const card = page.locator('#chart-reliability');
    await card.scrollIntoViewIfNeeded();
    await settled(page);
    expect(await page.locator('#reliability-note').innerText()).toMatch(/^Counted on the hidden tests/);
    // Every point, named, with its figure and interval: at k = 1 the mean rate's, below; beyond, the bootstrap's.
    expect(await cells(page, '#reliability-points')).toEqual([
      ['agent-a', '1', '50% (21%–79%)', '50% (21%–79%)', '4'],
      ['agent-a', '2', '67% (17%–100%)', '33% (0%–75%)', '4'],
      ['agent-a', '3', '75% (25%–100%)', '25% (0%–75%)', '4'],
      ['agent-b', '1', '50% (15%–85%)', '50% (15%–85%)', '4'],
      ['agent-b', '2', '50% (0%–100%)', '50% (0%–100%)', '4'],
      ['agent-b', '3', '50% (0%–100%)', '50% (0%–100%)', '4'],
    ]);
    // The mean over all samples with its task-clustered interval, and how consistent the tasks were.
    expect(await cells(page, '#reliability-table')).toEqual([
      ['agent-a', '4', '3', '50% (21%–79%; 6 of 12, clustered by task)', '1 / 2 / 1'],
      ['agent-b', '4', '3', '50% (15%–85%; 6 of 12, clustered by task)', '2 / 0 / 2'],
    ]);
    expect(await card.locator('.card-foot').innerText()).toContain('agent-a: only 4 tasks');
    // Two uPlot charts, each a named image whose text alternative names every point.
    for (const [id, mark, points] of [
      ['reliability-pass-at', 'pass@', ['agent-a · pass@2 67% (95% CI 17%–100%)', 'agent-b · pass@3 50%']],
      ['reliability-pass-hat', 'pass^', ['agent-a · pass^3 25% (95% CI 0%–75%)', 'agent-b · pass^1 50%']],
    ] as const) {
      const canvas = page.locator(`#${id} canvas`).first();
      expect(await canvas.getAttribute('role')).toBe('img');
      expect(await canvas.getAttribute('aria-label')).toBe(`${mark}k per configuration`);
      const text = await page.locator(`#${id}-text`).textContent();
      for (const point of points) expect(text).toContain(point);
      expect(text!.match(new RegExp(`${mark.replace('^', '\\^')}\\d`, 'g'))).toHaveLength(6);
    }
    // The pointer over agent-a's pass^3 names that point.
    const plot = page.locator('#reliability-pass-hat .u-over');
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height * 0.75);
    expect(await page.locator('#reliability-pass-hat .curve-tip').innerText()).toBe(
      'agent-a · pass^3 25% (95% CI 0%–75%)',
    );
    await card.screenshot({ path: `${SHOTS}/cockpit-reliability.png` });
    // Its CSV: every point, unrounded.
    const rows = await cardCsv(page, 'chart-reliability');
    expect(
      rows.map((r) => [r.configuration, r.k, Number(r.passAtK).toFixed(6), Number(r.passHatK).toFixed(6)]),
    ).toEqual([
      ['agent-a', '1', '0.500000', '0.500000'],
      ['agent-a', '2', '0.666667', '0.333333'],
      ['agent-a', '3', '0.750000', '0.250000'],
      ['agent-b', '1', '0.500000', '0.500000'],
      ['agent-b', '2', '0.500000', '0.500000'],
      ['agent-b', '3', '0.500000', '0.500000'],
    ]);
    expect(rows.every((r) => r.outcome === 'tests' && r.tasks === '4')).toBe(true);
    await page.close();
  });

  it('shows c/n in each matrix cell where samples repeat, on a colour ramp', async () => {
    const page = await open();
    const matrix = page.locator('#chart-matrix');
    await matrix.scrollIntoViewIfNeeded();
    await settled(page);
    expect(await matrix.locator('.legend').textContent()).toContain('every sample resolved');
    expect(await matrix.locator('canvas').getAttribute('aria-label')).toMatch(/samples resolved on the hidden tests/);
    // Walk agent-a's row and agent-b's with the keyboard: each cell names its c of n.
    const cursor = matrix.locator('.matrix-cursor');
    await cursor.focus();
    const said: string[] = [];
    for (const key of [
      'Home',
      'ArrowRight',
      'ArrowRight',
      'ArrowRight',
      'ArrowDown',
      'ArrowLeft',
      'ArrowLeft',
      'ArrowLeft',
    ]) {
      await cursor.press(key);
      said.push((await cursor.getAttribute('aria-label'))!.replace(/^.*?: (.*?) — (.*?)\. Enter.*$/, '$1 $2'));
    }
    const expected = (model: string, t: number) =>
      `${model} · ${TASKS[t]} ${RESOLVED[model]![t]}/3 samples resolved on the hidden tests`;
    expect(said).toEqual([
      ...[0, 1, 2, 3].map((t) => expected('agent-a', t)),
      ...[3, 2, 1, 0].map((t) => expected('agent-b', t)),
    ]);
    // Cells of different shares differ in colour; the same share, the same colour.
    const colourAt = (row: number, column: number) =>
      matrix.locator('canvas').evaluate(
        (canvas: HTMLCanvasElement, [r, c]) => {
          const ctx = canvas.getContext('2d')!;
          const ratio = devicePixelRatio || 1;
          const cell = (canvas.width / ratio - 210 - 4) / 4;
          const x = Math.round((210 + Math.min(14, Math.floor(cell)) * (c! + 0.4)) * ratio);
          const y = Math.round((18 + 14 * (r! + 0.5)) * ratio);
          return [...ctx.getImageData(x, y, 1, 1).data].join(',');
        },
        [row, column],
      );
    const a = await Promise.all([0, 1, 2, 3].map((t) => colourAt(0, t)));
    const b = await Promise.all([0, 1, 2, 3].map((t) => colourAt(1, t)));
    expect(new Set(a).size).toBe(4);
    expect([b[0], b[1], b[2], b[3]]).toEqual([a[0], a[0], a[3], a[3]]);
    // The CSV carries each cell's n and c.
    const rows = await cardCsv(page, 'chart-matrix');
    expect(rows).toHaveLength(8);
    for (const r of rows)
      expect([r.samples, r.resolvedSamples]).toEqual([
        '3',
        String(RESOLVED[r.configuration!]![TASKS.indexOf(r.taskId!)]),
      ]);
    await matrix.screenshot({ path: `${SHOTS}/cockpit-reliability-matrix.png` });
    await page.close();
  });

  it('lists the task’s other samples in the run detail, each a link that opens it', async () => {
    const shown = runId({ model: 'agent-a', taskId: TASKS[1]!, harnessVersion: 'h1', sample: 2 });
    const page = await open(`/?view=runs&run=${encodeURIComponent(shown)}`);
    const samples = page.locator('#run-samples');
    await samples.waitFor();
    expect(await samples.locator('h3').innerText()).toBe('Samples of this task (3)');
    expect(await cells(page, '#run-samples table')).toEqual([
      ['sample 1', 'resolved', 'pass'],
      ['sample 2 (this run)', 'resolved', 'pass'],
      ['sample 3', 'wrong', 'fail'],
    ]);
    const third = samples.locator('a', { hasText: 'sample 3' });
    expect(await third.getAttribute('href')).toContain(`run=${encodeURIComponent(`${shown.slice(0, -4)}__s3`)}`);
    await third.click();
    await page.waitForURL((u) => u.searchParams.get('run') === `${shown.slice(0, -4)}__s3`);
    await page.locator('#run-samples tr.current', { hasText: 'sample 3 (this run)' }).waitFor();
    await page.close();
  });
});
