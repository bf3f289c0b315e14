// The whole default demo (480 real runs of four agents on 120 SWE-bench Lite tasks) in headless Chromium at a
// laptop's 800 and 1024 px and a desktop's 1440 px (issue 41, items 7 to 9): the run detail is opaque and covers
// the grid it opens over, the header's parts never overlap, and no figure table crushes a name into a column
// narrower than 8 characters or breaks it anywhere but at a word, '-', '_' or '/'. And the reader gets around:
// jump links to every card, a repository filter and a per-repository breakdown counted here from the demo's
// files, and a task view with every configuration's result on one task.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { settled } from './helpers/analysis-page.ts';
import { DEMO_JUDGE_MODEL } from '#demo/judge.ts';
import { DEMO_JUDGE_PRICE, DEMO_RUNNER_PRICES } from '#demo/prices.ts';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign, LITE_CAMPAIGN } from '#demo/lite-campaign.ts';
import { pushDelivery } from '#runner/push.ts';

const SPACE = 'SweBenchLiteDemo';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2' };
// The demo's own configuration: one cockpit named after its space, declaring its task population, with the demo's
// prices.
const config = {
  defaultJudgeModel: DEMO_JUDGE_MODEL,
  spaces: { [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 100_000 } } },
  cockpits: { [SPACE]: { space: SPACE, campaign: LITE_CAMPAIGN } },
  prices: { ...DEMO_RUNNER_PRICES, [DEMO_JUDGE_MODEL]: DEMO_JUDGE_PRICE },
};
const campaign = buildLiteCampaign(readDemoData(), { seed: 7, hosts: HOSTS });
const HEIGHTS: Record<number, number> = { 800: 700, 1024: 768, 1440: 900 };

let cockpit: JudgedCockpit;

/** A run with a candidate patch, so the detail shows its verdict and diffs over a full grid. */
const run = campaign.runs.find((r) => (r.delivery.patch as string).length > 200)!;

beforeAll(async () => {
  // Every run loaded judged but `run`, which is pushed: the stand-in judge fetches its task's merged fix, so
  // its detail shows the candidate beside the fix.
  cockpit = await startJudgedCockpit(
    config,
    keys,
    SPACE,
    campaign,
    campaign.runs.filter((r) => r !== run),
  );
  const key = keys[run.host as keyof typeof keys];
  expect((await pushDelivery(cockpit.local.url, SPACE, run.delivery, key)).status).toBe(202);
  expect((await pushDelivery(cockpit.local.url, SPACE, run.hiddenTest, key)).status).toBe(202);
}, 240_000);

afterAll(() => cockpit?.stop());

