// A demo campaign already landed and judged by the oracle, loaded straight into local mode's table, so a
// browser test starts from a full cockpit without pushing hundreds of deliveries.
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { loadIssues, loadRows, storedIssue } from '../../../bench/direct-load.ts';
import { judgedRun } from '../../helpers/judged-demo-runs.ts';
import { buildCampaign, readSourceRuns, type DemoCampaign, type DemoRun } from '#demo/campaign.ts';
import { startDemoJudge, DEMO_JUDGE_MODEL, type DemoJudge } from '#demo/judge.ts';
import type { DynamoStore } from '#adapters/aws/dynamo-store.ts';
import { apiPaths } from '#analytics/contract.ts';
import { AS_OF_SAFETY_MS } from '#core/read/as-of.ts';
import { compactSpace, type SnapshotDeps } from '#core/read/snapshot-store.ts';
import { startTestLocalMode, type TestLocalMode } from '../../helpers/local-mode.ts';
import { analysisPages } from './analysis-page.ts';
import { launchChromium } from './chromium.ts';
import type { ExportedRun } from './independent-figures.ts';

/** Where the browser suites write their screenshots. */
export const SHOTS = 'test-results';

export interface JudgedCockpit {
  local: TestLocalMode;
  judge: DemoJudge;
  browser: Browser;
  stop(): Promise<void>;
}

/**
 * Local mode with the demo judge, `runs` of the campaign loaded judged into `space` (the others are the
 * test's to push), and a browser to look at it.
 */
export async function startJudgedCockpit(
  config: unknown,
  keys: Record<string, string>,
  space: string,
  campaign: DemoCampaign,
  runs: DemoRun[] = campaign.runs,
): Promise<JudgedCockpit> {
  mkdirSync(SHOTS, { recursive: true });
  const judge = await startDemoJudge(campaign);
  // The compactor's schedule is off: one compaction after the load writes the snapshot of runs landed before it,
  // which pages read as a cockpit over earlier runs does, and what the test pushes comes as the table's changes.
  const local = await startTestLocalMode(config, keys, {
    sweepIntervalSeconds: 2,
    snapshotIntervalSeconds: 0,
    env: judge.env,
  });
  await loadJudgedCampaign(local.adapters.table, space, campaign, runs);
  await compactSpace(local.wiring['snapshot-compactor'] as SnapshotDeps, space);
  const browser = await launchChromium();
  return {
    local,
    judge,
    browser,
    async stop() {
      await browser.close();
      await local.stop();
      await judge.stop();
    },
  };
}

export async function loadJudgedCampaign(
  table: DynamoStore,
  space: string,
  campaign: DemoCampaign,
  runs: DemoRun[] = campaign.runs,
): Promise<void> {
  // Written before the snapshot's `asOf` (which trails its compaction by AS_OF_SAFETY_MS), so the snapshot holds
  // them and no page reads them again as changes.
  const now = new Date(Date.now() - 2 * AS_OF_SAFETY_MS).toISOString();
  await loadIssues(
    table,
    campaign.issues.map((i) => storedIssue(space, i, now)),
  );
  await loadRows(
    table,
    runs.map((r) => judgedRun(space, campaign, r, now)),
  );
}

/**
 * The analysts' suites' campaign: 40 demo tasks (seed 11) from two hosts, judged into `space` and shown by one
 * cockpit with `cockpitOptions`; `world.runs` is export.json's runs, for the test to count its own figures.
 * Starts before the file's tests and stops after them.
 */
export function judgedAnalysisCampaign(space: string, cockpit: string, cockpitOptions: Record<string, unknown> = {}) {
  const hosts = ['demo-runner-1', 'demo-runner-2'];
  const config = {
    defaultJudgeModel: DEMO_JUDGE_MODEL,
    spaces: { [space]: { senders: hosts, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 500 } } },
    cockpits: { [cockpit]: { space, ...cockpitOptions } },
  };
  const campaign = buildCampaign(readSourceRuns(), { tasks: 40, seed: 11, hosts });
  const world = { cockpit: undefined as JudgedCockpit | undefined, runs: [] as ExportedRun[] };
  const pages = analysisPages(
    () => world.cockpit!.local,
    () => world.cockpit!.browser,
  );
  beforeAll(async () => {
    world.cockpit = await startJudgedCockpit(config, { [hosts[0]!]: 'k1', [hosts[1]!]: 'k2' }, space, campaign);
    world.runs = (await pages.api<{ runs: ExportedRun[] }>(apiPaths.export(space, 'json'))).runs;
  }, 240_000);
  afterAll(() => world.cockpit?.stop());
  return { pages, world };
}
