// Local mode across a restart: a run that waited for judge credentials is judged once local mode comes back
// with them, although the emulated judge queue lost everything (the start-up sweep finds it).
import { afterAll, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { startAnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { goodAnswer } from '../helpers/judge.ts';
import { eventually, startTestLocalMode } from '../helpers/local-mode.ts';

const CONFIG = { defaultJudgeModel: 'claude-test-judge', spaces: { S: { senders: ['mac-studio-1'] } } };
const KEYS = { 'mac-studio-1': 'restart-key' };
const running: { stop(): Promise<void> }[] = [];
afterAll(() => Promise.all(running.map((r) => r.stop())));

it('judges a run that waited for credentials once local mode restarts with them', async () => {
  const anthropic = await startAnthropicStandIn({ answer: () => goodAnswer({ verdict: 'wrong' }) });
  const github = await startGitHubStandIn({ token: 'ghp-local' });
  running.push(anthropic, github);
  github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'On empty input.' });
  github.setCompare(
    'acme/widgets',
    'a'.repeat(40),
    'b'.repeat(40),
    'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n',
  );

  // Sweeps half a minute apart: after the start-up sweep, none runs while the test watches.
  const logged: string[] = [];
  const first = await startTestLocalMode(CONFIG, KEYS, {
    restartable: true,
    env: {},
    sweepIntervalSeconds: 30,
    log: (line) => logged.push(line),
  });
  running.push(first);
  expect(logged.join('\n')).toContain('waiting-credentials');
  await pushDelivery(first.url, 'S', issueDelivery(), 'restart-key');
  const run = runDelivery();
  await pushDelivery(first.url, 'S', run, 'restart-key');
  const path = `/api/spaces/S/runs/${encodeURIComponent(run.id as string)}`;
  await eventually(
    async () =>
      ((await (await fetch(first.url + path)).json()) as { judgeState?: string }).judgeState === 'waiting-credentials',
    20_000,
  );
  running.splice(running.indexOf(first), 1);
  await first.stop();

  const second = await startTestLocalMode(CONFIG, KEYS, {
    dataDir: first.dataDir,
    keysDir: first.keysDir,
    sweepIntervalSeconds: 30,
    env: {
      ANTHROPIC_API_KEY: 'sk-local',
      ANTHROPIC_BASE_URL: anthropic.url,
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN: 'ghp-local',
    },
  });
  running.push(second);
  const row = await eventually(async () => {
    const r = (await (await fetch(second.url + path)).json()) as { judgeVerdict?: string | null };
    return r.judgeVerdict ? r : null;
  }, 20_000);
  expect(row).toMatchObject({ judgeVerdict: 'wrong', judgeState: 'judged', judgeAttempts: 1 });
  expect(anthropic.requests).toHaveLength(1);
  expect(github.requests.filter((r) => r.path.startsWith('/repos/')).every((r) => r.credential === 'token')).toBe(true);
}, 60_000); // two local-mode starts on a shared machine
