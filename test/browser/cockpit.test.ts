// The cockpit in headless Chromium against local mode with the demo campaign (100 tasks, ~1,300 runs,
// loaded straight into the store) and the stand-in judge: every chart renders with labelled axes, filters
// change figures and URL, the calibration table leads to its runs, tables sort, the keyboard reaches
// everything with a visible focus ring, narrow windows do not scroll sideways, failures and empty results
// say so, a run pushed while the page is open appears without a reload, the detail panel shows the patch
// beside the original fix, and runner strings are never markup. Screenshots go to test-results/.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { buildCampaign, readSourceRuns, type DemoRun } from '../../infra/local/demo-campaign.ts';
import { DEMO_JUDGE_MODEL } from '../../infra/local/demo-judge.ts';
import { pushDelivery } from '../../shared/runner/push.ts';
import { runId } from '../../shared/schema/run.ts';
import { eventually, type TestLocalMode } from '../helpers/local-mode.ts';

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

const campaign = buildCampaign(readSourceRuns(), { tasks: 100, seed: 7, hosts: HOSTS });
/** Runs kept back from the initial load, to be pushed while the page is open. */
const live = campaign.runs
  .filter((r) => (r.delivery.patch as string) && !(r.delivery.row as { contamination: unknown[] }).contamination.length)
  .slice(0, 2);
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

let cockpit: JudgedCockpit;
let local: TestLocalMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const held = new Set(live.map((r) => r.id));
  cockpit = await startJudgedCockpit(
    config,
    keys,
    SPACE,
    campaign,
    campaign.runs.filter((r) => !held.has(r.id)),
  );
  ({ local, browser } = cockpit);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${local.url}/`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
}, 240_000);

afterAll(() => cockpit?.stop());

const harnessVersions = [
  ...new Set(campaign.runs.map((r) => (r.delivery.row as { harnessVersion: string }).harnessVersion)),
].sort();
const groups = new Set(
  campaign.runs.map(
    (r) =>
      `${(r.delivery.row as { model: string }).model}|${(r.delivery.row as { harnessVersion: string }).harnessVersion}`,
  ),
).size;
const statusText = () => page.locator('#live-status').innerText();
/** Charts below the fold are filled one frame after those in view. */
const settled = (p: Page = page) =>
  p.waitForFunction(() => (document.documentElement.dataset.pendingParts ?? '0') === '0');
const runsInView = async () => Number(/([\d,]+) of [\d,]+ runs/.exec(await statusText())![1]!.replace(/,/g, ''));

async function push(run: Pick<DemoRun, 'delivery' | 'host'>) {
  const answer = await pushDelivery(local.url, SPACE, run.delivery, local.keyOf(run.host));
  expect(answer.status).toBe(202);
}

describe('the dashboard with demo-sized data', () => {
  it('renders every chart, the per-model table, the matrix and the caveats', async () => {
    expect(await page.locator('.kpi').count()).toBe(groups);
    for (const id of [
      'chart-verdict-mix',
      'chart-resolve-rate',
      'chart-wall-time',
      'chart-tokens-per-minute',
      'chart-steps',
      'chart-original-fix',
    ]) {
      expect({ id, rows: await page.locator(`#${id} .bar-row`).count() }).toEqual({ id, rows: groups });
    }
    expect(await page.locator('#chart-verdict-mix .bar-seg').count()).toBeGreaterThan(groups * 3);
    expect(await page.locator('#table-models tbody tr').count()).toBe(groups);
    expect(await page.locator('#table-calibration table.calibration tbody tr').count()).toBe(7);
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
    expect(await page.locator('.caveats').textContent()).toMatch(
      /noisy[\s\S]*hidden tests are the objective check[\s\S]*calendar time, not effort/,
    );
    // Rates carry n; generated rows and mixed harness versions are said out loud.
    expect(await page.locator('.kpi').first().innerText()).toMatch(/n=\d+[\s\S]*outside n/);
    expect(await page.locator('#harness-warning').innerText()).toMatch(/4 harness versions in view/);
    expect(await page.locator('#generated-note').innerText()).toMatch(/generated figures/);
    await page.screenshot({ path: `${SHOTS}/cockpit-dashboard.png` });
    await page.locator('#chart-matrix').scrollIntoViewIfNeeded();
    // Cards off-screen skip layout (content-visibility): one painted frame after scrolling, they show.
    await page.evaluate(() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted))));
    await page.screenshot({ path: `${SHOTS}/cockpit-dashboard-matrix.png` });
    for (const id of [...BAR_CARDS, 'chart-scatter', 'table-models', 'table-calibration', 'chart-matrix'])
      await page.locator(`#${id}`).screenshot({ path: `${SHOTS}/card-${id}.png` });
  });

  it('offers the other configured cockpit in a switcher', async () => {
    expect(await page.locator('#cockpit-switcher option').allInnerTexts()).toEqual([
      'Demo (DemoSpace)',
      'Elsewhere (Other)',
    ]);
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
    expect(await other.locator('#table-models tbody').textContent()).toBe(
      await page.locator('#table-models tbody').textContent(),
    );
    await other.close();

    await page.locator('.filters .clear').click();
    await page.waitForURL((url) => !url.search.includes('tier='));
    expect(await runsInView()).toBe(before);
  });
});

