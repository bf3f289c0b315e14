// The page at any size (docs/contract.md §6 "Reading at scale"): one judged demo campaign in two local modes, one
// holding its runs in the browser (the defaults), one with `cockpit.browserRuns` and `engine.aboveRuns` at 0, so
// the read API tells its page to read the space through the engine (DuckDB over the compacted run dataset). Under
// the same URLs, every card engine mode draws must show the browser's figures, word for word: the KPI tiles, the
// per-model table's columns the engine answers, the reliability tables, the cost and judge spend tables and
// Compare's pairs; and the Runs grid's first page must hold the same runs in the same order. The cards engine
// mode does not draw are named on its page.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { buildCampaign, readSourceRuns } from '#demo/campaign.ts';
import { DEMO_JUDGE_MODEL } from '#demo/judge.ts';
import { compactSpace, type SnapshotDeps } from '#core/read/snapshot-store.ts';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { launchChromium } from './helpers/chromium.ts';
import { loadJudgedCampaign } from './helpers/judged-campaign.ts';
import { CARDS_WITHOUT_ENGINE } from '../../dashboard/src/page/engine-cards.ts';

const SPACE = 'AnySize';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];

let browser: Browser;
const modes: { browser?: TestLocalMode; engine?: TestLocalMode } = {};

async function startMode(settings: Record<string, unknown>): Promise<TestLocalMode> {
  const config = {
    defaultJudgeModel: DEMO_JUDGE_MODEL,
    spaces: { [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 500 } } },
    cockpits: { Size: { space: SPACE } },
    // Priced, so the cost card has figures to compare where a run's harness recorded none.
    prices: {
      'Claude Opus 4.1': { inputPerMTok: 15, outputPerMTok: 75 },
      'GPT-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
    },
    ...settings,
  };
  const local = await startTestLocalMode(
    config,
    { [HOSTS[0]!]: 'k1', [HOSTS[1]!]: 'k2' },
    { snapshotIntervalSeconds: 0, sweepIntervalSeconds: 3600 },
  );
  const campaign = buildCampaign(readSourceRuns(), { tasks: 40, seed: 11, hosts: HOSTS });
  await loadJudgedCampaign(local.adapters.table, SPACE, campaign);
  // The snapshot and the run dataset the engine reads, as the scheduled compaction writes them.
  await compactSpace(local.wiring['snapshot-compactor'] as SnapshotDeps, SPACE);
  return local;
}

beforeAll(async () => {
  [modes.browser, modes.engine] = await Promise.all([
    startMode({}),
    startMode({ engine: { aboveRuns: 0 }, cockpit: { browserRuns: 0 } }),
  ]);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await modes.browser?.stop();
  await modes.engine?.stop();
});

async function open(mode: 'browser' | 'engine', path: string): Promise<Page> {
  const p = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  p.on('pageerror', (e) => console.error(`${mode} page error:`, e.message));
  await p.goto(`${modes[mode]!.url}${path}`);
  await p.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
  return p;
}

/** A figures table as text: each row (by model and harness) its cells by the column key of its heading, each cell's title. */
const tableByKey = (p: Page, selector: string) =>
  p.locator(selector).evaluate((table) => {
    const keys = [...table.querySelectorAll('thead th')].map((th) => (th as HTMLElement).dataset.column ?? '');
    return Object.fromEntries(
      [...table.querySelectorAll('tbody tr')].map((tr) => {
        const cells = [...tr.children] as HTMLElement[];
        return [
          `${cells[0]!.title} · ${cells[1]!.title}`,
          Object.fromEntries(cells.slice(1).map((c, k) => [keys[k + 1]!, c.title])),
        ];
      }),
    );
  });

/** A table's text, row by row and cell by cell (read from the DOM: a card out of view renders no text). */
const tableText = (p: Page, selector: string) =>
  p
    .locator(selector)
    .evaluate((table) =>
      [...table.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => c.textContent).join('\t')).join('\n'),
    );

