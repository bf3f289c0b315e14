// The cockpit's dashboard in headless Chromium against local mode with the demo campaign (100 tasks, ~1,300 runs,
// loaded straight into the store; helpers/demo-cockpit.ts) and the stand-in judge: every chart renders with
// labelled axes and colours that stay apart under colour blindness, filters change figures and URL, tables
// sort, the calibration table leads to its runs, search finds the hidden-test result and a switcher offers the
// other cockpit. Screenshots go to test-results/.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { settled } from './helpers/analysis-page.ts';
import { campaign, demoCockpit, groups } from './helpers/demo-cockpit.ts';
import { SHOTS } from './helpers/judged-campaign.ts';

const { world, openPage, runsInView } = demoCockpit();
/** The page opened on the dashboard, shared by the tests in order. */
let page: Page;
let browser: Browser;
beforeAll(() => {
  ({ page } = world);
  ({ browser } = world.cockpit);
});

const harnessVersions = [
  ...new Set(campaign.runs.map((r) => (r.delivery.row as { harnessVersion: string }).harnessVersion)),
].sort();

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
    expect(await page.locator('#table-calibration table.calibration tbody tr').count()).toBe(8);
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
    await settled(page);
    const easy = await runsInView();
    expect(easy).toBeGreaterThan(0);
    expect(easy).toBeLessThan(before);
    expect(await page.locator('#table-models tbody').textContent()).not.toBe(tableBefore);

    await page.locator('[data-filter="harness"] summary').click();
    await page.locator('[data-filter="harness"] input[value="paper"]').check();
    await page.waitForURL(/harness=paper/);
    await settled(page);
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

const BAR_CARDS = [
  'chart-verdict-mix',
  'chart-resolve-rate',
  'chart-wall-time',
  'chart-tokens-per-minute',
  'chart-steps',
  'chart-original-fix',
];

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
    expect(colours.length).toBe(8);
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
    const tests = await p.locator('.grid-row:not([hidden]) [data-column="hiddenTest"]').allInnerTexts();
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
    const tests = await p.locator('.grid-row:not([hidden]) [data-column="hiddenTest"]').allInnerTexts();
    expect(tests.length).toBeGreaterThan(0);
    expect(new Set(tests)).toEqual(new Set(['fail']));
    await p.close();
  });
});
