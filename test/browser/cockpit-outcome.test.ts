// The outcome switch (docs/contract.md §6 "Outcome") in headless Chromium on a demo campaign with hidden tests, and
// beside it a space whose runs have none: the default (tests where any run in view has a pass or fail
// result), the switch held in the URL, every "resolved" figure counted on it and labelled with it, and the
// sentence that replaces a page of zeros. Expected figures come from the runs as export.json serves them,
// counted in the test (helpers/independent-figures.ts). Screenshots go to test-results/.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { buildCampaign, DEMO_JUDGE_MODEL, readSourceRuns } from '../../infra/local/demo-campaign.ts';
import { apiPaths, type StatsBody } from '../../shared/cockpit/contract.ts';
import type { TestLocalMode } from '../helpers/local-mode.ts';
import {
  byRateThenName,
  countGroups,
  pct,
  wilson,
  type ExportedRun,
  type Outcome,
} from './helpers/independent-figures.ts';
import { loadJudgedCampaign, SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';

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
  runs = (await api<{ runs: ExportedRun[] }>(apiPaths.exportJson(SPACE))).runs;
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

const settled = (p: Page) => p.waitForFunction(() => (document.documentElement.dataset.pendingParts ?? '0') === '0');

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
    expect(await p.locator('.kpis').isVisible()).toBe(true);
    await p.close();
  });
});