/** A fresh page on `path`, ready and settled. */
async function openPage(path = '/', viewport = { width: 1280, height: 800 }): Promise<Page> {
  const p = await browser.newPage({ viewport });
  p.on('pageerror', (e) => console.error('page error:', e.message));
  await p.goto(`${local.url}${path}`);
  await p.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
  await settled(p);
  return p;
}

const BAR_CARDS = [
  'chart-verdict-mix',
  'chart-resolve-rate',
  'chart-wall-time',
  'chart-tokens-per-minute',
  'chart-steps',
  'chart-original-fix',
];

describe('charts an analyst can read', () => {
  it('label every axis with ticks and units, the log wall-time axis included', async () => {
    const units: Record<string, RegExp> = {
      'chart-verdict-mix': /^\d+%$/,
      'chart-resolve-rate': /^\d+%$/,
      'chart-wall-time': /^\d[\d.,]* (s|min|h|d)$/,
      'chart-tokens-per-minute': /^[\d.,]+K?$/,
      'chart-steps': /^[\d.,]+$/,
      'chart-original-fix': /^[\d.,]+ (s|min|h|d)$/,
    };
    for (const id of BAR_CARDS) {
      const ticks = await page.locator(`#${id} .bar-axis .bar-tick`).allTextContents();
      expect({ id, enough: ticks.length >= 3 }).toEqual({ id, enough: true });
      for (const t of ticks) expect({ id, tick: t, unit: units[id]!.test(t) }).toEqual({ id, tick: t, unit: true });
      expect((await page.locator(`#${id} .bar-axis-title`).textContent())!.length).toBeGreaterThan(4);
    }
    // Where the ticks are bare numbers, the axis title names the unit.
    for (const [id, unit] of [
      ['chart-tokens-per-minute', '(tokens/min)'],
      ['chart-steps', '(steps)'],
    ]) {
      expect(await page.locator(`#${id} .bar-axis-title`).textContent()).toContain(unit);
    }
    // The original-fix axis is a log axis of round durations: minutes and hours both appear.
    const original = await page.locator('#chart-original-fix .bar-tick').allTextContents();
    expect(original).toEqual(expect.arrayContaining(['1 min', '10 min', '1 h']));
    // The scatter's ticks are canvas text: its text alternative lists them as drawn.
    const scatter = (await page.locator('#scatter-plot-text').textContent())!;
    const [, x, y] = /ticks at (.+?)\. Vertical axis: .*ticks at (.+)\.$/.exec(scatter)!;
    expect(x!.split(', ').length).toBeGreaterThanOrEqual(3);
    expect(y!.split(', ')).toEqual(expect.arrayContaining(['1 min', '10 min', '1 h']));
    expect(await page.locator('#chart-scatter canvas[role="img"]').first().getAttribute('aria-describedby')).toBe(
      'scatter-plot-text',
    );
  });

  it('draw the model next to the original fix as dots on one axis, with the ratio as a number', async () => {
    const card = page.locator('#chart-original-fix');
    expect(await card.locator('.bar-seg').count()).toBe(0);
    expect(await card.locator('.bar-dot').count()).toBeGreaterThan(groups);
    expect(await card.locator('.bar-dot.diamond').count()).toBeGreaterThan(0);
    const values = await card.locator('.bar-value').allTextContents();
    expect(values.some((v) => /^(fix|model) [\d.,]+× longer$/.test(v))).toBe(true);
  });

  it('let each card order its rows by its own figure', async () => {
    const names = async (id: string) => page.locator(`#${id} .bar-label`).allTextContents();
    const byJudge = await names('chart-verdict-mix');
    await page.locator('#chart-verdict-mix select.card-sort').selectOption({ label: 'runs' });
    const runs = (await page.locator('#chart-verdict-mix .bar-value').allTextContents()).map((v) =>
      Number(v.replace(/[^\d]/g, '')),
    );
    expect(runs).toEqual([...runs].sort((a, b) => b - a));
    await page.locator('#chart-wall-time select.card-sort').selectOption({ label: 'name' });
    const sorted = await names('chart-wall-time');
    expect(sorted).toEqual([...sorted].sort((a, b) => a.localeCompare(b)));
    // Only that card changed order.
    expect(await names('chart-resolve-rate')).toEqual(byJudge);
    await page.locator('#chart-verdict-mix select.card-sort').selectOption({ index: 0 });
    await page.locator('#chart-wall-time select.card-sort').selectOption({ index: 0 });
  });

  it('give canvases a name and a text alternative, and colour the matrix by hidden tests on request', async () => {
    const canvas = page.locator('#chart-matrix canvas');
    expect(await canvas.getAttribute('role')).toBe('img');
    // The campaign has hidden tests, so the matrix is coloured as the outcome in view counts: by them.
    expect(await canvas.getAttribute('aria-label')).toMatch(/hidden-test result: \d+ rows .* by \d+ tasks/);
    expect(await page.locator('#chart-matrix .legend').innerText()).toMatch(/tests pass[\s\S]*tests fail/);
    expect(await page.locator('#chart-matrix-text').textContent()).toMatch(/per-model table/);
    await page.locator('[data-colour="verdict"]').click();
    await page.waitForURL(/matrix=verdict/);
    expect(await canvas.getAttribute('aria-label')).toMatch(/judge verdict/);
    // Back to the colouring that matches the outcome: the address no longer names one.
    await page.locator('[data-colour="tests"]').click();
    await page.waitForURL((u) => !u.search.includes('matrix='));
    expect(await canvas.getAttribute('aria-label')).toMatch(/hidden-test result/);
  });

  it('use verdict colours that stay apart under colour blindness, with gaps between matrix cells', async () => {
    const colours = await page
      .locator('#chart-verdict-mix .legend .swatch')
      .evaluateAll((nodes) => nodes.map((n) => getComputedStyle(n).backgroundColor));
    expect(colours.length).toBe(7);
    const rgb = colours.map((c) => c.match(/\d+/g)!.slice(0, 3).map(Number) as [number, number, number]);
    for (const vision of Object.keys(COLOUR_VISION) as (keyof typeof COLOUR_VISION)[]) {
      for (let a = 0; a < rgb.length; a++) {
        for (let b = a + 1; b < rgb.length; b++) {
          const distance = deltaE(seenAs(rgb[a]!, vision), seenAs(rgb[b]!, vision));
          expect({ vision, pair: [colours[a], colours[b]], apart: distance >= 15 }).toEqual({
            vision,
            pair: [colours[a], colours[b]],
            apart: true,
          });
        }
      }
    }
    // Along the first matrix row, every run's cell is its own block of colour: no two merge.
    const blocks = await page.locator('#chart-matrix canvas').evaluate((canvas: HTMLCanvasElement) => {
      const ratio = canvas.width / canvas.clientWidth;
      const y = Math.round((18 + 7) * ratio);
      const row = canvas
        .getContext('2d')!
        .getImageData(Math.round(212 * ratio), y, canvas.width - Math.round(212 * ratio), 1).data;
      const widths: number[] = [];
      let run = 0;
      for (let i = 0; i < row.length; i += 4) {
        const filled = row[i + 3]! > 0 && !(row[i] === 0xf1 && row[i + 1] === 0xf1 && row[i + 2] === 0xf1);
        if (filled) run++;
        else if (run) {
          widths.push(run);
          run = 0;
        }
      }
      return { widths, ratio };
    });
    expect(blocks.widths.length).toBeGreaterThan(20);
    expect(Math.max(...blocks.widths)).toBeLessThanOrEqual(14 * blocks.ratio);
  });
});

