// The run detail with a 3 MiB candidate patch (issue 30): from navigation to the detail's first paint with the
// patch laid out, and to the first moment after it that the page answers input (a task queued behind the
// layout runs). The floor is the same detail with a one-hunk patch, in the same run.
import type { Browser } from 'playwright-core';
import type { CockpitSettings } from '#analytics/contract.ts';
import { columns, emptySpaceApi, json, startDashboardServer } from '../test/browser/helpers/dashboard-server.ts';
import { compactRunOf } from '../test/helpers/compact-runs.ts';
import { runRow } from '../test/helpers/records.ts';

const hunk = (k: number) =>
  `@@ -${k},2 +${k},2 @@\n context ${k}\n-old line ${k} ${'x'.repeat(60)}\n+new line ${k} ${'y'.repeat(60)}\n`;
const diffOf = (hunks: number) =>
  `diff --git a/src/big.py b/src/big.py\n--- a/src/big.py\n+++ b/src/big.py\n${Array.from({ length: hunks }, (_, k) => hunk(k * 10 + 1)).join('')}`;

/** In the page before its scripts: marks the frame that first shows the patch, and the task queued behind it. */
const WATCH = () => {
  const w = window as unknown as { __paint?: number; __interactive?: number };
  const seen = new MutationObserver(() => {
    if (!document.querySelector('#candidate-side .patch')) return;
    seen.disconnect();
    requestAnimationFrame(() =>
      setTimeout(() => {
        w.__paint = performance.now();
        setTimeout(() => (w.__interactive = performance.now()));
      }),
    );
  });
  seen.observe(document, { childList: true, subtree: true });
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureRunDetail(browser: Browser, repeats: number): Promise<void> {
  const huge = runRow({ model: 'm', taskId: 'task-huge' }, { space: 'S' });
  const small = runRow({ model: 'm', taskId: 'task-small' }, { space: 'S' });
  const patches = new Map([
    [huge.id, diffOf(16_500)],
    [small.id, diffOf(3)],
  ]);
  const server = await startDashboardServer((_req, res, u) => {
    if (u.pathname === '/cockpit.json')
      return json(res, 200, {
        cockpits: [{ name: 'Bench', space: 'S', public: true, showReference: false, minN: 10 }],
        api: '/api',
        signIn: null,
      } satisfies CockpitSettings);
    if (u.pathname === '/api/spaces/S/columns')
      return columns(res, [compactRunOf({ model: 'm', taskId: 'task-huge', verdict: 'wrong' })]);
    for (const row of [huge, small]) {
      const base = `/api/spaces/S/runs/${encodeURIComponent(row.id)}`;
      if (u.pathname === base) return json(res, 200, row);
      if (u.pathname === `${base}/texts`) return json(res, 200, { patch: patches.get(row.id), summary: 'Done.' });
      if (u.pathname === `${base}/attempts`) return json(res, 200, { attempts: [] });
    }
    return emptySpaceApi(res, u, 'S');
  });
  const open = async (id: string) => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript(WATCH);
    await page.goto(`${server.url}/?view=runs&run=${encodeURIComponent(id)}`);
    await page.waitForFunction(
      () => (window as unknown as { __interactive?: number }).__interactive !== undefined,
      null,
      {
        timeout: 60_000,
      },
    );
    const sample = await page.evaluate(() => {
      const w = window as unknown as { __paint: number; __interactive: number };
      return { paint: w.__paint, interactive: w.__interactive };
    });
    await page.close();
    return sample;
  };
  try {
    await open(small.id);
    const samples: { paint: number; interactive: number }[] = [];
    const floors: { paint: number; interactive: number }[] = [];
    for (let i = 0; i < repeats; i++) {
      samples.push(await open(huge.id));
      floors.push(await open(small.id));
    }
    const row = (name: string, v: number, floor: number, target: string) =>
      console.log(
        `${name.padEnd(44)}${`${Math.round(v)} ms`.padStart(10)}${
          `${Math.round(floor)} ` + `ms`.padStart(10)
        }${`${(v / floor).toFixed(2)}×`.padStart(9)}  ${target}`,
      );
    console.log(
      `\nRun detail with a ${(patches.get(huge.id)!.length / 1024 / 1024).toFixed(1)} MiB ` +
        `candidate patch, headless Chromium, medians of ${repeats} navigations (floor: a one-hunk patch).`,
    );
    console.log(`${''.padEnd(44)}${'detail'.padStart(10)}${'floor'.padStart(10)}${'ratio'.padStart(9)}  target`);
    const m = (xs: { paint: number; interactive: number }[], k: 'paint' | 'interactive') => median(xs.map((x) => x[k]));
    row('run detail with a 3 MiB patch: first paint', m(samples, 'paint'), m(floors, 'paint'), '< 500 ms');
    row('run detail with a 3 MiB patch: interactive', m(samples, 'interactive'), m(floors, 'interactive'), '< 1000 ms');
  } finally {
    await server.close();
  }
}
