// A demo campaign already landed and judged by the oracle, loaded straight into local mode's table, so a
// browser test starts from a full cockpit without pushing hundreds of deliveries.
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import {
  judged,
  landedRow,
  loadIssues,
  loadRows,
  storedIssue,
  type JudgeAnswerFields,
} from '../../../bench/direct-load.ts';
import { type DemoCampaign, type DemoRun } from '../../../infra/local/demo-campaign.ts';
import { oracleAnswer, startDemoJudge, DEMO_JUDGE_MODEL, type DemoJudge } from '../../../infra/local/demo-judge.ts';
import type { DynamoStore } from '../../../shared/adapters/aws/dynamo-store.ts';
import { startTestLocalMode, type TestLocalMode } from '../../helpers/local-mode.ts';
import { launchChromium } from './chromium.ts';

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
  const local = await startTestLocalMode(config, keys, { sweepIntervalSeconds: 2, env: judge.env });
  await loadJudgedCampaign(local.adapters.table, space, campaign, runs);
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
  const now = new Date().toISOString();
  await loadIssues(
    table,
    campaign.issues.map((i) => storedIssue(space, i, now)),
  );
  await loadRows(
    table,
    runs.map((r) =>
      judged(
        landedRow(space, r.delivery, now, r.hiddenTest),
        oracleAnswer(r) as unknown as JudgeAnswerFields,
        DEMO_JUDGE_MODEL,
        now,
      ),
    ),
  );
}
