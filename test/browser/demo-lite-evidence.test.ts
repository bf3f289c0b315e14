// The default demo's real SWE-bench Lite runs in headless Chromium (issue 30, items 3 and 5): a run whose judge
// claims other files than the two diffs show explains its verdict in one screen at 1440×900 — the verdict and
// its source, the rubric with the disagreement marked, the failing tests, the candidate beside the real merged
// fix with the files each changes — and the cockpit fits a 1024×768 laptop.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { DEMO_JUDGE_MODEL, oracleAnswer } from '#demo/judge.ts';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign, originalFix } from '#demo/lite-campaign.ts';
import { pushDelivery } from '#runner/push.ts';
import { verdictChecks } from '#core/judge/verdict-checks.ts';
import { settled } from './helpers/analysis-page.ts';

const SPACE = 'LiteEvidence';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2' };
const config = {
  spaces: { [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL } } },
  cockpits: { Lite: { space: SPACE } },
};
const data = readDemoData();
const campaign = buildLiteCampaign(data, { tasks: 40, seed: 7, hosts: HOSTS });
const taskOf = (r: (typeof campaign.runs)[number]) => (r.delivery.row as { taskId: string }).taskId;
/** The merged fix as the stand-in GitHub serves it: the gold patch and its tests. */
const fixOf = (r: (typeof campaign.runs)[number]) => originalFix(data.tasks.find((t) => t.instanceId === taskOf(r))!);
const failedOf = (r: (typeof campaign.runs)[number]) =>
  (r.hiddenTest.hiddenTestResult as { failedTests?: string[] }).failedTests ?? [];
/** The paths a diff's `diff --git` lines name (the new side). */
const filesOf = (diff: string) => [...diff.matchAll(/^diff --git a\/\S+ b\/(\S+)$/gm)].map((m) => m[1]!);
/** A run the stand-in judge says changes the fix's files, while the two diffs do not change the same ones. */
const run = campaign.runs.find(
  (r) =>
    oracleAnswer(r).sameFilesAsReference === true &&
    !verdictChecks(r.delivery.patch as string, '', { diff: fixOf(r), omittedLockFiles: [] }, '').sameFiles &&
    failedOf(r).length >= 1 &&
    failedOf(r).length <= 6,
)!;

let cockpit: JudgedCockpit;

beforeAll(async () => {
  cockpit = await startJudgedCockpit(
    config,
    keys,
    SPACE,
    campaign,
    campaign.runs.filter((r) => r !== run),
  );
  const push = (delivery: Record<string, unknown>) =>
    pushDelivery(cockpit.local.url, SPACE, delivery as never, keys[run.host as keyof typeof keys]);
  expect((await push(run.delivery)).status).toBe(202);
  expect((await push(run.hiddenTest)).status).toBe(202);
}, 180_000);

afterAll(() => cockpit?.stop());

