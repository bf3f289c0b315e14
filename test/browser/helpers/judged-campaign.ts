// A demo campaign already landed and judged by the oracle, loaded straight into local mode's table, so a
// browser test starts from a full cockpit without pushing hundreds of deliveries.
import { judged, landedRow, loadIssues, loadRows, storedIssue, type JudgeAnswerFields } from '../../../bench/direct-load.ts';
import { oracleAnswer, DEMO_JUDGE_MODEL, type DemoCampaign, type DemoRun } from '../../../infra/local/demo-campaign.ts';
import type { DynamoStore } from '../../../shared/adapters/aws/dynamo-store.ts';

export async function loadJudgedCampaign(table: DynamoStore, space: string, campaign: DemoCampaign, runs: DemoRun[] = campaign.runs): Promise<void> {
  const now = new Date().toISOString();
  await loadIssues(table, campaign.issues.map((i) => storedIssue(space, i, now)));
  await loadRows(
    table,
    runs.map((r) => judged(landedRow(space, r.delivery, now, r.hiddenTest), oracleAnswer(r) as unknown as JudgeAnswerFields, DEMO_JUDGE_MODEL, now)),
  );
}
