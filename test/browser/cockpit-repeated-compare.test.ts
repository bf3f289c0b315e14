// Compare where samples repeat, and the intervals beside a rate (docs/contract.md §6 "Repeated samples"), in headless
// Chromium, on 12 tasks × 3 samples of two configurations (the unit tests' campaign three times over), small enough
// to work by hand. Per task, agent-a resolved 3, 2, 1, 0 of its 3 samples and agent-b 2, 1, 0, 0 (three times):
// agent-a's share is higher on 9 tasks, equal and none on 3; the mean shares are 50% and 25%, a difference of
// +25.0 points (95% CI +16.5 to +35.1 clustered by task: each side's clustered interval, combined as Newcombe's
// method 10 combines two, worked in the unit tests), and its nine non-zero differences of 1/3 reach |Σ| = 3 in
// 2 of 2^9 sign patterns: sign-flip p = 0.0039. agent-a resolved 18 of 36 samples: 50%, with a standard error
// clustered by task of √(3 · (1.5² + 0.5² + 0.5² + 1.5²))/36 = 0.1076, an effective n of 0.25/0.1076² = 21.6 runs,
// so 95% CI 31%–69%, Wilson's at 21.6 (Wilson's over 36 runs, which would treat each sample as a draw of its own,
// is 34%–66%). As Terminal-Bench's, its tasks name no repository
// and no wave.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { CompactRun } from '#analytics/columns.ts';
import { launchChromium } from './helpers/chromium.ts';
import { analysisPages } from './helpers/analysis-page.ts';
import { SHOTS } from './helpers/judged-campaign.ts';
import { columns, emptySpaceApi, oneCockpit, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';

const RESOLVED: Record<string, number[]> = { 'agent-a': [3, 2, 1, 0], 'agent-b': [2, 1, 0, 0] };
const SAMPLES = 3;
const TASKS = Array.from({ length: 12 }, (_, t) => `acme__widgets-${String(t + 1).padStart(2, '0')}`);

const RUNS: CompactRun[] = Object.entries(RESOLVED).flatMap(([model, resolved]) =>
  TASKS.flatMap((taskId, t) =>
    Array.from({ length: SAMPLES }, (_, s) => {
      const pass = s < resolved[t % 4]!;
      return compactRunOf({
        model,
        taskId,
        // As Terminal-Bench's tasks: no repository, no wave, no tier.
        repo: null,
        wave: null,
        tier: null,
        harnessVersion: 'h1',
        sample: s + 1,
        hiddenTest: pass ? 'pass' : 'fail',
        verdict: pass ? 'resolved' : 'wrong',
        firstVerdict: pass ? 'resolved' : 'wrong',
      });
    }),
  ),
);

let server: { url: string; close: () => Promise<void> };
let browser: Browser;

beforeAll(async () => {
  server = await startDashboardServer((_req, res, u) => {
    if (u.pathname === '/cockpit.json') return oneCockpit(res, 'Repeats', 'R', 2);
    // Last sample first: what the page shows in sample order it must put in that order itself.
    if (u.pathname === '/api/spaces/R/columns') return columns(res, [...RUNS].reverse());
    return emptySpaceApi(res, u, 'R');
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const { open } = analysisPages(
  () => server,
  () => browser,
);

const PAIR = '?view=compare&a=agent-a&a=h1&b=agent-b&b=h1';

describe('where samples repeat', () => {
  it('compares two configurations by the share of each task’s samples resolved, in the sentence and beside it', async () => {
    const page = await open(`/${PAIR}`);
    expect(await page.locator('#compare-sentence').innerText()).toContain(
      "agent-a · h1 resolved 50.0% of a task's samples on average and agent-b · h1 25.0%: a difference of +25.0 " +
        'points (95% CI +16.5 to +35.1, clustered by task), sign-flip p = 0.0039.',
    );
    const table = page.locator('#compare-table');
    expect(await table.locator('[data-cell="a-only"]').innerText()).toBe('9');
    expect(await table.locator('[data-cell="b-only"]').innerText()).toBe('0');
    expect(await table.locator('[data-cell="neither"]').innerText()).toBe('3');
    expect(await table.innerText()).toContain('A resolved a larger share of its samples');
    expect(await table.innerText()).not.toContain('B did not');
    const rates = await page.locator('.compare-rates li').allInnerTexts();
    expect(rates[0]).toContain("50.0% of a task's samples resolved");
    expect(rates[1]).toContain("25.0% of a task's samples resolved");
    // Each listed task with each side's samples resolved, as the figures count them.
    const listed = page.locator('#discordant-a-only');
    expect(await listed.locator('h3').innerText()).toBe(
      'agent-a · h1 resolved a larger share of its samples than agent-b · h1 (9)',
    );
    const chips = await listed
      .locator('li')
      .evaluateAll((items) =>
        items.map((i) => [i.getAttribute('data-task'), [...i.querySelectorAll('.share')].map((s) => s.textContent)]),
      );
    expect(chips).toEqual(
      TASKS.filter((_, t) => t % 4 !== 3).map((task, k) => [
        task,
        [`A: ${[3, 2, 1][k % 3]}/3`, `B: ${[2, 1, 0][k % 3]}/3`],
      ]),
    );
    expect(await page.locator('.compare-card .card-foot').innerText()).toContain('sign-flip permutation test');
    await page.screenshot({ path: `${SHOTS}/repeated-compare.png`, fullPage: true });
    await page.close();
  });

  it('gives all pairs the sign-flip p and compares them, with no note that they were not', async () => {
    const page = await open('/?view=compare&pairs=all');
    const row = page.locator('#all-pairs-table tbody tr').first();
    expect(await row.locator('[data-cell="pairs"]').innerText()).toBe('12');
    expect(await row.locator('[data-cell="p"]').innerText()).toBe('0.0039');
    expect(await row.locator('[data-cell="note"]').innerText()).toBe('');
    // Its counts of tasks are of the side ahead on the share of samples resolved, and say so.
    const head = page.locator('#all-pairs-table thead');
    expect(await head.locator('[data-cell="a-only"]').innerText()).toBe('A ahead');
    expect(await head.locator('[data-cell="b-only"]').getAttribute('title')).toBe(
      'Shared tasks where B resolved a larger share of its samples',
    );
    await page.close();
  });

  it('lists a configuration’s samples of a task in sample order, named by number, with how many resolved it', async () => {
    // Task 2: agent-a resolved 2 of its 3 samples, the first two.
    const page = await open(`/?view=task&task=${TASKS[1]}`);
    const row = page.locator('#task-table tbody tr[data-model="agent-a"]');
    const links = await row
      .locator('a.task-run')
      .evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('data-run')]));
    expect(links).toEqual([1, 2, 3].map((k) => [`sample ${k}`, `agent-a__${TASKS[1]}__h1${k === 1 ? '' : `__s${k}`}`]));
    expect(await row.locator('[data-cell="result"]').innerText()).toBe(
      '2 of 3 resolved: resolved, resolved, not resolved',
    );
    // agent-b resolved 1 of its 3: each configuration counts by its share, 2/3 + 1/3 of the two.
    expect(await page.locator('.task-facts').innerText()).toContain(
      '1 of 2 configurations in view with a result resolved it on the',
    );
    await page.close();
  });

  it('gives the Runs grid a Sample column, and heads the judge’s verdict and how a run ended apart from the outcome', async () => {
    const page = await open(`/?view=runs&q=${TASKS[1]}`);
    const heads = await page.locator('.grid-header [role="columnheader"]').allInnerTexts();
    expect(heads.slice(0, 5).map((h) => h.trim())).toEqual(['◇', 'Judge', 'Model', 'Harness', 'Sample']);
    expect(heads.map((h) => h.trim())).toContain('Run ended');
    const samples = await page
      .locator('.grid-row:not([hidden])')
      .evaluateAll((rows) =>
        rows
          .map((r) => ['model', 'sample'].map((c) => r.querySelector(`[data-column="${c}"]`)!.textContent).join(' '))
          .sort(),
      );
    expect(samples).toEqual(['agent-a 1', 'agent-a 2', 'agent-a 3', 'agent-b 1', 'agent-b 2', 'agent-b 3']);
    await page.close();
  });

  it('puts the interval clustered by task beside each rate, on the tiles and the resolve-rate card', async () => {
    const page = await open('/');
    const tile = page.locator('.kpi', { hasText: 'agent-a' });
    expect(await tile.locator('.kpi-ci').innerText()).toBe('95% CI 31%–69%');
    const card = await page.locator('#chart-resolve-rate').innerText();
    expect(card).toContain('31%–69%');
    expect(card).not.toContain('34%–66%');
    await page.close();
  });

  it('says that no run names a tier, a wave or a repository, where a breakdown by them would be empty', async () => {
    const page = await open('/');
    const groups = await page.locator('#breakdown-table thead th.group').allTextContents();
    expect(groups).toEqual(['Difficulty (empirical)']);
    const card = await page.locator('#breakdown-table').locator('xpath=ancestor::section[1]').textContent();
    expect(card).toContain('No run in view names its tier (senders’). No run in view names its wave.');
    expect(await page.locator('#repo-none').textContent()).toBe('No run in view names its repository.');
    await page.close();
  });
});
