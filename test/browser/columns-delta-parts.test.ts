// A snapshot with delta parts (docs/contract.md §10, issue 40): the first answer is the newest part and says
// how many of the parts, in the order they apply (1, 2, …, then 0), hold distinct runs; each later part holds
// runs that replace the same runs before it. The cockpit shows each run once, as the newest part has it.
// A small server here plays the read API.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { CompactRun } from '#analytics/columns.ts';
import type { CockpitSettings } from '#analytics/contract.ts';
import { launchChromium } from './helpers/chromium.ts';
import { columns, emptySpaceApi, json, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';

const SNAPSHOT = 'snap-d';
const run = (taskId: string, verdict: 'resolved' | 'wrong') => compactRunOf({ taskId, verdict, firstVerdict: verdict });
/** Two base parts of five runs (the first three resolved), then an older delta and the newest (served first). */
const base1 = ['a0', 'a1', 'a2', 'a3', 'a4'].map((t, k) => run(t, k < 3 ? 'resolved' : 'wrong'));
const base2 = ['b0', 'b1', 'b2', 'b3', 'b4'].map((t) => run(t, 'wrong'));
// Re-judged: a0 wrong and b0 resolved, and one new run; then, newest, a0 resolved again and b1 resolved.
const olderDelta = [run('a0', 'wrong'), run('b0', 'resolved'), run('c0', 'resolved')];
const newestDelta = [run('a0', 'resolved'), run('b1', 'resolved')];
/** By served index: 0 is the newest, 1 and on apply before it. */
const PARTS: CompactRun[][] = [newestDelta, base1, base2, olderDelta];
const requests: string[] = [];

let server: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  server = await startDashboardServer((_req, res, u) => {
    if (u.pathname === '/cockpit.json')
      return json(res, 200, {
        cockpits: [{ name: 'Deltas', space: 'D', public: true, showReference: false, minN: 10 }],
        api: '/api',
        signIn: null,
      } satisfies CockpitSettings);
    if (u.pathname === '/api/spaces/D/columns') {
      const part = Number(u.searchParams.get('part') ?? 0);
      requests.push(`${u.searchParams.get('snapshot') ?? ''}#${part}`);
      // Each later part's header describes it read alone; only the first names the snapshot's layout.
      const header =
        part === 0
          ? { index: 0, count: PARTS.length, snapshot: SNAPSHOT, base: 2 }
          : { index: 0, count: 1, snapshot: null, base: part <= 2 ? 1 : 0 };
      return columns(res, PARTS[part]!, header, { gzipMediaType: true });
    }
    return emptySpaceApi(res, u, 'D');
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('shows each run once, as the newest part that holds it has it', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const ready = async (query: string) => {
    await page.goto(`${server.url}/?view=runs${query}`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });
    return page.locator('.runs-count').innerText();
  };
  // Ten base runs and c0: a0, b0 and b1 are not shown twice.
  expect(await ready('')).toBe('11 of 11 runs');
  expect(requests.sort()).toEqual(['#0', `${SNAPSHOT}#1`, `${SNAPSHOT}#2`, `${SNAPSHOT}#3`]);
  // Resolved: a0 (as the newest part has it), a1, a2, b0 (as the older delta has it), b1, c0.
  expect(await ready('&verdict=resolved')).toBe('6 of 11 runs');
  await page.close();
});
