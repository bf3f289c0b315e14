// The whole default demo (480 real runs of four agents on 120 SWE-bench Lite tasks) in headless Chromium at a
// laptop's 800 and 1024 px and a desktop's 1440 px (issue 41, items 7 and 8): the run detail is opaque and covers
// the grid it opens over, the header's parts never overlap, and no figure table crushes a name into a column
// narrower than 8 characters or breaks it anywhere but at a word, '-', '_' or '/'.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { settled } from './helpers/analysis-page.ts';
import { DEMO_JUDGE_MODEL } from '../../infra/local/demo-judge.ts';
import { DEMO_JUDGE_PRICE, DEMO_RUNNER_PRICES } from '../../infra/local/demo-prices.ts';
import { readDemoData } from '../../infra/local/demo-data.ts';
import { buildLiteCampaign } from '../../infra/local/demo-lite-campaign.ts';

const SPACE = 'SweBenchLiteDemo';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2' };
// The demo's own configuration: one cockpit named after its space, with the demo's prices.
const config = {
  defaultJudgeModel: DEMO_JUDGE_MODEL,
  spaces: { [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 100_000 } } },
  cockpits: { [SPACE]: { space: SPACE } },
  prices: { ...DEMO_RUNNER_PRICES, [DEMO_JUDGE_MODEL]: DEMO_JUDGE_PRICE },
};
const campaign = buildLiteCampaign(readDemoData(), { seed: 7, hosts: HOSTS });
const HEIGHTS: Record<number, number> = { 800: 700, 1024: 768, 1440: 900 };

let cockpit: JudgedCockpit;

beforeAll(async () => {
  cockpit = await startJudgedCockpit(config, keys, SPACE, campaign);
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

/** A run with a candidate patch, so the detail shows its verdict and diffs over a full grid. */
const run = campaign.runs.find((r) => (r.delivery.patch as string).length > 200)!;

describe('the run detail over the runs grid', () => {
  it.each([800, 1024, 1440])('is opaque and covers the grid where it lies at %i px', async (width) => {
    const page = await open(`/?view=runs&run=${encodeURIComponent(run.id)}`, width);
    await page.locator('#run-detail .verdict-main').waitFor();
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
    expect(tabs).toEqual([true, true, true, true]);
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

describe('names in the figure tables', () => {
  it.each([1024, 1440])('are never crushed on the dashboard at %i px', async (width) => {
    const page = await open('/', width);
    await page.locator('#cost-table tbody tr').first().waitFor();
    for (const id of ['#table-models', '#table-breakdown', '#chart-cost', '#chart-judge-spend'])
      expect(await page.locator(`${id} table.figures`).count()).toBeGreaterThan(0);
    expect(await crushedCells(page)).toEqual({ narrow: [], brokenInside: [] });
    await page.locator('#table-models').screenshot({ path: `${SHOTS}/layout-models-${width}.png` });
    await page.locator('#chart-cost').screenshot({ path: `${SHOTS}/layout-cost-${width}.png` });
    await page.close();
  });

  it.each([1024, 1440])('are never crushed in Compare’s all pairs at %i px', async (width) => {
    const page = await open('/?view=compare&pairs=all', width);
    await page.locator('#all-pairs-table tbody tr').first().waitFor();
    expect(await crushedCells(page)).toEqual({ narrow: [], brokenInside: [] });
    await page.locator('#compare-area').screenshot({ path: `${SHOTS}/layout-all-pairs-${width}.png` });
    await page.close();
  });
});
