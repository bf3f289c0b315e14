// The outcome switch (docs/contract.md §6 "Outcome") in headless Chromium on a demo campaign with hidden tests, and
// beside it a space whose runs have none: the default (tests where any run in view has a pass or fail
// result), the switch held in the URL, every "resolved" figure counted on it and labelled with it, and the
// sentence that replaces a page of zeros; the cost per resolved task and the Pareto chart on the demo's
// illustrative prices (some models unpriced); and the header's freshness: when the newest run in view landed,
// and the poll only when it fails or lags. Expected figures come from the runs as export.json serves them,
// counted in the test (helpers/independent-figures.ts). Screenshots go to test-results/.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { buildCampaign, readSourceRuns } from '#demo/campaign.ts';
import { DEMO_JUDGE_MODEL } from '#demo/judge.ts';
import { DEMO_JUDGE_PRICE, DEMO_RUNNER_PRICES } from '#demo/prices.ts';
import { apiPaths, type RunsPage, type StatsBody } from '#analytics/contract.ts';
import type { TestLocalMode } from '../helpers/local-mode.ts';
import {
  byRateThenName,
  countGroups,
  dollars,
  groupKey,
  pct,
  resultOf,
  runCost,
  undominated,
  wilson,
  type ExportedRun,
  type Outcome,
} from './helpers/independent-figures.ts';
import { loadJudgedCampaign, SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { settled } from './helpers/analysis-page.ts';

const SPACE = 'OutcomeSpace';
const UNTESTED = 'UntestedSpace';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const config = {
  defaultJudgeModel: DEMO_JUDGE_MODEL,
  spaces: {
    [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 500 } },
    [UNTESTED]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 500 } },
  },
  cockpits: { Outcome: { space: SPACE }, Untested: { space: UNTESTED } },
  prices: { ...DEMO_RUNNER_PRICES, [DEMO_JUDGE_MODEL]: DEMO_JUDGE_PRICE },
};
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2' };
const campaign = buildCampaign(readSourceRuns(), { tasks: 40, seed: 11, hosts: HOSTS });

let cockpit: JudgedCockpit;
let local: TestLocalMode;
let browser: Browser;
let runs: ExportedRun[];

beforeAll(async () => {
  cockpit = await startJudgedCockpit(config, keys, SPACE, campaign);
  ({ local, browser } = cockpit);
  // The same runs without a hidden-test result in the second space.
  await loadJudgedCampaign(
    local.adapters.table,
    UNTESTED,
    campaign,
    campaign.runs.map((r) => ({ ...r, hiddenTest: undefined as never })),
  );
  runs = (await api<{ runs: ExportedRun[] }>(apiPaths.export(SPACE, 'json'))).runs;
}, 240_000);

afterAll(() => cockpit?.stop());

async function api<T>(path: string): Promise<T> {
  return (await (await fetch(`${local.url}/api${path}`)).json()) as T;
}

async function openPage(path = '/', viewport = { width: 1280, height: 900 }): Promise<Page> {
  const p = await browser.newPage({ viewport });
  p.on('pageerror', (e) => console.error('page error:', e.message));
  await p.goto(`${local.url}${path}`);
  await p.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
  await settled(p);
  return p;
}

