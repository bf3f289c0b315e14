// The demo campaign (100 tasks, ~1,300 runs) judged into local mode with a page open on its dashboard: the world
// of cockpit.test.ts and cockpit-interaction.test.ts, each file starting its own.
import { afterAll, beforeAll, expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { buildCampaign, readSourceRuns, type DemoRun } from '#demo/campaign.ts';
import { DEMO_JUDGE_MODEL } from '#demo/judge.ts';
import { pushDelivery } from '#runner/push.ts';
import { analysisPages } from './analysis-page.ts';
import { startJudgedCockpit, type JudgedCockpit } from './judged-campaign.ts';

const SPACE = 'DemoSpace';
export const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const config = {
  defaultJudgeModel: DEMO_JUDGE_MODEL,
  spaces: {
    [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 100_000 } },
    Other: { senders: ['other-host'] },
  },
  cockpits: { Demo: { space: SPACE }, Elsewhere: { space: 'Other' } },
};
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2', 'other-host': 'key-3' };
const VIEWPORT = { width: 1280, height: 800 };

export const campaign = buildCampaign(readSourceRuns(), { tasks: 100, seed: 7, hosts: HOSTS });
/** Runs kept back from the initial load, to be pushed while the page is open. */
export const live = campaign.runs
  .filter((r) => (r.delivery.patch as string) && !(r.delivery.row as { contamination: unknown[] }).contamination.length)
  .slice(0, 2);
/** Model and harness version pairs of the campaign: one tile, bar and table row each. */
export const groups = new Set(
  campaign.runs.map(
    (r) =>
      `${(r.delivery.row as { model: string }).model}|${(r.delivery.row as { harnessVersion: string }).harnessVersion}`,
  ),
).size;

/**
 * Local mode with the campaign judged but for `live`, and `world.page` open on the dashboard, which tests of one
 * file share in order. Starts before the file's tests and stops after them.
 */
export function demoCockpit() {
  const world = {} as { cockpit: JudgedCockpit; page: Page };
  const pages = analysisPages(
    () => world.cockpit.local,
    () => world.cockpit.browser,
  );
  /** A fresh page on `path`, ready and settled. */
  const openPage = (path = '/', viewport = VIEWPORT) => pages.open(path, viewport);
  const statusText = () => world.page.locator('#live-status').innerText();
  beforeAll(async () => {
    const held = new Set(live.map((r) => r.id));
    world.cockpit = await startJudgedCockpit(
      config,
      keys,
      SPACE,
      campaign,
      campaign.runs.filter((r) => !held.has(r.id)),
    );
    world.page = await openPage();
  }, 240_000);
  afterAll(() => world.cockpit?.stop());
  return {
    world,
    openPage,
    statusText,
    runsInView: async () => Number(/([\d,]+) of [\d,]+ runs/.exec(await statusText())![1]!.replace(/,/g, '')),
    async push(run: Pick<DemoRun, 'delivery' | 'host'>) {
      const { local } = world.cockpit;
      const answer = await pushDelivery(local.url, SPACE, run.delivery, local.keyOf(run.host));
      expect(answer.status).toBe(202);
    },
  };
}
