// Patches the run detail must survive (issue 30, bad input): a 3 MiB candidate is cut for display with a notice and
// a link to the whole object, without hanging the page; a patch carrying `</script>` or HTML — as text that is
// not a diff, or inside a diff's lines and file names — is shown as text and never becomes an element. A small
// server here plays the read API.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { CockpitSettings } from '#analytics/contract.ts';
import type { RunRow } from '#schema/run.ts';
import { NO_PATCH_SHA256 } from '#dashboard/src/widgets/format.ts';
import { launchChromium } from './helpers/chromium.ts';
import { columns, emptySpaceApi, json, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';
import { runRow } from '../helpers/records.ts';

const HOSTILE = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"></script>';
const hunk = (k: number) =>
  `@@ -${k},2 +${k},2 @@\n context ${k}\n-old line ${k} ${'x'.repeat(60)}\n+new line ${k} ${'y'.repeat(60)}\n`;
/** A 3 MiB diff of one file. */
const HUGE = `diff --git a/src/big.py b/src/big.py\n--- a/src/big.py\n+++ b/src/big.py\n${Array.from({ length: 16_500 }, (_, k) => hunk(k * 10 + 1)).join('')}`;
const HTML_DIFF =
  `diff --git a/src/${HOSTILE}.py b/src/${HOSTILE}.py\n--- a/src/` +
  `${HOSTILE}.py\n+++ b/src/${HOSTILE}.py\n@@ -1 +1 @@\n-${HOSTILE}\n+<b>bold</b> ${HOSTILE}\n`;
const NOT_A_DIFF = `I could not make a patch.\n${HOSTILE}\n<iframe src="/"></iframe>\n`;

const runs = {
  huge: runRow({ model: 'm', taskId: 'task-huge' }, { space: 'S' }),
  html: runRow({ model: 'm', taskId: 'task-html' }, { space: 'S' }),
  text: runRow({ model: 'm', taskId: 'task-text' }, { space: 'S' }),
  empty: runRow({ model: 'm', taskId: 'task-empty' }, { space: 'S', patchSha256: NO_PATCH_SHA256 }),
  missing: runRow({ model: 'm', taskId: 'task-missing' }, { space: 'S' }),
} satisfies Record<string, RunRow>;
/** Each run's patch as the API serves it; `missing` has none stored (the API answers 404). */
const patches: Record<string, string> = {
  [runs.huge.id]: HUGE,
  [runs.html.id]: HTML_DIFF,
  [runs.text.id]: NOT_A_DIFF,
  [runs.empty.id]: '',
};

let server: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  expect(HUGE.length).toBeGreaterThan(3 * 1024 * 1024);
  server = await startDashboardServer((_req, res, u) => {
    if (u.pathname === '/cockpit.json')
      return json(res, 200, {
        cockpits: [{ name: 'Published', space: 'S', public: true, showReference: false, minN: 10 }],
        api: '/api',
        signIn: null,
      } satisfies CockpitSettings);
    if (u.pathname === '/api/spaces/S/columns')
      return columns(res, [compactRunOf({ model: 'm', taskId: 'task-huge', verdict: 'wrong' })]);
    for (const row of Object.values(runs)) {
      const base = `/api/spaces/S/runs/${encodeURIComponent(row.id)}`;
      if (u.pathname === base) return json(res, 200, row);
      if (u.pathname === `${base}/texts`) return json(res, 200, { patch: patches[row.id] ?? null, summary: HOSTILE });
      if (u.pathname === `${base}/attempts`) return json(res, 200, { attempts: [] });
    }
    return emptySpaceApi(res, u, 'S');
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function detailOf(row: RunRow, shown = '.patch'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${server.url}/?view=runs&run=${encodeURIComponent(row.id)}`);
  await page.locator(`#run-detail #candidate-side ${shown}`).waitFor({ timeout: 30_000 });
  return page;
}

const noInjected = async (page: Page) => {
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('#run-detail img, #run-detail script, #run-detail iframe, #run-detail b').count()).toBe(0);
};

it('cuts a 3 MiB candidate patch for display, says so, links the whole object, and stays responsive', async () => {
  const page = await detailOf(runs.huge);
  const side = page.locator('#candidate-side');
  const notice = side.locator('.patch-cut');
  expect(await notice.innerText()).toMatch(
    /^This patch is 3\.\d MiB: only its first 32 KiB are shown here\. The whole patch$/,
  );
  expect(await notice.locator('a').getAttribute('href')).toBe(
    `/api/spaces/S/runs/${encodeURIComponent(runs.huge.id)}/patch`,
  );
  const shownLines = await side.locator('td.d2h-ins:not(.d2h-code-linenumber)').count();
  expect(shownLines).toBeGreaterThan(100);
  expect(shownLines).toBeLessThan(20_000);
  // The page still answers: the layout switch relays the cut patch out split.
  await page.locator('[data-layout="side-by-side"]').click();
  await side.locator('.d2h-file-side-diff').first().waitFor();
  expect(await page.evaluate(() => 1 + 1)).toBe(2);
  await page.close();
});

it('shows HTML and </script> inside a diff as text, in its lines and its file names', async () => {
  const page = await detailOf(runs.html);
  const side = page.locator('#candidate-side');
  expect(await side.locator('td.d2h-ins:not(.d2h-code-linenumber) .d2h-code-line-ctn').innerText()).toContain(
    `<b>bold</b> ${HOSTILE}`,
  );
  expect(await side.locator('td.d2h-del:not(.d2h-code-linenumber) .d2h-code-line-ctn').innerText()).toContain(HOSTILE);
  expect(await page.locator('table.files .path').innerText()).toBe(`src/${HOSTILE}.py`);
  await noInjected(page);
  await page.close();
});

it('shows text that is not a diff as text, with a notice', async () => {
  const page = await detailOf(runs.text);
  const side = page.locator('#candidate-side');
  expect(await side.locator('.patch-unparsed').innerText()).toBe('This patch does not parse as a diff: shown as text.');
  expect(await side.locator('pre.patch-text').textContent()).toBe(NOT_A_DIFF);
  await noInjected(page);
  await page.close();
});

it('says an empty patch changed nothing, and a patch not stored only that it is not stored', async () => {
  for (const [row, text] of [
    [runs.empty, 'The patch is empty: the run changed nothing.'],
    [runs.missing, 'No patch is stored for this run.'],
  ] as const) {
    const page = await detailOf(row, '#candidate-none');
    expect(await page.locator('#candidate-none').innerText()).toBe(text);
    // The empty patch's hash is named for what it is, not shown as if it were a patch's.
    if (row === runs.empty)
      expect(await page.locator('#run-detail table.fields').textContent()).toContain(
        `${NO_PATCH_SHA256} (no patch: the hash of nothing)`,
      );
    await page.close();
  }
});