describe('the per-model table', () => {
  it('sorts by any column with aria-sort, keeps the model pinned, fits its card and totals per harness version', async () => {
    const card = page.locator('#table-models');
    const header = (title: string) =>
      card.locator('thead th', { has: page.locator('button', { hasText: new RegExp(`^${title}$`) }) });
    expect(await header('Resolve rate · hidden tests').getAttribute('aria-sort')).toBe('descending');
    await header('Runs').locator('button').click();
    expect(await header('Runs').getAttribute('aria-sort')).toBe('descending');
    expect(await header('Resolve rate · hidden tests').getAttribute('aria-sort')).toBe('none');
    const runs = async () =>
      (await card.locator('tbody tr td:nth-child(4)').allTextContents()).map((v) => Number(v.replace(/,/g, '')));
    const descending = await runs();
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    await header('Runs').locator('button').click();
    expect(await header('Runs').getAttribute('aria-sort')).toBe('ascending');
    const ascending = await runs();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    await header('Model').locator('button').click();
    const models = await card.locator('tbody th').allTextContents();
    expect(models).toEqual([...models].sort((a, b) => a.localeCompare(b)));

    expect(
      await card
        .locator('tbody th')
        .first()
        .evaluate((n) => getComputedStyle(n).position),
    ).toBe('sticky');
    const fits = await card.evaluate(
      (c) =>
        c.scrollWidth <= c.clientWidth + 1 && c.getBoundingClientRect().right <= document.documentElement.clientWidth,
    );
    expect(fits).toBe(true);
    expect(await card.locator('tfoot th').allTextContents()).toEqual(harnessVersions.map((h) => `All models · ${h}`));
  });
});

