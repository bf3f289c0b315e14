// `npm run demo` on the real SWE-bench Lite runs: the run folders it writes carry each run's real candidate
// patch and hidden-test result with its test names, and once delivered and judged by the stand-in, the
// original fix the judge read (and the cockpit shows) is the task's real merged fix.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliverCampaign, writeCampaignFolders } from '#demo/delivery.ts';
import { startDemoJudge, type DemoJudge } from '#demo/judge.ts';
import { readDemoData } from '#demo/data.ts';
import { buildLiteCampaign } from '#demo/lite-campaign.ts';
import { ingestUrl } from '#runner/push.ts';
import { apiPaths, type ReferenceBody } from '#analytics/contract.ts';
import type { RunRow } from '#schema/run.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { tempDir } from '../helpers/run-folders.ts';

const HOSTS = ['demo-runner-1', 'demo-runner-2'];
const data = readDemoData();
// Two tasks of the fixed-seed order: eight runs, four agents each.
const campaign = buildLiteCampaign(data, { tasks: 2, seed: 7, hosts: HOSTS });
let judge: DemoJudge;
let local: TestLocalMode;

beforeAll(async () => {
  judge = await startDemoJudge(campaign);
  local = await startTestLocalMode(
    {
      // A deployment's retry base: a run judged before its task's issue record lands is woken by the record's
      // landing, not by a recheck 5 minutes later, past this test's wait.
      spaces: { Lite: { senders: HOSTS, judge: { model: 'demo-oracle' } } },
      cockpits: { Lite: { space: 'Lite', public: false } },
    },
    {},
    { env: judge.env, sweepIntervalSeconds: 1 },
  );
});
afterAll(async () => {
  await local.stop();
  await judge.stop();
});

const api = async <T>(path: string) => (await (await fetch(`${local.url}/api${path}`)).json()) as T;

describe('the demo on the real SWE-bench Lite runs', () => {
  it('writes run folders with the real patches and test results, and the judge reads the real merged fix', async () => {
    expect(campaign.runs).toHaveLength(8);
    const runsRoot = join(tempDir('replay-demo-lite-'), 'runs');
    const folders = writeCampaignFolders(campaign, runsRoot);
    const recordOf = (run: (typeof campaign.runs)[number]) => {
      const row = run.delivery.row as { model: string; taskId: string };
      const configuration = data.configurations.find((c) => c.model === row.model)!;
      return data.runs.find((r) => r.configuration === configuration.id && r.instanceId === row.taskId)!;
    };
    for (const [k, run] of campaign.runs.entries()) {
      const record = recordOf(run);
      expect(readFileSync(join(folders[k]!, 'candidate.diff'), 'utf8')).toBe(record.patch);
      const hidden = JSON.parse(readFileSync(join(folders[k]!, 'hidden-tests.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(hidden).toMatchObject({ status: record.resolved ? 'pass' : 'fail' });
      expect(hidden.failedTests).toEqual(record.failedTests ?? undefined);
    }

    const done = await deliverCampaign(runsRoot, folders, {
      endpoint: ingestUrl(local.url, 'Lite'),
      keysDir: local.keysDir,
    });
    expect(done.answers.accepted).toEqual({ issues: 2, runs: 8, hiddenTests: 8 });

    for (const run of campaign.runs) {
      const record = recordOf(run);
      const task = data.tasks.find((t) => t.instanceId === record.instanceId)!;
      const row = await eventually(async () => {
        const r = await api<RunRow>(apiPaths.run('Lite', run.id));
        return r.judgeVerdict && r.hiddenTestResult && r;
      }, 60_000); // a message a busy handler failed is received again after local mode's 30 s visibility timeout
      expect(row.judgeModel).toBe('demo-oracle');
      expect(row.judgeReason).toMatch(/^demo-oracle stand-in/);
      expect(row.hiddenTestResult!.failedTests).toEqual(record.failedTests ?? undefined);
      expect(row.hiddenTestResult!.passedTests).toEqual(record.passedTests ?? undefined);
      expect(row.costUsd).toBe(record.costUsd);
      const patch = await (await fetch(`${local.url}/api${apiPaths.patch('Lite', run.id)}`)).text();
      expect(patch).toBe(record.patch);
      const reference = await api<ReferenceBody>(apiPaths.reference('Lite', run.id));
      expect(reference.diff).toBe(task.goldPatch + task.testPatch);
    }
  }, 180_000); // eight runs delivered and judged took over 30 s beside other suites on two cores
});