describe.each(['', '?harness=paper&outcome=judge', '?tier=easy&tier=medium&difficulty=hard'])(
  'the Dashboard of one campaign in both modes (%s)',
  (query) => {
    it('shows every card engine mode draws with the browser’s figures, and names the others', async () => {
      const [inBrowser, byEngine] = await Promise.all([open('browser', `/${query}`), open('engine', `/${query}`)]);
      expect(await inBrowser.locator('#engine-mode').count()).toBe(0);
      expect(await byEngine.locator('#engine-mode').innerText()).toContain(
        'more than this cockpit holds in the browser',
      );
      for (const p of [inBrowser, byEngine])
        for (const table of ['#cost-table', '#judge-cost-table'])
          await p.locator(`${table} tbody tr`).first().waitFor();
      const tiles = await inBrowser.locator('#kpis .kpi').allInnerTexts();
      expect(tiles.length).toBeGreaterThan(1);
      expect(await byEngine.locator('#kpis .kpi').allInnerTexts()).toEqual(tiles);
      // Every column the engine's table has, as the browser's table has it.
      const engineTable = await tableByKey(byEngine, '#engine-models');
      const browserTable = await tableByKey(inBrowser, '#table-models table');
      expect(Object.keys(engineTable).sort()).toEqual(Object.keys(browserTable).sort());
      for (const [label, cells] of Object.entries(engineTable)) {
        expect(Object.keys(cells).length).toBeGreaterThan(10);
        for (const [key, cell] of Object.entries(cells))
          expect({ label, key, cell }).toEqual({ label, key, cell: browserTable[label]![key] });
      }
      const resolveChart = await byEngine.locator('#chart-resolve-rate .card-body').textContent();
      expect(resolveChart).toContain('%');
      expect(resolveChart).toBe(await inBrowser.locator('#chart-resolve-rate .card-body').textContent());
      for (const selector of ['#reliability-table', '#reliability-points', '#cost-table', '#judge-cost-table'])
        expect({ selector, text: await tableText(byEngine, selector) }).toEqual({
          selector,
          text: await tableText(inBrowser, selector),
        });
      expect(await tableText(byEngine, '#cost-table')).toMatch(/\$\d/);
      const named = await byEngine.locator('#cards-without-engine').textContent();
      for (const title of CARDS_WITHOUT_ENGINE) expect(named).toContain(title);
      await Promise.all([inBrowser.close(), byEngine.close()]);
    });
  },
);

it('compares every pair of one harness version alike in both modes', async () => {
  const [inBrowser, byEngine] = await Promise.all([
    open('browser', '/?view=compare&pairs=all&harness=paper'),
    open('engine', '/?view=compare&pairs=all&harness=paper'),
  ]);
  const text = await tableText(inBrowser, '#all-pairs-table tbody');
  expect(text.split('\n').length).toBeGreaterThan(5);
  expect(await tableText(byEngine, '#all-pairs-table tbody')).toBe(text);
  await Promise.all([inBrowser.close(), byEngine.close()]);
});

it.each([
  '',
  '?sort=-wallSeconds&harness=paper',
  '?sort=model&outcome=judge&verdict=resolved',
  '?q=gpt%20pass&sort=-steps',
])('pages the Runs grid through the engine in the browser’s order (%s)', async (query) => {
  const path = `/${query ? `${query}&` : '?'}view=runs`;
  const [inBrowser, byEngine] = await Promise.all([open('browser', path), open('engine', path)]);
  const firstIds = await inBrowser.locator('.grid-row:not([hidden])').evaluateAll((rows) =>
    rows
      .map((r) => ({ id: (r as HTMLElement).dataset.id!, y: new DOMMatrix(getComputedStyle(r).transform).f }))
      .sort((a, b) => a.y - b.y)
      .map((r) => r.id),
  );
  const total = Number((await inBrowser.locator('.runs-count').innerText()).split(' of ')[0]!.replace(/,/g, ''));
  const rows = byEngine.locator('#engine-grid tbody tr');
  await rows.first().waitFor();
  const engineIds = await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.id!));
  expect(engineIds.slice(0, firstIds.length)).toEqual(firstIds);
  expect(await byEngine.locator('#engine-runs-count').innerText()).toContain(`of ${total.toLocaleString('en')} runs`);
  // A next page where the runs do not fit one, and it follows on.
  const nextButton = byEngine.locator('#engine-runs-next');
  expect(await nextButton.isDisabled()).toBe(total <= engineIds.length);
  if (total > engineIds.length) {
    await nextButton.click();
    await byEngine.waitForFunction(() =>
      document.querySelector('#engine-runs-count')?.textContent?.startsWith('page 2'),
    );
    const next = await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.id!));
    expect(next.some((id) => engineIds.includes(id))).toBe(false);
  }
  await Promise.all([inBrowser.close(), byEngine.close()]);
});

it('opens a run of the engine’s grid in the detail panel, from the row API', async () => {
  const p = await open('engine', '/?view=runs');
  const first = p.locator('#engine-grid tbody tr').first();
  const id = await first.getAttribute('data-id');
  await first.click();
  await p.waitForURL((u) => u.searchParams.get('run') === id);
  await p.locator('#run-detail:not([hidden])').waitFor();
  expect(await p.locator('#run-detail').textContent()).toContain(
    (await (await fetch(`${modes.engine!.url}/api/spaces/${SPACE}/runs/${encodeURIComponent(id!)}`)).json()).model,
  );
  await p.close();
});