async function open(path: string, width: number): Promise<Page> {
  const page = await cockpit.browser.newPage({ viewport: { width, height: HEIGHTS[width]! } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${cockpit.local.url}${path}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
  await settled(page);
  return page;
}

describe('the run detail over the runs grid', () => {
  it.each([800, 1024, 1440])('is opaque and covers the grid where it lies at %i px', async (width) => {
    const page = await open(`/?view=runs&run=${encodeURIComponent(run.id)}`, width);
    await page.locator('#run-detail .reason', { hasText: 'demo-oracle' }).waitFor({ timeout: 60_000 });
    await page.locator('#run-detail #reference-side .patch-files').waitFor({ timeout: 30_000 });
    const seen = await page.evaluate(() => {
      const host = document.querySelector('.detail-host')!;
      const box = host.getBoundingClientRect();
      // Every point of the detail, sampled on a grid, belongs to the detail: no grid row shows through or lies above.
      const foreign: string[] = [];
      for (let x = box.left + 4; x < box.right - 4; x += (box.width - 8) / 7)
        for (let y = box.top + 4; y < Math.min(box.bottom, innerHeight) - 4; y += 40) {
          const hit = document.elementFromPoint(x, y);
          if (!hit || !host.contains(hit)) foreign.push(`${hit?.className ?? 'nothing'} at ${x | 0},${y | 0}`);
        }
      return {
        background: getComputedStyle(host).backgroundColor,
        gridRight: document.querySelector('.runs-main')!.getBoundingClientRect().right,
        detailLeft: box.left,
        foreign,
      };
    });
    expect(seen.background).toBe('rgb(255, 255, 255)');
    expect(seen.foreign).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/layout-run-detail-${width}.png` });
    await page.close();
    // Below 1,100 px the detail opens over the grid; above it the grid makes room beside it.
    if (width <= 1024) expect(seen.gridRight).toBeGreaterThan(seen.detailLeft);
    else expect(seen.gridRight).toBeLessThanOrEqual(seen.detailLeft);
  });
});

describe("the run detail's diffs", () => {
  it.each([1024, 1440])('keep each line number beside its line when the detail scrolls, at %i px', async (width) => {
    const page = await open(`/?view=runs&run=${encodeURIComponent(run.id)}`, width);
    await page
      .locator('#run-detail #reference-side .patch-files')
      .locator('.d2h-code-linenumber, .d2h-code-side-linenumber')
      .first()
      .waitFor({ timeout: 60_000 });
    const offsets = await page.evaluate(() => {
      const files = document.querySelector('#run-detail #reference-side .patch-files')!;
      let scroller: Element | null = files.parentElement;
      while (
        scroller &&
        !(scroller.scrollHeight > scroller.clientHeight && /auto|scroll/.test(getComputedStyle(scroller).overflowY))
      )
        scroller = scroller.parentElement;
      scroller!.scrollTop = scroller!.scrollHeight;
      // How far each line number of the diffs sits from the row it numbers, and how far the page itself scrolls.
      const off = [
        ...document.querySelectorAll('#run-detail .d2h-code-side-linenumber, #run-detail .d2h-code-linenumber'),
      ].map((cell) => Math.abs(cell.getBoundingClientRect().top - cell.closest('tr')!.getBoundingClientRect().top));
      return {
        worst: Math.max(...off),
        cells: off.length,
        pageOverflow: document.documentElement.scrollHeight - innerHeight,
      };
    });
    expect(offsets.cells).toBeGreaterThan(0);
    expect(offsets.worst).toBeLessThan(2);
    expect(offsets.pageOverflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/layout-run-detail-diffs-${width}.png` });
    await page.close();
  });
});

describe('the Runs grid', () => {
  // Free texts (names of models, harness versions, tasks and hosts) may be cut, their whole text in the cell's
  // tooltip; every other column holds a value of a known form, which must show whole, "unknown" too.
  const FREE_TEXT = ['Model', 'Harness', 'Task', 'Host'];

  it.each([800, 1440])('shows every value of a known form whole, at %i px', async (width) => {
    const page = await open('/?view=runs', width);
    await page.locator('.grid-row').first().waitFor();
    const cut = await page.evaluate((free) => {
      const titles = [...document.querySelectorAll('.grid-header .grid-cell')].map((c) => c.textContent!.trim());
      const found = new Set<string>();
      for (const row of document.querySelectorAll('.grid-row'))
        row.querySelectorAll('.grid-cell').forEach((cell, k) => {
          if (!free.includes(titles[k]!) && cell.scrollWidth > cell.clientWidth)
            found.add(`${titles[k]}: "${cell.textContent}"`);
        });
      return [...found];
    }, FREE_TEXT);
    expect(cut).toEqual([]);
    await page.close();
  });

  it.each([800, 1440])('cuts a model or harness name in its middle, its date suffix kept, at %i px', async (width) => {
    const page = await open('/?view=runs', width);
    await page.locator('.grid-row').first().waitFor();
    const names = await page.evaluate(() => {
      const titles = [...document.querySelectorAll('.grid-header .grid-cell')].map((c) => c.textContent!.trim());
      const found = new Map<string, { shown: string; overflows: boolean }>();
      for (const row of document.querySelectorAll('.grid-row:not([hidden])'))
        row.querySelectorAll('.grid-cell').forEach((cell, k) => {
          const c = cell as HTMLElement;
          if (['Model', 'Harness'].includes(titles[k]!))
            found.set(c.title, { shown: c.textContent!, overflows: c.scrollWidth > c.clientWidth });
        });
      return [...found];
    });
    // The Lite demo's names that do not fit: "swe-agent-20240402", "claude-3-5-sonnet-20240620", ….
    const cutNames = names.filter(([full, { shown }]) => shown !== full);
    expect(cutNames.length).toBeGreaterThan(0);
    for (const [full, { shown, overflows }] of names) {
      expect(overflows).toBe(false);
      if (shown === full) continue;
      const [start, end] = shown.split('…');
      expect(full.startsWith(start!) && full.endsWith(end!)).toBe(true);
      const suffix = /\d{8}$/.exec(full)?.[0];
      if (suffix) expect(end!.endsWith(suffix)).toBe(true);
    }
    await page.close();
  });
});

