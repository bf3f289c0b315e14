// The cockpit in headless Chromium against local mode with the demo campaign (100 tasks, ~1,300 runs,
// loaded straight into the store) and the stand-in judge: every chart renders, filters change figures and
// URL, a run pushed while the page is open appears without a reload, the detail panel shows the patch, and
// runner strings are never markup. Screenshots go to test-results/.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { judged, landedRow, loadIssues, loadRows, storedIssue, type JudgeAnswerFields } from '../../bench/direct-load.ts';
import { buildCampaign, oracleAnswer, readSourceRuns, startDemoJudge, DEMO_JUDGE_MODEL, type DemoJudge, type DemoRun } from '../../infra/local/demo-campaign.ts';
import { pushDelivery } from '../../shared/client/push.ts';
import { runId } from '../../shared/schema/run.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { launchChromium } from './helpers/chromium.ts';

const SPACE = 'DemoSpace';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const config = {
  defaultJudgeModel: DEMO_JUDGE_MODEL,
  spaces: {
    [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 100_000 } },
    Other: { senders: ['other-host'] },
  },
  cockpits: { Demo: { space: SPACE }, Elsewhere: { space: 'Other' } },
};
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2', 'other-host': 'key-3' };
const SHOTS = 'test-results';

const campaign = buildCampaign(readSourceRuns(), { tasks: 100, seed: 7, hosts: HOSTS });
/** Runs kept back from the initial load, to be pushed while the page is open. */
const live = campaign.runs.filter((r) => (r.delivery.patch as string) && !(r.delivery.row as { contamination: unknown[] }).contamination.length).slice(0, 2);
const hostile = {
  kind: 'run',
  host: HOSTS[0],
  row: {
    model: '<img src=x onerror="window.__xss=1">',
    taskId: 'xss-task',
    harnessVersion: 'paper',
    host: HOSTS[0],
    startedAt: '2025-10-20T10:00:00Z',
    finishedAt: '2025-10-20T10:05:00Z',
    outcome: 'finished',
    metricsSource: 'generated',
  },
  patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-<b>old</b>\n+<script>window.__xss=2</script>\n',
  summary: '<img src=y onerror="window.__xss=3"> **markdown** stays text',
};
Object.assign(hostile, { id: runId(hostile.row) });

