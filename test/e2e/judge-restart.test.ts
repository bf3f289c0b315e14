// `npm start` across a restart: a run that waited for judge credentials is judged once local mode comes
// back with them, although the emulated judge queue lost everything (the start-up sweep finds it).
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { pushDelivery } from '../../shared/runner/push.ts';
import { startAnthropicStandIn } from '../../infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn } from '../../infra/local/stand-ins/github-stand-in.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { goodAnswer } from '../helpers/judge.ts';
import { eventually } from '../helpers/local-mode.ts';
import { killProcess, startLocalProcess, type LocalProcess } from '../helpers/local-process.ts';

const started: LocalProcess[] = [];
const standIns: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  started.forEach(killProcess);
  await Promise.all(standIns.map((s) => s.stop()));
});

async function startLocal(env: Record<string, string>): Promise<LocalProcess> {
  const local = await startLocalProcess(env);
  started.push(local);
  return local;
}

// Two cold starts of `npm start` take 10–16 s on a loaded two-core machine.
it('judges a run that waited for credentials once local mode restarts with them', async () => {
  const anthropic = await startAnthropicStandIn({ answer: () => goodAnswer({ verdict: 'wrong' }) });
  const github = await startGitHubStandIn({ token: 'ghp-local' });
  standIns.push(anthropic, github);
  github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'On empty input.' });
  github.setCompare(
    'acme/widgets',
    'a'.repeat(40),
    'b'.repeat(40),
    'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n',
  );

  const dir = mkdtempSync(join(tmpdir(), 'replay-judge-restart-'));
  mkdirSync(join(dir, 'keys'));
  writeFileSync(join(dir, 'keys', 'Hosting__ModuleReportSecret__mac-studio-1'), 'restart-key');
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ defaultJudgeModel: 'claude-test-judge', spaces: { S: { senders: ['mac-studio-1'] } } }),
  );
  const noCredentials = {
    ANTHROPIC_API_KEY: '',
    GITHUB_TOKEN: '',
    GITHUB_APP_ID: '',
    GITHUB_APP_PRIVATE_KEY: '',
    GITHUB_APP_INSTALLATION_ID: '',
  };
  const env = {
    REPLAY_CONFIG: join(dir, 'config.json'),
    REPLAY_DATA_DIR: join(dir, 'data'),
    REPLAY_KEYS_DIR: join(dir, 'keys'),
    REPLAY_SWEEP_SECONDS: '30',
  };

  const first = await startLocal({ ...env, ...noCredentials });
  expect(first.output()).toContain('waiting-credentials');
  await pushDelivery(first.url, 'S', issueDelivery(), 'restart-key');
  const run = runDelivery();
  await pushDelivery(first.url, 'S', run, 'restart-key');
  const path = `/api/spaces/S/runs/${encodeURIComponent(run.id as string)}`;
  await eventually(
    async () =>
      ((await (await fetch(first.url + path)).json()) as { judgeState?: string }).judgeState === 'waiting-credentials',
    20_000,
    100,
  );
  await killProcess(first);

  const second = await startLocal({
    ...env,
    ANTHROPIC_API_KEY: 'sk-local',
    ANTHROPIC_BASE_URL: anthropic.url,
    GITHUB_API_URL: github.url,
    GITHUB_TOKEN: 'ghp-local',
  });
  const row = await eventually(
    async () => {
      const r = (await (await fetch(second.url + path)).json()) as { judgeVerdict?: string | null };
      return r.judgeVerdict ? r : null;
    },
    20_000,
    100,
  );
  expect(row).toMatchObject({ judgeVerdict: 'wrong', judgeState: 'judged', judgeAttempts: 1 });
  expect(anthropic.requests).toHaveLength(1);
  expect(github.requests.filter((r) => r.path.startsWith('/repos/')).every((r) => r.credential === 'token')).toBe(true);
}, 90_000);