describe('the Reliability card of a campaign with one sample per task', () => {
  it('gives pass@1 and pass^1 the interval the resolve rate carries: one figure, one interval', async () => {
    const page = await open('/', 1440);
    await page.locator('#reliability-points tbody tr').first().waitFor();
    expect(await page.locator('#reliability-note').innerText()).toMatch(/only k = 1, .* with its Wilson interval/);
    const intervals = await page.evaluate(() => {
      const interval = (text: string) => /\(([^;)]*)/.exec(text)?.[1];
      return [...document.querySelectorAll<HTMLTableRowElement>('#reliability-table tbody tr')].map((row) => {
        const points = document.querySelector(`#reliability-points tr[data-label="${row.dataset.label}"]`)!;
        return {
          rate: interval(row.cells[3]!.textContent!),
          passAt: interval(points.querySelectorAll('td')[1]!.textContent!),
          passHat: interval(points.querySelectorAll('td')[2]!.textContent!),
        };
      });
    });
    expect(intervals.length).toBeGreaterThan(1);
    for (const { rate, passAt, passHat } of intervals) expect([passAt, passHat]).toEqual([rate, rate]);
    await page.close();
  });
});

describe('the filter menus', () => {
  it.each([800, 1024, 1440])('open inside the window at %i px', async (width) => {
    const page = await open('/?view=runs', width);
    const menus = await page.locator('details.menu').evaluateAll((all) => all.map((m) => m.dataset.filter!));
    expect(menus.length).toBeGreaterThanOrEqual(6);
    const inner = await page.evaluate(() => document.documentElement.clientWidth);
    const outside: string[] = [];
    for (const name of menus) {
      await page.locator(`details[data-filter="${name}"] summary`).click();
      const box = await page.locator(`details[data-filter="${name}"] .menu-pop`).boundingBox();
      if (!box || box.x < 0 || box.x + box.width > inner)
        outside.push(`${name}: ${box?.x} + ${box?.width} of ${inner}`);
      await page.locator(`details[data-filter="${name}"] summary`).click();
    }
    expect(outside).toEqual([]);
    await page.close();
  });
});

describe('the header', () => {
  it.each([800, 1024, 1440])('keeps the name, the tabs and the status line apart at %i px', async (width) => {
    const page = await open('/', width);
    // Where each part's text shows: its extent, cut where a box around it clips what overflows.
    const boxes = await page.evaluate(() =>
      ['.brand', '.tabs', '#live-status'].map((s) => {
        const part = document.querySelector(s)!;
        const range = document.createRange();
        range.selectNodeContents(part);
        let { left, right } = range.getBoundingClientRect();
        for (let a: Element | null = part; a && a !== document.body; a = a.parentElement)
          if (getComputedStyle(a).overflowX !== 'visible') {
            const clip = a.getBoundingClientRect();
            [left, right] = [Math.max(left, clip.left), Math.min(right, clip.right)];
          }
        return { s, left, right };
      }),
    );
    for (let k = 1; k < boxes.length; k++) expect(boxes[k]!.left).toBeGreaterThanOrEqual(boxes[k - 1]!.right);
    expect(boxes.at(-1)!.right).toBeLessThanOrEqual(width);
    // The tabs keep their words whole.
    const tabs = await page
      .locator('.tabs [role="tab"]')
      .evaluateAll((ts) => ts.map((t) => t.scrollWidth <= t.clientWidth));
    expect(tabs).toEqual(['Dashboard', 'Compare', 'Runs', 'Task', 'Hosts'].map(() => true));
    // The status line shows whole, its count of runs too (on two lines where the header is narrow).
    const status = await page.locator('#live-status').evaluate((s) => ({
      text: s.textContent!,
      whole: s.scrollWidth <= s.clientWidth && s.scrollHeight <= s.clientHeight,
      title: (s as HTMLElement).title,
    }));
    expect(status.text).toMatch(/ runs$/);
    expect(status).toMatchObject({ whole: true, title: status.text });
    // The cockpit's name shows whole: what is in view (the product's name gives way to it where narrow).
    const name = page.locator('#cockpit-name');
    expect(await name.textContent()).toBe(SPACE);
    expect(await name.evaluate((n) => n.scrollWidth <= n.clientWidth)).toBe(true);
    await page.screenshot({ path: `${SHOTS}/layout-dashboard-${width}.png` });
    await page.close();
  });
});

