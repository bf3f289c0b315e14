// `npm run demo` delivers its campaign as a runner host would: run folders, then replay-push's sync core.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildCampaign, readSourceRuns } from '#demo/campaign.ts';
import { deliverCampaign, writeCampaignFolders } from '#demo/delivery.ts';
import { ingestUrl } from '#runner/push.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { tempDir } from '../helpers/run-folders.ts';

const HOSTS = ['demo-runner-1', 'demo-runner-2'];
let local: TestLocalMode;

beforeAll(async () => {
  local = await startTestLocalMode({ spaces: { Demo: { senders: HOSTS } } }, {});
});
afterAll(async () => {
  await local.stop();
});

describe('the demo campaign delivered through run folders', () => {
  it('lands every run with its generated figures, issue and hidden-test outcome, and a second delivery finds them accepted', async () => {
    // One task whose runs come from both hosts, resolved and not, one of them contaminated.
    const campaign = buildCampaign(readSourceRuns(), { tasks: 1, seed: 129, hosts: HOSTS });
    expect(new Set(campaign.runs.map((r) => r.host))).toEqual(new Set(HOSTS));
    expect(new Set(campaign.runs.map((r) => r.resolved))).toEqual(new Set([true, false]));
    expect(campaign.runs.some((r) => (r.delivery.row as { contamination: unknown[] }).contamination.length)).toBe(true);
    const runsRoot = join(tempDir('replay-demo-'), 'runs');
    const folders = writeCampaignFolders(campaign, runsRoot);
    const options = { endpoint: ingestUrl(local.url, 'Demo'), keysDir: local.keysDir };

    const first = await deliverCampaign(runsRoot, folders, options);
    expect(first.answers).toEqual({
      accepted: { issues: 1, runs: campaign.runs.length, hiddenTests: campaign.runs.length },
      rejected: { issues: 0, runs: 0, hiddenTests: 0 },
    });

    type Row = {
      id: string;
      steps: number;
      metricsSource: string;
      contamination: unknown[];
      patchLinesAdded: number;
      hiddenTestResult: { status: string } | null;
    };
    const rows = await eventually(async () => {
      const { runs } = (await (await fetch(`${local.url}/api/spaces/Demo/runs`)).json()) as { runs: Row[] };
      return runs.length === campaign.runs.length && runs.every((r) => r.hiddenTestResult) && runs;
    }, 15_000);
    for (const run of campaign.runs) {
      const row = rows.find((r) => r.id === run.id)!;
      const sent = run.delivery.row as Row;
      expect(row).toMatchObject({
        steps: sent.steps,
        metricsSource: 'generated',
        contamination: sent.contamination,
        patchLinesAdded: sent.patchLinesAdded,
      });
      expect(row.hiddenTestResult!.status).toBe(run.resolved ? 'pass' : 'fail');
    }

    const again = await deliverCampaign(runsRoot, writeCampaignFolders(campaign, runsRoot), options);
    expect(again.report).toMatchObject({ delivered: 0, alreadyAccepted: campaign.runs.length, queued: 0, rejected: 0 });
  }, 120_000); // a whole campaign through replay-push and local mode
});
