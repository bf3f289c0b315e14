// Using the cockpit in headless Chromium against local mode with the demo campaign (helpers/demo-cockpit.ts) and
// the stand-in judge: the keyboard reaches everything with a visible focus ring, narrow windows do not scroll
// sideways, failures and empty results say so, a run pushed while the page is open appears without a reload,
// the detail panel shows the patch beside the original fix, runner strings are never markup, and the hosts area
// lists the senders. Screenshots go to test-results/.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { settled } from './helpers/analysis-page.ts';
import { campaign, demoCockpit, groups, HOSTS, live } from './helpers/demo-cockpit.ts';
import { SHOTS } from './helpers/judged-campaign.ts';
import { runId } from '#schema/run.ts';
import { eventually, type TestLocalMode } from '../helpers/local-mode.ts';

/** A run whose runner strings are markup, pushed by the untrusted-strings test. */
const hostile = {
  kind: 'run',
  host: HOSTS[0],
  row: {
    // No "__" in a model (its id would be ambiguous): the handler builds the name `__xss` at run time.
    model: `<img src=x onerror="window['_'+'_xss']=1">`,
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

const { world, openPage, push, statusText, runsInView } = demoCockpit();
/** The page opened on the dashboard, shared by the tests in order: the detail panel opens the run live updates push. */
let page: Page;
let browser: Browser;
let local: TestLocalMode;
beforeAll(() => {
  ({ page } = world);
  ({ browser, local } = world.cockpit);
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
    await settled(page);
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