/**
 * Headings and name cells of the figure tables narrower than the first 8 characters of their own text, and name
 * cells whose lines break inside a word (not after a space, '-', '_' or '/'). Figures never wrap (white-space:
 * nowrap), so a figure cell cannot be crushed.
 */
const crushedCells = (page: Page) =>
  page.evaluate(() => {
    const narrow: string[] = [];
    const brokenInside: string[] = [];
    for (const cell of document.querySelectorAll<HTMLElement>('table.figures th, table.figures td.text')) {
      const text = cell.textContent!.replace(/\s+/g, ' ').trim();
      if (!cell.getClientRects().length) continue;
      if (text.length >= 8) {
        const probe = document.createElement('span');
        probe.textContent = text.slice(0, 8);
        probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
        cell.append(probe);
        const eight = probe.getBoundingClientRect().width;
        probe.remove();
        const style = getComputedStyle(cell);
        const content = cell.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        if (content + 0.5 < eight) narrow.push(`${text} (${content.toFixed(0)} px < ${eight.toFixed(0)} px)`);
      }
      if (!cell.classList.contains('text')) continue;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        let at = 0;
        for (const piece of node.data.split(/(?<=[-_/\s])/)) {
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, (at += piece.length));
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0.5).map((r) => Math.round(r.top)));
          if (lines.size > 1) brokenInside.push(`"${piece}" in "${text}"`);
        }
      }
    }
    return { narrow, brokenInside };
  });

describe('the tiles', () => {
  it.each([800, 1024, 1440])(
    'say in full how many of the population’s tasks each rate counts, at %i px',
    async (width) => {
      const page = await open('/', width);
      const lines = await page
        .locator('.kpi-tasks')
        .evaluateAll((ls) => ls.map((l) => ({ text: l.textContent, cut: l.scrollWidth > l.clientWidth })));
      expect(lines).toHaveLength(4);
      for (const line of lines) expect(line).toEqual({ text: '120 of 300 SWE-bench Lite tasks', cut: false });
      await page.close();
    },
  );
});

describe('the steps card', () => {
  it('says that no Lite run records whether its budget ran out, after what the median is counted on', async () => {
    const page = await open('/', 1440);
    const notes = await page.locator('#chart-steps .bar-note').allInnerTexts();
    expect(notes).toHaveLength(4);
    for (const note of notes)
      expect(note).toMatch(/^(all|\d+) of 120 runs known; whether its budget ran out is not recorded$/);
    await page.close();
  });
});

describe('the caveats', () => {
  it('say one run per model and task where every task has one sample', async () => {
    const page = await open('/', 1024);
    expect(await page.locator('.caveats').innerText()).toContain('One run per model and task is noisy');
    await page.close();
  });
});

describe('the cost table', () => {
  it.each([800, 1024, 1440])('has every column in view at %i px, its headings never crushed', async (width) => {
    const page = await open('/', width);
    const table = page.locator('#cost-table');
    await table.locator('tbody tr').first().waitFor();
    expect(
      await table.evaluate((t) => t.closest('.table-scroll')!.scrollWidth - t.closest('.table-scroll')!.clientWidth),
    ).toBeLessThanOrEqual(0);
    expect((await crushedCells(page)).narrow.filter((c) => /cost|priced|resolved|mean per/i.test(c))).toEqual([]);
    await page.close();
  });
});