describe('judge against hidden tests', () => {
  it('opens the Runs view filtered to exactly the runs of a cell, with the filters in the URL and the filter bar', async () => {
    const p = await openPage();
    const link = p.locator('#table-calibration a.cal-link[data-verdict="wrong"][data-tests="pass"]');
    const expected = Number((await link.textContent())!.replace(/,/g, ''));
    expect(expected).toBeGreaterThan(0);
    await link.click();
    await p.waitForURL(/view=runs/);
    const url = new URL(p.url());
    expect(url.searchParams.getAll('verdict')).toEqual(['wrong']);
    expect(url.searchParams.getAll('tests')).toEqual(['pass']);
    expect(await p.locator('.runs-count').innerText()).toMatch(new RegExp(`^${expected.toLocaleString('en-US')} of`));
    const verdicts = await p.locator('.grid-row:not([hidden]) .grid-cell.verdict').allInnerTexts();
    expect(new Set(verdicts)).toEqual(new Set(['wrong']));
    const tests = await p.locator('.grid-row:not([hidden]) [role="gridcell"]:nth-child(10)').allInnerTexts();
    expect(new Set(tests)).toEqual(new Set(['pass']));
    expect(await p.locator('[data-filter="verdict"] summary').innerText()).toMatch(/Verdict: wrong/);
    expect(await p.locator('[data-filter="tests"] summary').innerText()).toMatch(/Tests: tests pass/);
    // The same view from the filter bar alone: add "fail" to the hidden-test filter.
    await p.locator('[data-filter="tests"] summary').click();
    await p.locator('[data-filter="tests"] input[value="fail"]').check();
    await p.waitForURL(/tests=fail/);
    expect(Number((await p.locator('.runs-count').innerText()).split(' ')[0]!.replace(/,/g, ''))).toBeGreaterThan(
      expected,
    );
    await p.close();
  });

  it('search matches the hidden-test status', async () => {
    const p = await openPage('/?view=runs');
    await p.locator('.search').fill('tests fail');
    await p.waitForURL(/q=tests/);
    const tests = await p.locator('.grid-row:not([hidden]) [role="gridcell"]:nth-child(10)').allInnerTexts();
    expect(tests.length).toBeGreaterThan(0);
    expect(new Set(tests)).toEqual(new Set(['fail']));
    await p.close();
  });
});