/** Every tile reads its group's rate, n and interval on the outcome, in ranked order. */
async function expectTiles(p: Page, outcome: Outcome) {
  const label = outcome === 'tests' ? 'resolve rate · hidden tests' : 'resolve rate · judge';
  const expected = countGroups(runs, outcome).sort(byRateThenName);
  const tiles = p.locator('.kpi');
  expect(await tiles.count()).toBe(expected.length);
  for (let k = 0; k < expected.length; k++) {
    const g = expected[k]!;
    const tile = tiles.nth(k);
    expect(await tile.locator('.kpi-model').innerText()).toMatch(new RegExp(`${escape(g.model)}$`));
    expect(await tile.locator('.kpi-harness').innerText()).toBe(`harness ${g.harnessVersion}`);
    expect(await tile.locator('.kpi-label').innerText()).toBe(label);
    const text = await tile.innerText();
    expect(text).toContain(`n=${g.n}`);
    if (g.n) {
      const [lo, hi] = wilson(g.resolved, g.n);
      expect(await tile.locator('.kpi-rate').innerText()).toMatch(new RegExp(`^${pct(g.resolved / g.n)}`));
      expect(text).toContain(`95% CI ${pct(lo)}–${pct(hi)}`);
    }
    if (outcome === 'tests') expect(text).toContain(g.outside ? `${g.outside} no test result` : 'outside n: none');
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the outcome switch', () => {
  it('defaults to hidden tests where runs in view have them, and counts every tile, the table and the matrix on them', async () => {
    const p = await openPage();
    expect(new URL(p.url()).searchParams.get('outcome')).toBeNull();
    expect(await p.locator('[data-outcome="tests"]').getAttribute('aria-pressed')).toBe('true');
    expect(await p.locator('[data-outcome="judge"]').getAttribute('aria-pressed')).toBe('false');
    expect(await p.locator('#outcome-switch').innerText()).toContain('default');
    await expectTiles(p, 'tests');
    // The first rate column of the table is the outcome's, and its first row the best group on it.
    const best = countGroups(runs, 'tests').sort(byRateThenName)[0]!;
    // (Cards below the fold are not rendered text, content-visibility: their textContent is read.)
    expect(await p.locator('#table-models thead th[data-column="rate"]').textContent()).toBe(
      'Resolve rate · hidden tests',
    );
    expect(await p.locator('#table-models tbody tr').first().locator('th').textContent()).toBe(best.model);
    expect(await p.locator('#chart-matrix canvas').getAttribute('aria-label')).toMatch(/hidden-test result/);
    // The server counts on the same outcome by default.
    expect((await api<StatsBody>(apiPaths.stats(SPACE))).outcome).toBe('tests');
    await p.locator('.kpis').screenshot({ path: `${SHOTS}/outcome-tiles-tests.png` });
    await p.close();
  });

  it('switches every "resolved" figure to the judge, holds the choice in the URL, and a fresh page keeps it', async () => {
    const p = await openPage();
    await p.locator('[data-outcome="judge"]').click();
    await p.waitForURL((u) => u.searchParams.get('outcome') === 'judge');
    await settled(p);
    expect(await p.locator('[data-outcome="judge"]').getAttribute('aria-pressed')).toBe('true');
    expect(await p.locator('#outcome-switch').innerText()).not.toContain('default');
    await expectTiles(p, 'judge');
    expect(await p.locator('#table-models thead th[data-column="rate"]').textContent()).toBe('Resolve rate · judge');
    expect(await p.locator('#chart-matrix canvas').getAttribute('aria-label')).toMatch(/judge verdict/);
    // The resolve-rate chart puts the judge's lane first and names both.
    const lane = p.locator('#chart-resolve-rate .bar-row').first().locator('.bar-seg').first();
    expect(await lane.getAttribute('title')).toMatch(/^resolve rate · judge: \d+ of \d+/);
    const again = await openPage(new URL(p.url()).search ? `/${new URL(p.url()).search}` : '/');
    await expectTiles(again, 'judge');
    await again.close();
    // And back to the tests: explicit now, in the URL.
    await p.locator('[data-outcome="tests"]').click();
    await p.waitForURL((u) => u.searchParams.get('outcome') === 'tests');
    await settled(p);
    await expectTiles(p, 'tests');
    await p.close();
  });

  it('counts on the judge by default where no run in view has a test result, and says so when tests are asked for', async () => {
    const p = await openPage('/?cockpit=Untested');
    expect(await p.locator('[data-outcome="judge"]').getAttribute('aria-pressed')).toBe('true');
    expect(await p.locator('#outcome-switch').innerText()).toContain('no tests in view');
    expect(await p.locator('.kpi').count()).toBeGreaterThan(1);
    expect((await api<StatsBody>(apiPaths.stats(UNTESTED))).outcome).toBe('judge');
    await p.goto(`${local.url}/?cockpit=Untested&outcome=tests`);
    await p.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    const empty = p.locator('#dashboard-empty');
    expect(await empty.isVisible()).toBe(true);
    expect(await empty.innerText()).toMatch(/^There are no test results in view: none of the \d[\d,]* runs/);
    expect(await p.locator('.kpis').isHidden()).toBe(true);
    expect(await p.locator('.cards').isHidden()).toBe(true);
    // Compare says the same rather than comparing zeros.
    await p.locator('#tab-compare').click();
    expect(await p.locator('#compare-sentence').innerText()).toMatch(/^There are no test results in view/);
    await p.locator('#tab-dashboard').click();
    await empty.screenshot({ path: `${SHOTS}/outcome-no-tests.png` });
    await empty.locator('button', { hasText: 'Count on the judge' }).click();
    await p.waitForURL((u) => u.searchParams.get('outcome') === 'judge');
    // The URL changes before the tiles are drawn: wait for them, then check the empty note went.
    await p.locator('.kpis').waitFor({ state: 'visible' });
    expect(await empty.isHidden()).toBe(true);
    await p.close();
  });
});