describe('the Pareto chart', () => {
  it.each([1024, 1440])('names every configuration on the front beside its point at %i px', async (width) => {
    const page = await open('/', width);
    const chart = page.locator('#pareto');
    await chart.locator('.point.on-front').first().waitFor();
    const front = await chart
      .locator('.point.on-front')
      .evaluateAll((ps) => ps.map((p) => p.getAttribute('data-label')));
    const named = await chart.locator('.point-label').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-label')));
    expect(front.length).toBeGreaterThan(1);
    expect(named).toEqual(expect.arrayContaining(front));
    await page.close();
  });

  it.each([800, 1024, 1440])('draws no name across a point, a whisker or another name at %i px', async (width) => {
    const page = await open('/', width);
    const chart = page.locator('#pareto svg.pareto-svg');
    await chart.locator('.point-label').first().waitFor();
    const crossings = await chart.evaluate((svg) => {
      type Box = { name: string; x0: number; y0: number; x1: number; y1: number };
      const boxOf = (e: SVGGraphicsElement, name: string): Box => {
        const b = e.getBBox();
        return { name, x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height };
      };
      const labels = [...svg.querySelectorAll<SVGTextElement>('.point-label')].map((l) =>
        boxOf(l, `name of ${l.dataset.label}`),
      );
      const marks = [...svg.querySelectorAll<SVGGElement>('.point')].flatMap((g) => [
        ...[...g.querySelectorAll<SVGGraphicsElement>('circle')].map((c) => boxOf(c, `point of ${g.dataset.label}`)),
        // A whisker's box is its line, a pixel either side.
        ...[...g.querySelectorAll<SVGLineElement>('line.whisker')].map((l) => {
          const b = boxOf(l, `whisker of ${g.dataset.label}`);
          return { ...b, x0: b.x0 - 1, x1: b.x1 + 1 };
        }),
      ]);
      const crosses = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
      return labels.flatMap((l, i) =>
        [...labels.slice(i + 1), ...marks].filter((m) => crosses(l, m)).map((m) => `${l.name} × ${m.name}`),
      );
    });
    expect(crossings).toEqual([]);
    await page.close();
  });
});

describe('the per-model table', () => {
  it('calls no total of a harness version’s 120 runs too few to rank (the cockpit’s minimum is 10)', async () => {
    const page = await open('/', 1440);
    const totals = page.locator('#table-models tfoot tr');
    expect(await totals.count()).toBe(4);
    expect(await totals.locator('.too-few-note').count()).toBe(0);
    expect(await totals.first().innerText()).not.toContain('too few');
    await page.close();
  });
});

describe('the model × issue matrix', () => {
  it('names every row in full at 1440 px, where the card has room beside its cells', async () => {
    const page = await open('/', 1440);
    const canvas = page.locator('#chart-matrix canvas.matrix-canvas');
    await canvas.waitFor();
    const labels = [...new Set(campaign.runs.map(configurationOf))];
    const seen = await canvas.evaluate((c, names) => {
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = '12px system-ui, sans-serif';
      return {
        column: Number((c as HTMLCanvasElement).dataset.labelWidth),
        longest: Math.max(...names.map((n) => ctx.measureText(n).width)),
      };
    }, labels);
    // The names are drawn from 2 px in, and a name that does not fit ends 8 px before the cells.
    expect(seen.column - 8).toBeGreaterThanOrEqual(seen.longest);
    await page.close();
  });
});

describe('the Reliability card', () => {
  it.each([1024, 1440])('leaves room beside its curves for each name, model over harness, at %i px', async (width) => {
    const page = await open('/', width);
    const labels = [...new Set(campaign.runs.map(configurationOf))];
    for (const id of ['#reliability-pass-at', '#reliability-pass-hat']) {
      await page.locator(`${id} canvas`).waitFor();
      const seen = await page.locator(id).evaluate((host, names) => {
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = '12px system-ui, sans-serif';
        const lines = names.flatMap((n) => [n.slice(0, n.lastIndexOf(' · ')), n.slice(n.lastIndexOf(' · ') + 1)]);
        return {
          // Names are written 8 px right of the plot's last point, at its right edge.
          room:
            host.querySelector('canvas')!.getBoundingClientRect().right -
            host.querySelector('.u-over')!.getBoundingClientRect().right -
            8,
          widest: Math.max(...lines.map((l) => ctx.measureText(l).width)),
        };
      }, labels);
      expect(seen.room).toBeGreaterThanOrEqual(seen.widest);
    }
    await page.close();
  });
});