describe('keyboard and screen readers', () => {
  it('reach every control with Tab behind a visible focus ring, the matrix cells included', async () => {
    const p = await openPage();
    await p.locator('body').click({ position: { x: 1, y: 1 } });
    const seen: { what: string; ring: boolean }[] = [];
    let onMatrix = false;
    for (let k = 0; k < 400 && !onMatrix; k++) {
      await p.keyboard.press('Tab');
      const focus = await p.evaluate(() => {
        const e = document.activeElement as HTMLElement;
        const style = getComputedStyle(e);
        const ring =
          (style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== 'none';
        return {
          what: `${e.tagName.toLowerCase()}.${e.className}`,
          ring,
          matrix: e.classList.contains('matrix-cursor'),
        };
      });
      seen.push(focus);
      onMatrix = focus.matrix;
    }
    expect(onMatrix).toBe(true);
    expect(seen.filter((s) => !s.ring)).toEqual([]);
    const kinds = new Set(seen.map((s) => s.what.split('.')[0]));
    for (const kind of ['button', 'summary', 'select', 'a']) expect(kinds.has(kind)).toBe(true);

    const cursor = p.locator('.matrix-cursor');
    const first = await cursor.getAttribute('aria-label');
    await p.keyboard.press('ArrowRight');
    await p.keyboard.press('ArrowDown');
    const moved = await cursor.getAttribute('aria-label');
    expect(moved).not.toBe(first);
    expect(moved).toMatch(/row 2 of \d+, task 2 of \d+/);
    if (!(await cursor.getAttribute('data-run'))) await p.keyboard.press('ArrowRight');
    await p.keyboard.press('Enter');
    await p.waitForURL(/run=/);
    await p.locator('#run-detail h2').waitFor();
    await p.close();
  });

  it('give the tabs their roles and move between them with the arrow keys', async () => {
    const p = await openPage();
    const selected = p.locator('[role="tab"][aria-selected="true"]');
    expect(await selected.getAttribute('aria-controls')).toBe('dashboard-area');
    expect(await p.locator('[role="tab"][tabindex="0"]').count()).toBe(1);
    await selected.focus();
    await p.keyboard.press('ArrowRight');
    await p.waitForURL(/view=compare/);
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('tab-compare');
    await p.keyboard.press('ArrowRight');
    await p.waitForURL(/view=runs/);
    expect(await p.evaluate(() => document.activeElement?.id)).toBe('tab-runs');
    expect(await p.locator('#runs-area').getAttribute('role')).toBe('tabpanel');
    await p.keyboard.press('End');
    await p.waitForURL(/view=hosts/);
    await p.keyboard.press('ArrowRight');
    await p.waitForURL((u) => !u.search.includes('view='));
    await p.close();
  });

  it('walk runs with the arrow keys without adding a history entry per run', async () => {
    const p = await openPage('/?view=runs');
    // The grid is reached by Tab from the toolbar (search box, then the three export links) and shows that it has the focus.
    await p.locator('.search').focus();
    for (const next of ['export-csv', 'export-json', 'export-parquet']) {
      await p.keyboard.press('Tab');
      expect(await p.evaluate(() => document.activeElement?.id)).toBe(next);
    }
    await p.keyboard.press('Tab');
    const grid = await p.evaluate(() => {
      const e = document.activeElement as HTMLElement;
      return {
        grid: e.classList.contains('grid-scroll'),
        outline: `${getComputedStyle(e).outlineStyle} ${getComputedStyle(e).outlineWidth}`,
      };
    });
    expect(grid).toEqual({ grid: true, outline: 'solid 2px' });
    await p.locator('.grid-row').first().click();
    await p.waitForURL(/run=/);
    const before = await p.evaluate(() => history.length);
    const ids = new Set<string>();
    for (let k = 0; k < 4; k++) {
      const at = new URL(p.url()).searchParams.get('run')!;
      ids.add(at);
      await p.locator('.grid-scroll').press('ArrowDown');
      await p.waitForURL((u) => u.searchParams.get('run') !== at);
    }
    expect(ids.size).toBe(4);
    expect(await p.evaluate(() => history.length)).toBe(before);
    await p.close();
  });
});

describe('narrow windows', () => {
  it('never scroll the page sideways at 800 px, stack the cards and open a run over the grid', async () => {
    const p = await openPage('/', { width: 800, height: 900 });
    const sideways = () =>
      p.evaluate(
        () =>
          document.documentElement.scrollWidth > document.documentElement.clientWidth ||
          document.body.scrollWidth > document.body.clientWidth,
      );
    expect(await sideways()).toBe(false);
    const lefts = await p
      .locator('#dashboard-area .card')
      .evaluateAll((cards) => new Set(cards.map((c) => Math.round(c.getBoundingClientRect().left))).size);
    expect(lefts).toBe(1);
    await p.screenshot({ path: `${SHOTS}/cockpit-narrow.png` });
    await p.locator('[data-area="runs"]').click();
    await p.locator('.grid-row').first().click();
    await p.locator('#run-detail .diff-pair').waitFor();
    expect(await p.locator('.detail-host').evaluate((d) => getComputedStyle(d).position)).toBe('absolute');
    expect(await sideways()).toBe(false);
    await p.screenshot({ path: `${SHOTS}/cockpit-narrow-run.png` });
    await p.locator('[data-area="hosts"]').click();
    expect(await sideways()).toBe(false);
    await p.close();
  });
});

describe('states', () => {
  it('say what failed, in the server’s sentence, and retry', async () => {
    const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await p.route('**/api/spaces/*/columns', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: 'unavailable',
          message: 'The run snapshot is being rebuilt; try again in a minute.',
        }),
      }),
    );
    await p.goto(`${local.url}/`);
    await p.waitForFunction(() => document.documentElement.dataset.ready === 'error');
    expect(await p.locator('#fatal-message').innerText()).toBe(
      'Loading /api/spaces/DemoSpace/columns failed (HTTP 503): The run snapshot is being rebuilt; try again in a minute.',
    );
    await p.screenshot({ path: `${SHOTS}/cockpit-error.png` });
    await p.unroute('**/api/spaces/*/columns');
    await p.locator('.fatal .retry').click();
    await p.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    expect(await p.locator('.kpi').count()).toBe(groups);
    await p.close();
  });

  it('show one clear message when no run matches, in the dashboard and in the runs', async () => {
    const p = await openPage('/?model=no-such-model');
    await p.locator('#dashboard-empty').waitFor();
    expect(await p.locator('#dashboard-empty').innerText()).toMatch(
      /No run of the [\d,]+ in this space matches the filters/,
    );
    expect(await p.locator('.cards').isHidden()).toBe(true);
    expect(await p.locator('.kpis').isHidden()).toBe(true);
    await p.locator('[data-area="runs"]').click();
    expect(await p.locator('#runs-empty').innerText()).toMatch(/No run matches the filters and the search/);
    expect(await p.locator('.grid-scroll').isHidden()).toBe(true);
    await p.locator('#runs-empty button').click();
    await p.waitForURL((u) => !u.search.includes('model='));
    expect(await p.locator('.grid-row').count()).toBeGreaterThan(0);
    await p.close();
  });
});

