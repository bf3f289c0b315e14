// Local mode end to end with the judge's stand-ins: a signed run pushed over HTTP is judged through the
// real SDKs and its verdict is readable from the API; retries and a refused key are handled by the local
// sweeper.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import {
  startAnthropicStandIn,
  type AnthropicStandIn,
  type MessagesRequest,
  type StandInAnswer,
} from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn, type GitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { gitHubAppKeyPair, goodAnswer } from '../helpers/judge.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const BASE = 'a'.repeat(40);
const MERGE = 'b'.repeat(40);
const REFERENCE =
  'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n';
const key = 'k-studio';

let local: TestLocalMode;
let anthropic: AnthropicStandIn;
let github: GitHubStandIn;
let answer: (request: MessagesRequest) => StandInAnswer = () => goodAnswer();

beforeAll(async () => {
  const { privateKey, publicKey } = gitHubAppKeyPair();
  anthropic = await startAnthropicStandIn({ apiKey: 'sk-local', answer: (r) => answer(r) });
  github = await startGitHubStandIn({ app: { appId: '11', installationId: '22', publicKey } });
  github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'On empty input.' });
  github.setCompare('acme/widgets', BASE, MERGE, REFERENCE);
  const env = {
    ANTHROPIC_API_KEY: 'sk-local',
    ANTHROPIC_BASE_URL: anthropic.url,
    GITHUB_API_URL: github.url,
    GITHUB_APP_ID: '11',
    GITHUB_APP_INSTALLATION_ID: '22',
    // As it is usually written into an environment: one line, with escaped line breaks.
    GITHUB_APP_PRIVATE_KEY: privateKey.replaceAll('\n', '\\n'),
  };
  local = await startTestLocalMode(
    { defaultJudgeModel: 'claude-test-judge', spaces: { Main: { senders: ['mac-studio-1'] } } },
    { 'mac-studio-1': key },
    { sweepIntervalSeconds: 0.3, judgeRetryBaseSeconds: 0.5, env },
  );
});
afterAll(async () => {
  await local.stop();
  await Promise.all([anthropic.stop(), github.stop()]);
});

const getRow = async (id: string) => {
  const res = await fetch(`${local.url}/api/spaces/Main/runs/${encodeURIComponent(id)}`);
  return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
};

async function pushTask(taskId: string): Promise<string> {
  expect(
    (await pushDelivery(local.url, 'Main', issueDelivery({ taskId, baseSha: BASE, mergeSha: MERGE }), key)).status,
  ).toBe(202);
  const run = runDelivery({ taskId });
  expect((await pushDelivery(local.url, 'Main', run, key)).status).toBe(202);
  return run.id as string;
}

describe('the judge in local mode', () => {
  // How fast the verdict shows is measured by bench/judge.ts.
  it('shows the verdict of a pushed run via the read API', async () => {
    answer = () => goodAnswer({ verdict: 'partial', reason: 'Only one of two cases.' });
    const id = await pushTask('e2e-1');
    const row = await eventually(
      async () => {
        const r = await getRow(id);
        return r?.judgeVerdict ? r : null;
      },
      10_000,
      25,
    );
    expect(row).toMatchObject({
      judgeVerdict: 'partial',
      judgeState: 'judged',
      judgeReason: 'Only one of two cases.',
      judgeAttempts: 1,
      judgeSameFilesComputed: true,
    });
    expect(github.tokenRequests.at(-1)).toEqual({
      installationId: '22',
      repositories: ['widgets'],
      permissions: { contents: 'read', issues: 'read' },
    });
  });

  it('retries a malformed answer on the sweeper schedule and then records the verdict', async () => {
    let calls = 0;
    answer = () => (++calls === 1 ? 'resolved, I would say' : goodAnswer());
    const id = await pushTask('e2e-retry');
    const row = await eventually(
      async () => {
        const r = await getRow(id);
        return r?.judgeVerdict ? r : null;
      },
      10_000,
      50,
    );
    expect(row).toMatchObject({ judgeVerdict: 'resolved', judgeAttempts: 2, judgeLastError: null });
  });

  it('pauses on a refused key, keeps the row waiting, and resumes through a sweeper probe', async () => {
    answer = () => ({ status: 401, message: 'invalid x-api-key' });
    const id = await pushTask('e2e-paused');
    const paused = await eventually(async () => {
      const r = await getRow(id);
      return r?.judgeState === 'paused' ? r : null;
    });
    expect(paused).toMatchObject({ judgeAttempts: 0, judgeVerdict: null, judgeLastError: { code: 'bad-credentials' } });
    answer = () => goodAnswer();
    const judged = await eventually(
      async () => {
        const r = await getRow(id);
        return r?.judgeVerdict ? r : null;
      },
      10_000,
      50,
    );
    expect(judged).toMatchObject({ judgeVerdict: 'resolved', judgeState: 'judged', judgeAttempts: 1 });
  });
});