async function openDetail(width: number, height: number): Promise<Page> {
  const page = await cockpit.browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${cockpit.local.url}/?view=runs&run=${encodeURIComponent(run.id)}`);
  // Judged by the stand-in, with the original fix it fetched from the stand-in GitHub.
  await page.locator('#run-detail .reason', { hasText: 'demo-oracle' }).waitFor({ timeout: 60_000 });
  await page.locator('#run-detail #reference-side .patch-files').waitFor({ timeout: 30_000 });
  return page;
}

describe('the run detail of a real run explains its verdict', () => {
  let page: Page;
  beforeAll(async () => {
    page = await openDetail(1440, 900);
  }, 120_000);
  afterAll(() => page?.close());

  it('shows the verdict with its source, the reason, the rubric with the disagreement marked, and the failing tests in one screen', async () => {
    const detail = page.locator('#run-detail');
    const passed = (run.hiddenTest.hiddenTestResult as { status: string }).status === 'pass';
    expect(await detail.locator('.verdict-main').innerText()).toBe(passed ? 'resolved' : 'not resolved');
    expect(await detail.locator('.verdict-source').innerText()).toMatch(/source: hidden tests/);
    expect(await detail.locator('.judge-beside').innerText()).toContain(`by ${DEMO_JUDGE_MODEL}`);

    const sameFiles = detail.locator('table.rubric tr', { hasText: 'Same files as the fix' });
    expect(await sameFiles.getAttribute('data-disagree')).toBe('true');
    expect(await sameFiles.innerText()).toMatch(/Same files as the fix\s+yes\s+no ≠ disagrees/);
    // The candidate's own tests, computed from its diff beside the judge's "Test added".
    const { changesTest } = verdictChecks(
      run.delivery.patch as string,
      '',
      { diff: fixOf(run), omittedLockFiles: [] },
      '',
    );
    const testAdded = detail.locator('table.rubric tr', { hasText: 'Test added' });
    expect((await testAdded.locator('td').nth(1).innerText()).split(' ')[0]).toBe(changesTest ? 'yes' : 'no');
    const disagreeing = (await testAdded.getAttribute('data-disagree')) === 'true' ? 2 : 1;
    expect(await detail.locator('table.rubric tr[data-disagree="true"]').count()).toBe(disagreeing);
    const rubric = await detail.locator('table.rubric').innerText();
    for (const q of ['Root cause found', 'Would compile']) expect(rubric).toContain(q);

    expect(await detail.locator('.failed-tests li').allInnerTexts()).toEqual(failedOf(run));

    await page.screenshot({ path: `${SHOTS}/run-detail-1440.png` });
    // All of it above the fold at 1440×900, with the diffs starting on the same screen.
    for (const part of ['.verdict-main', '.reason', 'table.rubric', '.failed-tests', '.diffs-head']) {
      const box = (await detail.locator(part).boundingBox())!;
      expect(box.y + Math.min(box.height, 40)).toBeLessThanOrEqual(900);
      expect(box.y).toBeGreaterThanOrEqual(0);
    }
    expect(await detail.evaluate((d) => d.scrollTop)).toBe(0);
  });

  it('lays the candidate beside the real merged fix with diff2html, marks the files each changes, and toggles split', async () => {
    const detail = page.locator('#run-detail');
    const candidateFiles = filesOf(run.delivery.patch as string);
    const fixFiles = filesOf(fixOf(run));
    for (const path of new Set([...candidateFiles, ...fixFiles])) {
      const mark =
        candidateFiles.includes(path) && fixFiles.includes(path)
          ? 'both'
          : candidateFiles.includes(path)
            ? 'candidate only'
            : 'fix only';
      expect(await detail.locator('table.files tr', { hasText: path }).first().getAttribute('data-touched')).toBe(mark);
    }
    const [candidate, fix] = [
      (await detail.locator('#candidate-side').boundingBox())!,
      (await detail.locator('#reference-side').boundingBox())!,
    ];
    expect(fix.x).toBeGreaterThan(candidate.x + candidate.width - 1);
    expect(await detail.locator('#candidate-side .d2h-file-wrapper').count()).toBe(candidateFiles.length);
    expect(await detail.locator('#candidate-side .d2h-file-side-diff').count()).toBe(0);

    await detail.locator('[data-layout="side-by-side"]').click();
    expect(await detail.locator('[data-layout="side-by-side"]').getAttribute('aria-pressed')).toBe('true');
    expect(await detail.locator('#candidate-side .d2h-file-side-diff').count()).toBe(2 * candidateFiles.length);
    await detail.locator('[data-layout="line-by-line"]').click();
    expect(await detail.locator('#run-attempts tbody tr').count()).toBe(1);
  });

  it.each([
    [1024, 768],
    [800, 700],
  ])('stays readable at %i px: no sideways page scroll', async (width, height) => {
    const p = await openDetail(width, height);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await p.screenshot({ path: `${SHOTS}/run-detail-${width}.png` });
    await p.close();
  });
});

/** Before any script of the page: the layout shifts, and the font and text of every label a canvas paints. */
const INSTRUMENT = () => {
  const w = window as unknown as { __shift: number; __painted: { font: string; text: string }[] };
  w.__shift = 0;
  w.__painted = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
      if (!e.hadRecentInput) w.__shift += e.value;
  }).observe({ type: 'layout-shift', buffered: true });
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (this: CanvasRenderingContext2D, text: string, ...rest) {
    w.__painted.push({ font: this.font, text });
    return fillText.call(this, text, ...(rest as [number, number]));
  };
};

describe('the cockpit on a 1024×768 laptop', () => {
  let page: Page;
  const harnesses = [
    ...new Set(campaign.runs.map((r) => (r.delivery.row as { harnessVersion: string }).harnessVersion)),
  ];
  beforeAll(async () => {
    page = await cockpit.browser.newPage({ viewport: { width: 1024, height: 768 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.addInitScript(INSTRUMENT);
    await page.goto(`${cockpit.local.url}/`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
    await settled(page);
  }, 120_000);
  afterAll(() => page?.close());

  it('lays out late cards in the room they reserved: cumulative layout shift under 0.05', async () => {
    expect(await page.evaluate(() => (window as unknown as { __shift: number }).__shift)).toBeLessThan(0.05);
  });

  it('keeps the banners to one line each, together at most a tenth of the height, with details on demand', async () => {
    const banners = page.locator('#banners .banner');
    // The harness banner; no generated-figures banner, since every Lite figure is measured or unknown.
    expect(await banners.count()).toBe(1);
    const heights = await banners.evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().height));
    const line = await banners.first().evaluate((b) => Number.parseFloat(getComputedStyle(b).lineHeight) || 18);
    for (const h of heights) expect(h).toBeLessThan(2 * line);
    expect(heights.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(768 * 0.1);
    await page.screenshot({ path: `${SHOTS}/laptop-1024-dashboard.png` });

    const warning = page.locator('#harness-warning');
    expect(await warning.locator('p').isVisible()).toBe(false);
    await warning.locator('summary').click();
    expect(await warning.locator('p').innerText()).toContain(harnesses.sort()[0]!);
    await warning.locator('summary').click();
  });

  it('writes every configuration with its whole harness version, and paints the matrix labels at 12 px or more', async () => {
    const labels = await page.locator('.bar-label').evaluateAll((ls) =>
      ls.map((l) => ({
        text: l.textContent!,
        cut: l.scrollWidth > l.clientWidth + 1,
        title: l.getAttribute('title'),
      })),
    );
    const configurations = labels.filter((l) => l.text.includes(' · '));
    expect(configurations.length).toBeGreaterThanOrEqual(harnesses.length);
    for (const l of configurations) {
      expect(harnesses.some((h) => l.text.endsWith(` · ${h}`))).toBe(true);
      expect(l.cut).toBe(false);
      expect(l.title).toBe(l.text);
    }
    await page.locator('#chart-matrix').scrollIntoViewIfNeeded();
    const painted = await page.evaluate(() =>
      (window as unknown as { __painted: { font: string; text: string }[] }).__painted.filter((p) =>
        p.text.includes(' · '),
      ),
    );
    expect(painted.length).toBeGreaterThan(0);
    for (const p of painted) {
      expect(Number.parseFloat(/(\d+(?:\.\d+)?)px/.exec(p.font)![1]!)).toBeGreaterThanOrEqual(12);
      expect(harnesses.some((h) => p.text.endsWith(` · ${h}`))).toBe(true);
    }
  });

  it('has "skip to content" as the first Tab stop, and reaches the first chart within 10 Tab stops', async () => {
    const page = await cockpit.browser.newPage({ viewport: { width: 1024, height: 768 } });
    await page.goto(`${cockpit.local.url}/`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    let stops = 1;
    await page.keyboard.press('Enter');
    const inFirstChart = () =>
      page.evaluate(() => {
        const first = document.querySelector('#dashboard-area .card');
        return !!first && first.contains(document.activeElement);
      });
    while (!(await inFirstChart()) && stops < 10) {
      await page.keyboard.press('Tab');
      stops++;
    }
    expect(await inFirstChart()).toBe(true);
    expect(stops).toBeLessThanOrEqual(10);
    await page.close();
  });

  it.each([1024, 800])('scrolls the runs grid inside itself, never the page sideways, at %i px', async (width) => {
    const p = await cockpit.browser.newPage({ viewport: { width, height: 768 } });
    await p.goto(`${cockpit.local.url}/?view=runs`);
    await p.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
    await p.locator('.grid-row').first().waitFor();
    const { scroll, client } = await p.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(scroll).toBeLessThanOrEqual(client);
    await p.screenshot({ path: `${SHOTS}/laptop-${width}-runs.png` });
    await p.close();
  });
});