let local: TestLocalMode;
let judge: DemoJudge;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  judge = await startDemoJudge(campaign);
  local = await startTestLocalMode(config, keys, { sweepIntervalSeconds: 2, env: judge.env });
  const now = new Date().toISOString();
  const held = new Set(live.map((r) => r.id));
  const store = local.adapters.table;
  await loadIssues(store, campaign.issues.map((i) => storedIssue(SPACE, i, now)));
  await loadRows(
    store,
    campaign.runs.filter((r) => !held.has(r.id)).map((r) => judged(landedRow(SPACE, r.delivery, now, r.hiddenTest), oracleAnswer(r) as unknown as JudgeAnswerFields, DEMO_JUDGE_MODEL, now)),
  );
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${local.url}/`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await local?.stop();
  await judge?.stop();
});

const groups = new Set(campaign.runs.map((r) => `${(r.delivery.row as { model: string }).model}|${(r.delivery.row as { harnessVersion: string }).harnessVersion}`)).size;
const statusText = () => page.locator('#live-status').innerText();
/** Charts below the fold are filled one frame after those in view. */
const settled = (p: Page = page) => p.waitForFunction(() => document.documentElement.dataset.pendingParts === '0');
const runsInView = async () => Number(/([\d,]+) of [\d,]+ runs/.exec(await statusText())![1]!.replace(/,/g, ''));

async function push(run: Pick<DemoRun, 'delivery' | 'host'>) {
  const answer = await pushDelivery(local.url, SPACE, run.delivery, local.keyOf(run.host));
  expect(answer.status).toBe(202);
}

describe('the dashboard with demo-sized data', () => {
  it('renders every chart, the per-model table, the matrix and the caveats', async () => {
    expect(await page.locator('.kpi').count()).toBe(groups);
    for (const id of ['chart-verdict-mix', 'chart-resolve-rate', 'chart-wall-time', 'chart-tokens-per-minute', 'chart-steps', 'chart-original-fix']) {
      expect({ id, rows: await page.locator(`#${id} .bar-row`).count() }).toEqual({ id, rows: groups });
    }
    expect(await page.locator('#chart-verdict-mix .bar-seg').count()).toBeGreaterThan(groups * 3);
    expect(await page.locator('#table-models tbody tr').count()).toBe(groups);
    expect(await page.locator('#table-calibration tbody tr').count()).toBe(7);
    // The canvases hold drawn pixels, not just an empty element.
    const inked = (selector: string) =>
      page.evaluate((s) => {
        const canvas = document.querySelector<HTMLCanvasElement>(s)!;
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      }, selector);
    expect(await inked('#chart-scatter canvas')).toBeGreaterThan(2000);
    expect(await inked('#chart-matrix canvas')).toBeGreaterThan(20_000);
    expect(await page.locator('#chart-scatter .card-foot').textContent()).toMatch(/runs plotted/);
    expect(await page.locator('.caveats').textContent()).toMatch(/noisy[\s\S]*hidden tests are the objective check[\s\S]*calendar time, not effort/);
    // Rates carry n; generated rows and mixed harness versions are said out loud.
    expect(await page.locator('.kpi').first().innerText()).toMatch(/n=\d+[\s\S]*outside n/);
    expect(await page.locator('#harness-warning').innerText()).toMatch(/4 harness versions in view/);
    expect(await page.locator('#generated-note').innerText()).toMatch(/generated figures/);
    await page.screenshot({ path: `${SHOTS}/cockpit-dashboard.png` });
    await page.locator('#chart-matrix').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/cockpit-dashboard-matrix.png` });
  });

  it('offers the other configured cockpit in a switcher', async () => {
    expect(await page.locator('#cockpit-switcher option').allInnerTexts()).toEqual(['Demo (DemoSpace)', 'Elsewhere (Other)']);
  });
});

describe('filters', () => {
  it('change the figures and the URL, and a linked URL restores them', async () => {
    const before = await runsInView();
    // Off-screen cards are not rendered text (content-visibility), so their textContent is compared.
    const tableBefore = await page.locator('#table-models tbody').textContent();
    await page.locator('[data-tier="easy"]').click();
    await page.waitForURL(/tier=easy/);
    await settled();
    const easy = await runsInView();
    expect(easy).toBeGreaterThan(0);
    expect(easy).toBeLessThan(before);
    expect(await page.locator('#table-models tbody').textContent()).not.toBe(tableBefore);

    await page.locator('[data-filter="harness"] summary').click();
    await page.locator('[data-filter="harness"] input[value="paper"]').check();
    await page.waitForURL(/harness=paper/);
    await settled();
    expect(await page.locator('#harness-warning').count()).toBe(0);
    expect(await runsInView()).toBeLessThan(easy);
    await page.screenshot({ path: `${SHOTS}/cockpit-filtered.png` });

    const linked = page.url();
    const other = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await other.goto(linked);
    await other.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await settled(other);
    expect(await other.locator('[data-tier="easy"]').getAttribute('aria-pressed')).toBe('true');
    expect(await other.locator('#table-models tbody').textContent()).toBe(await page.locator('#table-models tbody').textContent());
    await other.close();

    await page.locator('.filters .clear').click();
    await page.waitForURL((url) => !url.search.includes('tier='));
    expect(await runsInView()).toBe(before);
  });
});

describe('live updates', () => {
  it('show a run pushed while the page is open, without a reload and without losing the scroll position', async () => {
    await page.locator('[data-area="runs"]').click();
    await page.waitForURL(/view=runs/);
    await page.evaluate(() => Object.assign(window, { __samePage: true }));
    const grid = page.locator('.grid-scroll');
    await grid.evaluate((g) => (g.scrollTop = 2600));
    await page.waitForTimeout(100);
    const total = await runsInView();
    const [run] = live;
    await push(run!);
    await eventually(async () => (await runsInView()) === total + 1, 20_000, 250);
    expect(await grid.evaluate((g) => g.scrollTop)).toBe(2600);
    expect(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage)).toBe(true);
    expect(await statusText()).toMatch(/updated \d+ s ago/);

    await page.locator('.search').fill((run!.delivery.row as { taskId: string }).taskId);
    await page.locator(`.grid-row[data-id="${run!.id}"]`).waitFor();
    // Judged by demo-oracle within seconds; the grid follows without a reload.
    await page.locator(`.grid-row[data-id="${run!.id}"] .verdict:not(.v-unjudged)`).waitFor({ timeout: 30_000 });
  });
});

describe('the detail panel', () => {
  it('shows the row, the highlighted patch, the summary, the verdict reasons and the hidden-test result', async () => {
    const [run] = live;
    await push({ delivery: run!.hiddenTest, host: run!.host });
    await page.locator(`.grid-row[data-id="${run!.id}"]`).click();
    await page.waitForURL(/run=/);
    const detail = page.locator('#run-detail');
    await detail.locator('pre.diff .d-add', { hasText: `demo run token: ${run!.token}` }).waitFor();
    expect(await detail.locator('pre.diff .d-del').count()).toBeGreaterThan(0);
    expect(await detail.locator('pre.diff .d-hunk').count()).toBeGreaterThan(0);
    expect(await detail.locator('pre.summary').innerText()).toMatch(/Generated summary/);
    await detail.locator('.reason', { hasText: 'demo-oracle' }).waitFor({ timeout: 30_000 });
    await detail.locator('.tests-box strong', { hasText: run!.resolved ? 'pass' : 'fail' }).waitFor({ timeout: 30_000 });
    expect(await detail.locator('table.fields').innerText()).toMatch(/metricsSource\s+generated/);
    await page.screenshot({ path: `${SHOTS}/cockpit-run-detail.png` });
    // The arrow keys walk through the grid, the panel following.
    await page.locator('.grid-scroll').press('ArrowDown');
    await page.waitForURL((u) => u.searchParams.get('run') !== run!.id);
    await detail.locator('h2', { hasText: new URL(page.url()).searchParams.get('run')! }).waitFor();
  });
});

describe('untrusted strings', () => {
  it('are shown as text in the grid, the tiles and the detail panel, never as markup', async () => {
    await push({ delivery: hostile, host: HOSTS[0]! });
    await page.locator('.search').fill('xss-task');
    const row = page.locator('.grid-row', { hasText: '<img src=x' });
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    await page.locator('#run-detail pre.diff', { hasText: '<script>window.__xss=2</script>' }).waitFor();
    await page.locator('#run-detail pre.summary', { hasText: '<img src=y' }).waitFor();
    await page.locator('[data-area="dashboard"]').click();
    await page.locator('.kpi', { hasText: '<img src=x' }).waitFor();
    await settled();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('#areas script').count()).toBe(0);
  });
});

describe('the hosts area', () => {
  it('lists the senders with hardware, pairing and last delivery', async () => {
    await page.locator('[data-area="hosts"]').click();
    const table = page.locator('.hosts-table');
    await table.waitFor();
    const text = await table.innerText();
    for (const host of HOSTS) expect(text).toContain(host);
    expect(text).toMatch(/paired/);
    await page.screenshot({ path: `${SHOTS}/cockpit-hosts.png` });
  });
});
