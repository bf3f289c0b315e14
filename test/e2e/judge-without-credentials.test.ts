// Local mode with no judge credentials at all: runs land and wait, say why, and burn no attempts.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { pushDelivery } from '../../shared/client/push.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

let local: TestLocalMode;
const logged: string[] = [];
beforeAll(async () => {
  local = await startTestLocalMode({ spaces: { Main: { senders: ['mac-studio-1'] } } }, { 'mac-studio-1': 'k' }, { sweepIntervalSeconds: 0.2, log: (line) => logged.push(line) });
});
afterAll(() => local.stop());

it('keeps a landed run waiting for credentials, says why, and spends no attempts', async () => {
  await pushDelivery(local.url, 'Main', issueDelivery(), 'k');
  const run = runDelivery();
  await pushDelivery(local.url, 'Main', run, 'k');
  const url = `${local.url}/api/spaces/Main/runs/${encodeURIComponent(run.id as string)}`;
  const row = await eventually(async () => {
    const r = (await (await fetch(url)).json()) as Record<string, unknown>;
    return r.judgeState === 'waiting-credentials' ? r : null;
  });
  expect(row).toMatchObject({ judgeVerdict: null, judgeAttempts: 0, judgeLastError: { code: 'no-credentials', message: expect.stringContaining('Anthropic API key') } });
  expect(logged.some((line) => line.includes('waiting-credentials'))).toBe(true);

  // Several sweeps later nothing has changed.
  await new Promise((r) => setTimeout(r, 1000));
  expect(await (await fetch(url)).json()).toMatchObject({ judgeState: 'waiting-credentials', judgeAttempts: 0, updatedAt: row.updatedAt });
});