describe('cost per resolved task', () => {
  it('gives each configuration its priced runs, cost per resolved task and resolved per $10; unpriced stays unknown', async () => {
    const p = await openPage();
    const card = p.locator('#chart-cost');
    await card.scrollIntoViewIfNeeded();
    await card.locator('#cost-table').waitFor();
    expect(await card.locator('#cost-table thead').textContent()).toContain('Cost per resolved task · hidden tests');
    let unpriced = 0;
    for (const g of countGroups(runs, 'tests')) {
      const costs = g.runs.map((r) => ({ cost: runCost(r, DEMO_RUNNER_PRICES[r.model]), run: r }));
      const priced = costs.filter((c) => c.cost !== null);
      const row = card.locator(`#cost-table tbody tr[data-model="${g.model}"][data-harness="${g.harnessVersion}"]`);
      const cells = await row.locator('td').allTextContents();
      if (!priced.length) {
        unpriced++;
        // Of no priced run, none resolved is known: the column says there is none, the others are unknown.
        expect(cells).toEqual(['none', ...Array(3).fill('unknown'), 'no priced run', ...Array(2).fill('unknown')]);
        continue;
      }
      const total = priced.reduce((s, c) => s + c.cost!, 0);
      const resolved = priced.filter((c) => resultOf(c.run, 'tests') === 'resolved').length;
      expect(cells[0]).toBe(
        priced.length === g.runs.length ? `all ${g.runs.length}` : `priced ${priced.length} of ${g.runs.length}`,
      );
      // Money is written to three significant digits.
      expect(dollars(cells[1]!)).toBeCloseTo(total, -Math.floor(Math.log10(total)) + 1);
      expect(cells[4]).toBe(`${resolved} of ${priced.length}`);
      if (resolved) {
        expect(dollars(cells[5]!) / (total / resolved)).toBeCloseTo(1, 2);
        expect(Number(cells[6])).toBeCloseTo((10 * resolved) / total, 1);
      } else expect(cells[5]).toBe('none resolved');
    }
    expect(unpriced).toBeGreaterThan(0);
    await p.close();
  });

  it('plots resolve rate with its interval against mean run cost per task, every point named, the front drawn', async () => {
    // Tall enough for the whole card: its screenshot goes into docs/.
    const p = await openPage('/', { width: 1440, height: 2400 });
    const card = p.locator('#chart-cost');
    await card.scrollIntoViewIfNeeded();
    await card.locator('#pareto').waitFor();
    expect(await card.locator('#cost-basis').inputValue()).toBe('per-task');
    // Independently: the mean cost of the priced runs, the rate on the tests, the undominated points.
    const several = new Set(runs.map((r) => r.harnessVersion)).size > 1;
    const points = countGroups(runs, 'tests').flatMap((g) => {
      const costs = g.runs.map((r) => runCost(r, DEMO_RUNNER_PRICES[r.model])).filter((c): c is number => c !== null);
      if (!costs.length || !g.n) return [];
      const label = several ? `${g.model} · ${g.harnessVersion}` : g.model;
      return [
        { key: groupKey(g), label, cost: costs.reduce((s, c) => s + c, 0) / costs.length, rate: g.resolved / g.n, g },
      ];
    });
    const shown = await card
      .locator('#pareto .point')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-label')));
    expect(shown.sort()).toEqual(points.map((x) => x.label).sort());
    const front = undominated(
      points,
      (x) => x.cost,
      (x) => x.rate,
    ).map((x) => x.label);
    const onFront = await card
      .locator('#pareto .point.on-front')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-label')));
    expect(onFront.sort()).toEqual(front.sort());
    // Each point's whisker is its Wilson interval; its tooltip names it with rate, interval and n.
    for (const x of points) {
      const title = await card.locator(`#pareto .point[data-label="${x.label}"] title`).textContent();
      const [lo, hi] = wilson(x.g.resolved, x.g.n);
      expect(title).toContain(`${x.label}: ${pct(x.rate)} (95% CI ${pct(lo)}–${pct(hi)}, n=${x.g.n})`);
    }
    // Every point is in the table beside the chart; the names drawn on the chart never cover each other.
    expect(await card.locator('#pareto-table tbody tr').count()).toBe(points.length);
    const boxes = await card
      .locator('#pareto .point-label')
      .evaluateAll((nodes) =>
        nodes.map((n) => n.getBoundingClientRect()).map((r) => ({ l: r.left, r: r.right, t: r.top, b: r.bottom })),
      );
    expect(boxes.length).toBeGreaterThan(points.length / 2);
    for (let a = 0; a < boxes.length; a++)
      for (let b = a + 1; b < boxes.length; b++) {
        const [x, y] = [boxes[a]!, boxes[b]!];
        expect(x.l < y.r && y.l < x.r && x.t < y.b && y.t < x.b).toBe(false);
      }
    expect(await card.locator('#pareto-left-off').textContent()).toMatch(/Kimi · paper \(no priced run\)/);
    await card.screenshot({ path: `${SHOTS}/cockpit-cost.png` });
    await p.close();
  });
});

