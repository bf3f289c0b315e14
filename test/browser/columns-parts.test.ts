// A big space's columns arrive in parts (docs/contract.md §10): the cockpit asks for the first, then for the
// other parts of the snapshot it names, all at once, and combines them. A snapshot replaced while its parts
// arrive answers 409, and the cockpit starts again from the first part instead of mixing two snapshots.
// Parts stream in compressed as their own media type (inflated by the page) or plain, cut anywhere.
// A small server here plays the read API.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { CompactRun } from '#analytics/columns.ts';
import type { CockpitSettings } from '#analytics/contract.ts';
import { launchChromium } from './helpers/chromium.ts';
import { columns, emptySpaceApi, json, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';

const PARTS = 3;
const RUNS_PER_PART = 4;

/** Two snapshots of the space; the second has one more run in its last part. */
const runsOf = (snapshot: number): CompactRun[][] =>
  Array.from({ length: PARTS }, (_, part) =>
    Array.from({ length: RUNS_PER_PART + (snapshot === 2 && part === PARTS - 1 ? 1 : 0) }, (_, k) =>
      compactRunOf({ model: `model-${part}`, taskId: `task-${k}`, verdict: k % 2 ? 'wrong' : 'resolved' }),
    ),
  );
const SNAPSHOTS = { 'snap-1': runsOf(1), 'snap-2': runsOf(2) };

let server: { url: string; close: () => Promise<void> };
let browser: Browser;
let current: keyof typeof SNAPSHOTS = 'snap-1';
const requests: string[] = [];
const gzipAsked: boolean[] = [];

beforeAll(async () => {
  server = await startDashboardServer((req, res, u) => {
    if (u.pathname === '/cockpit.json')
      return json(res, 200, {
        cockpits: [{ name: 'Big', space: 'S', public: true, showReference: false, minN: 10 }],
        api: '/api',
        signIn: null,
      } satisfies CockpitSettings);
    if (u.pathname === '/api/spaces/S/columns') {
      const part = Number(u.searchParams.get('part') ?? 0);
      const snapshot = (u.searchParams.get('snapshot') ?? current) as keyof typeof SNAPSHOTS;
      requests.push(`${snapshot}#${part}`);
      // The compactor replaces the snapshot just as the first cockpit asks for its last part.
      if (snapshot === 'snap-1' && part === PARTS - 1) {
        current = 'snap-2';
        return json(res, 409, {
          error: 'snapshot-replaced',
          message: 'Snapshot snap-1 was replaced by a newer one; load the columns again from the first part.',
        });
      }
      // The cockpit asks for the compressed media type; a server may still answer the plain one (part 1 here).
      gzipAsked.push(req.headers.accept?.startsWith('application/vnd.replay.run-columns+gzip') ?? false);
      return columns(
        res,
        SNAPSHOTS[snapshot][part]!,
        { index: part, count: PARTS, snapshot, base: PARTS },
        { gzipMediaType: part !== 1 },
      );
    }
    return emptySpaceApi(res, u, 'S');
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('combines the parts of one snapshot, and starts again when the snapshot is replaced mid-load', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/?view=runs`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });

  // The first snapshot's parts, then the second's: never a part of one beside a part of the other.
  expect(requests.slice(0, PARTS).sort()).toEqual(['snap-1#0', 'snap-1#1', 'snap-1#2']);
  expect(requests.slice(PARTS).sort()).toEqual(['snap-2#0', 'snap-2#1', 'snap-2#2']);
  expect(gzipAsked.every(Boolean)).toBe(true);
  const total = PARTS * RUNS_PER_PART + 1;
  expect(await page.locator('.runs-count').innerText()).toBe(`${total} of ${total} runs`);
  await page.close();
});
