// Local mode with no judge credentials at all: runs land and wait, say why, and burn no attempts.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import { sweep } from '#core/judge/sweep.ts';
import { systemClock } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import { issueDelivery, runDelivery } from '../helpers/deliveries.ts';
import { eventually, queueDrained, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

const config = { spaces: { Main: { senders: ['mac-studio-1'] } } };
let local: TestLocalMode;
const logged: string[] = [];
beforeAll(async () => {
  // Local mode's own sweeps are an hour apart: this test runs its sweeps itself and watches each one through.
  local = await startTestLocalMode(
    config,
    { 'mac-studio-1': 'k' },
    { sweepIntervalSeconds: 3600, log: (line) => logged.push(line) },
  );
});
afterAll(() => local.stop());

it('keeps a landed run waiting for credentials, says why, and spends no attempts', async () => {
  await pushDelivery(local.url, 'Main', issueDelivery(), 'k');
  const run = runDelivery();
  await pushDelivery(local.url, 'Main', run, 'k');
  const url = `${local.url}/api/spaces/Main/runs/${encodeURIComponent(run.id)}`;
  const row = await eventually(async () => {
    const r = (await (await fetch(url)).json()) as Record<string, unknown>;
    return r.judgeState === 'waiting-credentials' ? r : null;
  });
  expect(row).toMatchObject({
    judgeVerdict: null,
    judgeAttempts: 0,
    judgeLastError: { code: 'no-credentials', message: expect.stringContaining('Anthropic API key') },
  });
  expect(logged.some((line) => line.includes('waiting-credentials'))).toBe(true);

  // Several sweeps later, each sending the run to the judge as the space's probe, nothing has changed.
  const sweepDeps = {
    config: parseConfig(config),
    runs: local.adapters.table,
    judging: local.adapters.table,
    batches: local.adapters.table,
    judgeQueue: local.adapters.judgeQueue,
    clock: systemClock,
  };
  for (let i = 0; i < 3; i++) {
    expect(await sweep(sweepDeps)).toEqual([{ space: 'Main', queued: 1, probe: run.id }]);
    await queueDrained(local, 'judge');
  }
  expect(await (await fetch(url)).json()).toMatchObject({
    judgeState: 'waiting-credentials',
    judgeAttempts: 0,
    updatedAt: row.updatedAt,
  });
});