describe('names in the figure tables', () => {
  it.each([1024, 1440])('are never crushed on the dashboard at %i px', async (width) => {
    const page = await open('/', width);
    await page.locator('#cost-table tbody tr').first().waitFor();
    for (const id of ['#table-models', '#table-breakdown', '#chart-cost', '#chart-judge-spend'])
      expect(await page.locator(`${id} table.figures`).count()).toBeGreaterThan(0);
    expect(await crushedCells(page)).toEqual({ narrow: [], brokenInside: [] });
    // A row's name reads from the left, as every name column does (the Reliability tables name their rows in th).
    const rowNames = await page
      .locator('#dashboard-area table.figures tbody th.text')
      .evaluateAll((ths) => [...new Set(ths.map((th) => getComputedStyle(th).textAlign))]);
    expect(rowNames).toEqual(['left']);
    // Tall enough for each card to be shot whole, at the same width.
    await page.setViewportSize({ width, height: 1800 });
    await page.locator('#table-models').screenshot({ path: `${SHOTS}/layout-models-${width}.png` });
    await page.locator('#chart-cost').screenshot({ path: `${SHOTS}/layout-cost-${width}.png` });
    await page.locator('#table-calibration').screenshot({ path: `${SHOTS}/layout-kappa-${width}.png` });
    await page.close();
  });

  it.each([800, 1024, 1440])(
    'are never crushed in Compare’s all pairs at %i px, every column in view',
    async (width) => {
      const page = await open('/?view=compare&pairs=all', width);
      await page.locator('#all-pairs-table tbody tr').first().waitFor();
      expect(await crushedCells(page)).toEqual({ narrow: [], brokenInside: [] });
      // Holm's p (the order of the rows), the note and the link to each pair are on screen, not past a sideways scroll.
      const scroller = page.locator('#compare-area .table-scroll');
      expect(await scroller.evaluate((s) => s.scrollWidth - s.clientWidth)).toBeLessThanOrEqual(0);
      await page.setViewportSize({ width, height: 1800 });
      await page.locator('#compare-area').screenshot({ path: `${SHOTS}/layout-all-pairs-${width}.png` });
      await page.close();
      const two = await open('/?view=compare', width);
      await two.locator('#compare-sentence').waitFor();
      await two.screenshot({ path: `${SHOTS}/layout-compare-${width}.png` });
      await two.close();
    },
  );
});

const rowOf = (r: (typeof campaign.runs)[number]) =>
  r.delivery.row as { model: string; harnessVersion: string; repo: string; taskId: string };
const passed = (r: (typeof campaign.runs)[number]) =>
  (r.hiddenTest.hiddenTestResult as { status: string }).status === 'pass';
const configurationOf = (r: (typeof campaign.runs)[number]) => `${rowOf(r).model} · ${rowOf(r).harnessVersion}`;

