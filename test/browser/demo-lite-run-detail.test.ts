// A real run of the default demo (data/swe-bench-lite/) in the run detail, in headless Chromium: delivered signed,
// judged by the stand-in, it shows its real candidate patch beside the task's real merged fix, and its hidden
// tests by name — the failing ones listed first, then the passing ones folded away.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { DEMO_JUDGE_MODEL } from '#demo/judge.ts';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign } from '#demo/lite-campaign.ts';
import { pushDelivery } from '#runner/push.ts';

const SPACE = 'LiteDetail';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2' };
const config = {
  spaces: { [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL } } },
  cockpits: { Lite: { space: SPACE } },
};
const data = readDemoData();
const campaign = buildLiteCampaign(data, { tasks: 30, seed: 7, hosts: HOSTS });
type Hidden = { failedTests?: string[]; passedTests?: string[] };
const hiddenOf = (r: (typeof campaign.runs)[number]) => r.hiddenTest.hiddenTestResult as Hidden;
const run = campaign.runs.find((r) => {
  const { failedTests = [], passedTests = [] } = hiddenOf(r);
  return failedTests.length >= 2 && failedTests.length <= 20 && passedTests.length >= 5;
})!;
const taskId = (run.delivery.row as { taskId: string }).taskId;
const task = data.tasks.find((t) => t.instanceId === taskId)!;

let cockpit: JudgedCockpit;
let page: Page;

beforeAll(async () => {
  cockpit = await startJudgedCockpit(config, keys, SPACE, campaign, []);
  const push = (delivery: Record<string, unknown>) =>
    pushDelivery(cockpit.local.url, SPACE, delivery as never, keys[run.host as keyof typeof keys]);
  await push({ kind: 'issue', host: run.host, issue: campaign.issues.find((i) => i.taskId === taskId) });
  expect((await push(run.delivery)).status).toBe(202);
  expect((await push(run.hiddenTest)).status).toBe(202);
  page = await cockpit.browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${cockpit.local.url}/?view=runs&run=${encodeURIComponent(run.id)}`);
}, 120_000);

afterAll(() => cockpit?.stop());

describe('a real SWE-bench Lite run in the run detail', () => {
  it('shows its real patch beside the real merged fix, once the stand-in judge has read it', async () => {
    const detail = page.locator('#run-detail');
    const firstAdded = (diff: string) =>
      diff.split('\n').find((l) => l.startsWith('+') && !l.startsWith('+++') && l.trim().length > 8)!;
    await detail
      .locator('#candidate-side .patch-files', { hasText: firstAdded(run.delivery.patch as string).slice(1) })
      .waitFor();
    await detail
      .locator('#reference-side .patch-files', { hasText: firstAdded(task.goldPatch).slice(1) })
      .waitFor({ timeout: 30_000 });
    await detail.locator('.reason', { hasText: 'demo-oracle' }).waitFor({ timeout: 30_000 });
  });

  it('lists the failing tests first, then the passing ones folded', async () => {
    const { failedTests, passedTests } = hiddenOf(run);
    const box = page.locator('#run-detail .tests-box');
    await box.locator('.failed-tests li').first().waitFor({ timeout: 30_000 });
    expect(await box.locator('.failed-tests li').allInnerTexts()).toEqual(failedTests);
    expect(await box.locator('.failed-tests strong').innerText()).toBe(`Failing tests (${failedTests!.length})`);
    const passing = box.locator('details.passed-tests');
    expect(await passing.locator('summary').innerText()).toBe(`Passing tests (${passedTests!.length})`);
    expect(await passing.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await passing.locator('li').first().isVisible()).toBe(false);
    const order = await box.evaluate((b) =>
      [...b.querySelectorAll('.failed-tests, .passed-tests')].map((e) => e.className),
    );
    expect(order).toEqual(['failed-tests', 'passed-tests']);
    await page.screenshot({ path: `${SHOTS}/demo-lite-run-detail-tests.png` });

    await passing.locator('summary').click();
    expect(await passing.locator('li').allInnerTexts()).toEqual(passedTests);
  });
});
