// The attempt history over HTTP (docs/contract.md §4, §10): a re-run and a late delivery of an earlier attempt, listed
// newest first by /runs/{id}/attempts, with the current one marked.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { pushDelivery } from '#runner/push.ts';
import type { AttemptsBody } from '#analytics/contract.ts';
import { runDelivery } from '../helpers/deliveries.ts';
import { eventually, startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';

let local: TestLocalMode;
beforeAll(async () => {
  local = await startTestLocalMode(
    { spaces: { Main: { senders: ['mac-studio-1'] } } },
    { 'mac-studio-1': 'k' },
    { sweepIntervalSeconds: 3600 },
  );
});
afterAll(() => local.stop());

it('lists every accepted attempt of a run, newest first, with the current one marked', async () => {
  const attempt = (finishedAt: string, line: string) =>
    runDelivery({ finishedAt }, { patch: `diff --git a/a b/a\n+${line}\n` });
  const second = attempt('2026-11-12T00:00:00Z', 'second');
  const id = second.id as string;
  const url = `${local.url}/api/spaces/Main/runs/${encodeURIComponent(id)}/attempts`;
  const count = async () => (((await (await fetch(url)).json()) as Partial<AttemptsBody>).attempts ?? []).length;

  await pushDelivery(local.url, 'Main', attempt('2026-11-10T00:00:00Z', 'first'), 'k');
  await eventually(async () => (await count()) === 1);
  await pushDelivery(local.url, 'Main', second, 'k');
  await eventually(async () => (await count()) === 2);
  await pushDelivery(local.url, 'Main', attempt('2026-11-08T00:00:00Z', 'late'), 'k');
  await eventually(async () => (await count()) === 3);

  const { attempts } = (await (await fetch(url)).json()) as AttemptsBody;
  expect(attempts.map((a) => [a.finishedAt, a.current, a.judgeVerdict])).toEqual([
    ['2026-11-12T00:00:00.000Z', true, null],
    ['2026-11-10T00:00:00.000Z', false, null],
    ['2026-11-08T00:00:00.000Z', false, null],
  ]);
  const row = (await (await fetch(`${local.url}/api/spaces/Main/runs/${encodeURIComponent(id)}`)).json()) as {
    attemptCount: number;
  };
  expect(row.attemptCount).toBe(3);
  expect((await fetch(`${local.url}/api/spaces/Main/runs/nobody/attempts`)).status).toBe(404);
});