describe('getting around', () => {
  it('links to every card of the dashboard, in order, and a link brings its card into view with the focus', async () => {
    const page = await open('/', 1024);
    const cards = await page
      .locator('#dashboard-area .cards > .card')
      .evaluateAll((cs) => cs.map((c) => ({ href: `#${c.id}`, text: c.querySelector('h2')!.textContent })));
    const links = await page
      .locator('#jump-links a')
      .evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href'), text: a.textContent })));
    expect(links).toEqual(cards);
    expect(links.map((l) => l.text)).toContain('Resolve rate by repository');
    await page.locator('#jump-links a', { hasText: 'Resolve rate by repository' }).click();
    const seen = await page.evaluate(() => ({
      top: document.querySelector('#table-repos')!.getBoundingClientRect().top,
      focused: document.activeElement?.id,
    }));
    expect(seen.focused).toBe('table-repos');
    expect(seen.top).toBeGreaterThanOrEqual(0);
    expect(seen.top).toBeLessThan(HEIGHTS[1024]! / 2);
    await page.close();
  });

  it('breaks the resolve rate down by repository, as counted from the demo’s runs, and a repository filters to it', async () => {
    const page = await open('/', 1440);
    const table = page.locator('#repo-table');
    await table.locator('tbody tr').first().waitFor();
    const configurations = await table
      .locator('thead th')
      .evaluateAll((ths) => ths.slice(2).map((th) => th.textContent));
    const shown = await table.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        repo: tr.getAttribute('data-repo')!,
        tasks: Number(tr.children[1]!.textContent),
        cells: [...tr.children].slice(2).map((td) => td.textContent),
      })),
    );
    const repos = [...new Set(campaign.runs.map((r) => rowOf(r).repo))];
    const tasksOf = (repo: string) =>
      new Set(campaign.runs.filter((r) => rowOf(r).repo === repo).map((r) => rowOf(r).taskId)).size;
    repos.sort((a, b) => tasksOf(b) - tasksOf(a) || a.localeCompare(b));
    expect(shown.map((r) => r.repo)).toEqual(repos);
    for (const row of shown) {
      expect(row.tasks).toBe(tasksOf(row.repo));
      row.cells.forEach((cell, k) => {
        const runs = campaign.runs.filter(
          (r) => rowOf(r).repo === row.repo && configurationOf(r) === configurations[k],
        );
        const rate = (100 * runs.filter(passed).length) / runs.length;
        const [, percent, n] = /^([\d.]+)%n=(\d+)$/.exec(cell!)!;
        expect(Number(n)).toBe(runs.length);
        // Rounded to a whole percent, or to a tenth below 10 %.
        expect(Math.abs(Number(percent) - rate)).toBeLessThanOrEqual(rate > 0 && rate < 10 ? 0.05 : 0.5);
      });
    }
    await page.setViewportSize({ width: 1440, height: 1800 });
    await page.locator('#table-repos').screenshot({ path: `${SHOTS}/layout-repos-1440.png` });

    await table.locator('tbody th a', { hasText: 'sympy/sympy' }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).getAll('repo').join() === 'sympy/sympy');
    expect(await page.locator('details[data-filter="repository"] summary').innerText()).toBe('Repository: sympy/sympy');
    expect(await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-repo')))).toEqual(
      ['sympy/sympy'],
    );
    await page.close();
  });

  it('keeps the repository filter in the address, counts only its runs, and exports exactly them', async () => {
    const repo = 'django/django';
    const page = await open(`/?view=runs&repo=${encodeURIComponent(repo)}`, 1024);
    const expected = campaign.runs.filter((r) => rowOf(r).repo === repo).map((r) => r.id);
    expect(await page.locator('#live-status').innerText()).toContain(
      `${expected.length} of ${campaign.runs.length} runs`,
    );
    const href = (await page.locator('#export-json').getAttribute('href'))!;
    expect(new URL(href, cockpit.local.url).searchParams.getAll('repo')).toEqual([repo]);
    const exported = (await (await fetch(new URL(href, cockpit.local.url))).json()) as { runs: { id: string }[] };
    expect(exported.runs.map((r) => r.id).sort()).toEqual(expected.sort());
    // Cleared from the menu, the address forgets it.
    await page.locator('details[data-filter="repository"] summary').click();
    await page.locator('details[data-filter="repository"] input[value="django/django"]').uncheck();
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('repo'));
    await page.close();
  });

  it('shows every configuration’s result on one task, each a link to its run, reached from a run’s detail', async () => {
    const page = await open(`/?view=runs&run=${encodeURIComponent(run.id)}`, 1024);
    await page.locator('#run-task-link').click();
    const task = rowOf(run).taskId;
    await page.waitForFunction((t) => new URLSearchParams(location.search).get('task') === t, task);
    const ofTask = campaign.runs.filter((r) => rowOf(r).taskId === task);
    const rows = await page.locator('#task-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        configuration: tr.querySelector('th')!.textContent,
        result: tr.querySelector('[data-cell="result"]')?.textContent,
        run: tr.querySelector('a.task-run')?.getAttribute('data-run'),
      })),
    );
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => r.configuration).sort()).toEqual(ofTask.map(configurationOf).sort());
    for (const r of ofTask) {
      const row = rows.find((x) => x.configuration === configurationOf(r))!;
      expect(row).toEqual({
        configuration: configurationOf(r),
        result: passed(r) ? 'resolved' : 'not resolved',
        run: r.id,
      });
    }
    await page.screenshot({ path: `${SHOTS}/layout-task-1024.png` });
    const other = ofTask.find((r) => r.id !== run.id)!;
    await page.locator(`a.task-run[data-run="${other.id}"]`).click();
    await page.waitForFunction((id) => new URLSearchParams(location.search).get('run') === id, other.id);
    await page.locator('#run-detail .verdict-main').waitFor();
    expect(await page.locator('#run-detail .detail-head h2').innerText()).toContain(rowOf(other).model);
    await page.close();
  });
});
