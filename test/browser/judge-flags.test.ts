// A public cockpit of a space with a flagged run (issue 24, items 4 and 6): the page never asks for the
// original fix and leaves its panel out (`showReference` false), shows the flagged run as "flagged" in the
// grid, counts it apart beside the resolve rate, and the run detail names the rules that fired. A small
// server here plays the read API.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { CockpitSettings } from '#analytics/contract.ts';
import type { RunRow } from '#schema/run.ts';
import { flagDescription } from '#analytics/flag-rules.ts';
import { launchChromium } from './helpers/chromium.ts';
import { columns, emptySpaceApi, json, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';
import { runRow } from '../helpers/records.ts';

const flagged: RunRow = {
  ...runRow({ model: 'qwen3:8b', taskId: 'task-flagged' }, { space: 'S' }),
  judgeVerdict: null,
  judgeState: 'flagged',
  judgeFlags: ['judge-override', 'verdict-instruction'],
  judgeReason: 'Matches the reference.',
  judgeModel: 'claude-test-judge',
};
const RUNS = [
  compactRunOf({ model: 'qwen3:8b', taskId: 'task-flagged', verdict: null, judgeState: 'flagged' }),
  compactRunOf({ model: 'qwen3:8b', taskId: 'task-2', verdict: 'resolved' }),
  compactRunOf({ model: 'qwen3:8b', taskId: 'task-3', verdict: 'wrong' }),
  // A configuration every one of whose runs the judge leaves out of n for good: it will never have a rate.
  compactRunOf({ model: 'gemma3', taskId: 'task-2', verdict: 'excluded' }),
  compactRunOf({ model: 'gemma3', taskId: 'task-3', verdict: null, judgeState: 'flagged' }),
];
const PATCH = 'diff --git a/src/w.ts b/src/w.ts\n--- a/src/w.ts\n+++ b/src/w.ts\n@@ -1 +1 @@\n-a\n+b\n';

let server: { url: string; close: () => Promise<void> };
let browser: Browser;
const asked: string[] = [];

beforeAll(async () => {
  server = await startDashboardServer((_req, res, u) => {
    asked.push(u.pathname);
    if (u.pathname === '/cockpit.json')
      return json(res, 200, {
        cockpits: [{ name: 'Published', space: 'S', public: true, showReference: false, minN: 10 }],
        api: '/api',
        signIn: null,
      } satisfies CockpitSettings);
    if (u.pathname === '/api/spaces/S/columns') return columns(res, RUNS);
    const run = `/api/spaces/S/runs/${encodeURIComponent(flagged.id)}`;
    if (u.pathname === run) return json(res, 200, flagged);
    if (u.pathname === `${run}/texts`) return json(res, 200, { patch: PATCH, summary: 'Done.' });
    if (u.pathname === `${run}/attempts`) return json(res, 200, { attempts: [] });
    return emptySpaceApi(res, u, 'S');
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('counts the flagged run apart, shows it as flagged, names its rules, and never asks for the original fix', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });
  expect(await page.locator('.kpi').first().innerText()).toMatch(/n=2[\s\S]*outside n: 1 flagged/);
  // No run has a hidden-test result: the calibration card says there is no agreement to measure.
  expect(await page.locator('p.agreement').innerText()).toBe(
    'No run in view has both a verdict and a hidden-test result: there is no agreement to measure.',
  );
  const never = page.locator('.kpi', { hasText: 'gemma3' }).locator('.kpi-rate');
  expect(await never.innerText()).toBe('no rate n=0');
  expect(await never.getAttribute('title')).toBe(
    'Every run is outside n (1 flagged · 1 excluded): the judge gives none of them a rate',
  );
  // The resolve-rate chart says, beside each rate's n, the runs that n leaves out: the flagged run is the judge's.
  expect(await page.locator('#chart-resolve-rate .bar-note').first().innerText()).toMatch(
    /\(n=2 judge; 1 flagged\u00a0outside\u00a0n\) · .*\(n=0 hidden tests; 3 no test result\u00a0outside\u00a0n\)$/,
  );

  await page.goto(`${server.url}/?view=runs&run=${encodeURIComponent(flagged.id)}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });
  expect(await page.locator('.grid-row', { hasText: 'task-flagged' }).locator('.verdict').innerText()).toBe('flagged');
  const detail = page.locator('#run-detail');
  await detail.locator('.judge-flags').waitFor({ timeout: 30_000 });
  const flags = await detail.locator('.judge-flags').innerText();
  expect(flags).toMatch(/^Flagged: the judge model answered "resolved"/);
  for (const id of flagged.judgeFlags!) expect(flags).toContain(`${id} — ${flagDescription(id)}`);
  expect(await detail.locator('.verdict-box .chip').innerText()).toBe('flagged');

  await detail.locator('#candidate-side .patch-files').waitFor();
  expect(await detail.locator('#reference-side').count()).toBe(0);
  expect(await detail.locator('.diffs h3').innerText()).toBe('The candidate patch');
  expect(asked.filter((path) => path.endsWith('/reference'))).toEqual([]);
  await page.close();
});