/** Machado, Oliveira & Fernandes (2009) simulation matrices at full severity, in linear RGB. */
const COLOUR_VISION = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
  typical: [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ],
};

/** The colour as CIELAB after the simulation. */
function seenAs(rgb: [number, number, number], vision: keyof typeof COLOUR_VISION): [number, number, number] {
  const linear = rgb.map((c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
  const [r, g, b] = COLOUR_VISION[vision].map((row) =>
    Math.min(1, Math.max(0, row[0]! * linear[0]! + row[1]! * linear[1]! + row[2]! * linear[2]!)),
  );
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((0.4124 * r! + 0.3576 * g! + 0.1805 * b!) / 0.95047);
  const y = f(0.2126 * r! + 0.7152 * g! + 0.0722 * b!);
  const z = f((0.0193 * r! + 0.1192 * g! + 0.9505 * b!) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}

const deltaE = (a: number[], b: number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

describe('live updates', () => {
  it('show a run pushed while the page is open, without a reload and without losing the scroll position', async () => {
    await page.locator('[data-area="runs"]').click();
    await page.waitForURL(/view=runs/);
    await page.evaluate(() => Object.assign(window, { __samePage: true }));
    const grid = page.locator('.grid-scroll');
    // Settled once the grid has handled the scroll event (its own listener runs before this one).
    await grid.evaluate(
      (g) =>
        new Promise<void>((resolve) => {
          g.addEventListener('scroll', () => resolve(), { once: true });
          g.scrollTop = 2600;
        }),
    );
    const total = await runsInView();
    const [run] = live;
    await push(run!);
    await eventually(async () => (await runsInView()) === total + 1, 20_000, 250);
    expect(await grid.evaluate((g) => g.scrollTop)).toBe(2600);
    expect(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage)).toBe(true);
    // The run just pushed is the newest in view: it landed seconds ago.
    expect(await statusText()).toMatch(/^● newest run landed \d+ s ago · \d\d:\d\d UTC · /);

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
    await detail.locator('.patch-files .d2h-ins', { hasText: `demo run token: ${run!.token}` }).waitFor();
    expect(await detail.locator('.patch-files .d2h-del').count()).toBeGreaterThan(0);
    expect(await detail.locator('.patch-files .d2h-info').count()).toBeGreaterThan(0);
    expect(await detail.locator('pre.summary').innerText()).toMatch(/Generated summary/);
    await detail.locator('.reason', { hasText: 'demo-oracle' }).waitFor({ timeout: 30_000 });
    await detail
      .locator('.tests-box strong', { hasText: run!.resolved ? 'pass' : 'fail' })
      .waitFor({ timeout: 30_000 });
    const row = run!.delivery.row as { model: string; harnessVersion: string; taskId: string };
    const issue = campaign.issues.find((i) => (i as { taskId: string }).taskId === row.taskId) as {
      repo: string;
      issueNumber: number;
      fixPrNumber: number;
    };
    expect(await detail.locator('h2').innerText()).toBe(
      `${row.model} · ${issue.repo}#${issue.issueNumber} · ${row.harnessVersion}`,
    );
    expect(await detail.locator('h2').getAttribute('title')).toContain(row.taskId);
    // Figures carry their units; demo issue numbers are generated, so they are named but not linked.
    const fields = await detail.locator('table.fields').innerText();
    expect(fields).toMatch(/Metrics source\s+generated/);
    expect(fields).toMatch(/Completion tokens\s+[\d,]+ tokens/);
    expect(fields).toMatch(/Wall seconds\s+[\d.]+ (s|min|h)/);
    expect(await detail.locator('.run-links').innerText()).toMatch(
      new RegExp(`issue #${issue.issueNumber} · fix PR #${issue.fixPrNumber} \\(generated`),
    );
    expect(await detail.locator('.run-links a').count()).toBe(0);
    // The files the candidate changed with their counts, and beside it the original fix once the judge fetched it.
    const files = await detail.locator('.diffs table.files tbody tr').first().innerText();
    expect(files).toMatch(/\+\d+ −\d+/);
    await detail
      .locator('#reference-side .patch-files', { hasText: 'DEMO_REFERENCE_FIX.md' })
      .waitFor({ timeout: 30_000 });
    expect(await detail.locator('.diffs table.files').innerText()).toMatch(
      /DEMO_REFERENCE_FIX\.md\s+fix only\s+—\s+\+1 −1/,
    );
    expect(await detail.locator('#reference-side').innerText()).not.toMatch(/problem statement|Demo task/);
    const [candidateBox, referenceBox] = [
      await detail.locator('#candidate-side').boundingBox(),
      await detail.locator('#reference-side').boundingBox(),
    ];
    expect(referenceBox!.x).toBeGreaterThan(candidateBox!.x + candidateBox!.width - 1);
    await page.screenshot({ path: `${SHOTS}/cockpit-run-detail.png` });
    // Scrolled so the section's heading shows under the panel's sticky title.
    await page.evaluate(() => {
      const panel = document.getElementById('run-detail')!;
      const diffs = panel.querySelector('.diffs')!;
      panel.scrollTop += diffs.getBoundingClientRect().top - panel.getBoundingClientRect().top - 56;
    });
    await page.screenshot({ path: `${SHOTS}/cockpit-run-detail-beside.png` });
    // A run of a task whose fix the judge never fetched says so, in the server's sentence.
    const other = campaign.runs.find(
      (r) => (r.delivery.row as { taskId: string }).taskId !== row.taskId && !live.includes(r),
    )!;
    const p = await openPage(`/?view=runs&run=${encodeURIComponent(other.id)}`);
    await p.locator('#reference-side', { hasText: 'The judge has not fetched the original fix of task' }).waitFor();
    expect(await p.locator('#run-detail h2').getAttribute('title')).toContain(other.id);
    await p.close();
  });
});

describe('untrusted strings', () => {
  it('are shown as text in the grid, the tiles and the detail panel, never as markup', async () => {
    await push({ delivery: hostile, host: HOSTS[0]! });
    await page.locator('.search').fill('xss-task');
    const row = page.locator('.grid-row', { hasText: '<img src=x' });
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    await page.locator('#run-detail .patch', { hasText: '<script>window.__xss=2</script>' }).waitFor();
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
    // Run filters and run banners do not apply to hosts.
    expect(await page.locator('#filter-host').isHidden()).toBe(true);
    expect(await page.locator('#banners').isHidden()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/cockpit-hosts.png` });
  });
});