describe('freshness', () => {
  const newestOf = (rows: RunsPage['runs']) =>
    rows
      .map((r) => r.landedAt)
      .sort()
      .at(-1)!;
  const utc = (iso: string) => `${iso.slice(11, 16)} UTC`;

  it('says when the newest run in view landed, for the runs the filters leave', async () => {
    const rows = (await api<RunsPage>(apiPaths.runs(SPACE, { limit: 1000 }))).runs;
    expect(rows.length).toBe(runs.length);
    const p = await openPage();
    const status = p.locator('#live-status');
    expect(await status.innerText()).toMatch(
      new RegExp(
        `^● newest run landed \\d+ (s|min) ago · ${utc(newestOf(rows))} · ${rows.length} of ${rows.length} runs$`,
      ),
    );
    const model = 'Kimi';
    const kimi = rows.filter((r) => r.model === model);
    await p.goto(`${local.url}/?model=${model}`);
    await p.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    expect(await status.innerText()).toContain(`· ${utc(newestOf(kimi))} · ${kimi.length} of ${rows.length} runs`);
    await p.close();
  });

  it('says so only when polling fails, or has not succeeded for a minute', async () => {
    const open = async () => {
      const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await p.clock.install();
      await p.goto(`${local.url}/`);
      await p.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
      expect(await p.locator('#live-status').getAttribute('class')).not.toContain('failing');
      return p;
    };
    // A poll that is refused: the header says so at once, with how long the page has gone without an update.
    const refused = await open();
    await refused.route('**/api/spaces/*/runs?*', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: '{"error":"unavailable","message":"Try again."}',
      }),
    );
    await refused.clock.fastForward(5_000);
    await refused.locator('#live-status.failing').waitFor();
    expect(await refused.locator('#live-status').innerText()).toMatch(
      /^⚠ not updated for \d+ s — retrying \(.*Try again.*\) · newest run landed /,
    );
    // It recovers on the next poll that works.
    await refused.unroute('**/api/spaces/*/runs?*');
    await refused.clock.fastForward(5_000);
    await refused.locator('#live-status:not(.failing)').waitFor();
    expect(await refused.locator('#live-status').innerText()).toMatch(/^● newest run landed /);
    await refused.close();
    // Polls that never answer: no error to show, but a minute without an update is said too.
    const hung = await open();
    await hung.route('**/api/spaces/*/runs?*', () => undefined);
    await hung.clock.fastForward(30_000);
    expect(await hung.locator('#live-status').getAttribute('class')).not.toContain('failing');
    await hung.clock.fastForward(40_000);
    await hung.locator('#live-status.failing').waitFor();
    expect(await hung.locator('#live-status').innerText()).toMatch(
      /^⚠ not updated for (6\d|7\d) s — retrying · newest run landed /,
    );
    await hung.close();
  });
});

describe('at 1440, 1024 and 800 px', () => {
  it('lays out the dashboard with the outcome switch without scrolling sideways', async () => {
    for (const width of [1440, 1024, 800]) {
      const p = await openPage('/', { width, height: 1000 });
      expect(await p.locator('#outcome-switch').isVisible()).toBe(true);
      expect(await p.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)).toBe(
        false,
      );
      await p.screenshot({ path: `${SHOTS}/outcome-dashboard-${width}.png` });
      await p.locator('#chart-cost').scrollIntoViewIfNeeded();
      await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await p.locator('#chart-cost').screenshot({ path: `${SHOTS}/outcome-cost-${width}.png` });
      await p.close();
    }
  });
});
