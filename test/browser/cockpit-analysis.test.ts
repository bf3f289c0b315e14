// The analyst's figures of the cockpit (docs/contract.md §6) in headless Chromium against local mode with a demo
// campaign (60 SWE-Bench Pro tasks) loaded straight into the store: every rate with its 95 % interval and
// n (tiles, chart tooltips, table) agreeing with `/stats`; Cohen's κ beside its 2×2 table; the Compare view
// from picking two groups to the quotable sentence of `/compare`, its discordant runs and its URL; the
// attempts of a re-run in the run detail and the re-run count in the table; export links that carry the
// filters; the cost card with unpriced models shown as unknown. Screenshots go to test-results/.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import type { Browser, Page } from 'playwright-core';
import { analysisPages, settled } from './helpers/analysis-page.ts';
import { SHOTS, startJudgedCockpit, type JudgedCockpit } from './helpers/judged-campaign.ts';
import { buildCampaign, readSourceRuns } from '#demo/campaign.ts';
import { DEMO_JUDGE_MODEL } from '#demo/judge.ts';
import { cohensKappa } from '#analytics/statistics.ts';
import { describeComparison, sampleSentence } from '#analytics/comparison-sentence.ts';
import { pushDelivery } from '#runner/push.ts';
import { apiPaths, type AttemptsBody, type CompareBody, type StatsBody } from '#analytics/contract.ts';
import { eventually, type TestLocalMode } from '../helpers/local-mode.ts';

const SPACE = 'AnalysisSpace';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];
/** Priced runner model: its run cost is known; every other runner model is unpriced. */
const PRICED = 'GPT-5';
const config = {
  defaultJudgeModel: DEMO_JUDGE_MODEL,
  spaces: { [SPACE]: { senders: HOSTS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 500 } } },
  cockpits: { Analysis: { space: SPACE } },
  prices: {
    [DEMO_JUDGE_MODEL]: { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, cacheReadPerMTok: 0.3 },
    [PRICED]: { inputPerMTok: 1.25, outputPerMTok: 10 },
  },
};
const keys = { 'demo-runner-1': 'key-1', 'demo-runner-2': 'key-2' };
const A = { model: 'Claude 4.5 Sonnet', harnessVersion: '10132025' };
const B = { model: 'GPT-5', harnessVersion: '10132025' };
const name = (g: { model: string; harnessVersion: string }) => `${g.model} · ${g.harnessVersion}`;

const campaign = buildCampaign(readSourceRuns(), { tasks: 60, seed: 7, hosts: HOSTS });
const rowOf = (r: (typeof campaign.runs)[number]) =>
  r.delivery.row as { model: string; harnessVersion: string; taskId: string; startedAt: string; finishedAt: string };
/** The comparison's sentence, then what its tasks are: every task of the campaign is in view, no population declared. */
const quoted = (a: typeof A, b: typeof A, body: CompareBody) =>
  `${describeComparison(name(a), name(b), body)} ` +
  sampleSentence(null, new Set(campaign.runs.map((r) => rowOf(r).taskId)).size, [a.harnessVersion, b.harnessVersion]);
/** A run of group A pushed again later with another patch: a re-run. */
const rerun = campaign.runs.find(
  (r) => rowOf(r).model === A.model && rowOf(r).harnessVersion === A.harnessVersion && (r.delivery.patch as string),
)!;

let cockpit: JudgedCockpit;
let local: TestLocalMode;
let browser: Browser;

beforeAll(async () => {
  cockpit = await startJudgedCockpit(config, keys, SPACE, campaign);
  ({ local, browser } = cockpit);
}, 240_000);

afterAll(() => cockpit?.stop());

const { api, open: openPage } = analysisPages(
  () => local,
  () => browser,
);

/** A rate as the page writes it: whole percent, one decimal below 10 %. */
const pct = (x: number) => `${(x * 100).toFixed(x > 0 && x < 0.1 ? 1 : 0)}%`;

describe('every rate with its interval and n', () => {
  it('tiles, the resolve-rate chart and the per-model table show the 95% Wilson interval and n that /stats serves', async () => {
    const p = await openPage();
    const stats = await api<StatsBody>(apiPaths.stats(SPACE));
    const tiles = p.locator('.kpi');
    expect(await tiles.count()).toBe(stats.groups.length);
    for (let k = 0; k < stats.groups.length; k++) {
      const tile = tiles.nth(k);
      const [model, harness] = [
        await tile.locator('.kpi-model').innerText(),
        (await tile.locator('.kpi-harness').innerText()).replace(/^harness /, ''),
      ];
      const group = stats.groups.find((g) => model.endsWith(g.model) && g.harnessVersion === harness)!;
      const text = await tile.innerText();
      expect(text).toContain(`n=${group.n}`);
      expect(text).toContain(`95% CI ${pct(group.ci![0])}–${pct(group.ci![1])}`);
      // The whisker spans the interval on a 0–100 % track.
      const whisker = await tile
        .locator('.kpi-ci-bar .bar-ci')
        .evaluate((n) => [
          Number.parseFloat((n as HTMLElement).style.left),
          Number.parseFloat((n as HTMLElement).style.width),
        ]);
      expect(whisker[0]).toBeCloseTo(group.ci![0] * 100, 1);
      expect(whisker[1]).toBeCloseTo((group.ci![1] - group.ci![0]) * 100, 1);
    }
    await tiles.first().screenshot({ path: `${SHOTS}/analysis-tile.png` });

    // Chart: one whisker per lane with a rate; tooltips carry the interval and n.
    const chart = p.locator('#chart-resolve-rate');
    const lanes = stats.groups.filter((g) => g.n > 0).length + stats.groups.filter((g) => g.hidden.n > 0).length;
    expect(await chart.locator('.bar-ci').count()).toBe(lanes);
    const a = stats.groups.find((g) => g.model === A.model && g.harnessVersion === A.harnessVersion)!;
    const row = chart.locator('.bar-row', { has: p.locator('.bar-label', { hasText: name(A) }) });
    // The campaign has hidden tests: the rates are counted on them, first in each row and named so.
    expect(stats.outcome).toBe('tests');
    expect(await row.locator('.bar-seg').first().getAttribute('title')).toBe(
      `resolve rate · hidden tests: ${a.resolved} of ${a.n}, ${pct(a.rate!)} (95% CI ${pct(a.ci![0])}–${pct(a.ci![1])}, n=${a.n})`,
    );
    expect(await row.locator('.bar-ci').first().getAttribute('title')).toBe(
      `resolve rate · hidden tests: 95% CI ${pct(a.ci![0])}–${pct(a.ci![1])} (n=${a.n})`,
    );
    await chart.screenshot({ path: `${SHOTS}/analysis-resolve-rate.png` });

    // Table: the resolve-rate cell of A reads rate, interval and n.
    const tableRow = p
      .locator('#table-models tbody tr', { has: p.locator('th', { hasText: A.model }) })
      .filter({ hasText: A.harnessVersion });
    // Off-screen cards are not rendered text (content-visibility): their textContent is read.
    expect(
      await tableRow
        .locator('td')
        .nth(3)
        .locator('span')
        .evaluateAll((spans) => spans.map((s) => s.firstChild?.textContent)),
    ).toEqual([pct(a.rate!), `${pct(a.ci![0])}–${pct(a.ci![1])}`, `n=${a.n}`]);
    await p.close();
  });
});

describe('judge against hidden tests', () => {
  it('shows Cohen’s κ with its interval beside the 2×2 table it is computed from', async () => {
    const p = await openPage();
    const box = p.locator('#kappa');
    const cells = (await box.locator('tbody td').allTextContents()).map((v) => Number(v.replace(/,/g, '')));
    const [resolvedPass, resolvedFail, otherPass, otherFail] = cells as [number, number, number, number];
    // The stats route's per-group tables add up to the page's table.
    const stats = await api<StatsBody>(apiPaths.stats(SPACE));
    const sum = (k: keyof StatsBody['groups'][number]['agreement']['table']) =>
      stats.groups.reduce((s, g) => s + g.agreement.table[k], 0);
    expect({ resolvedPass, resolvedFail, otherPass, otherFail }).toEqual({
      resolvedPass: sum('resolvedPass'),
      resolvedFail: sum('resolvedFail'),
      otherPass: sum('otherPass'),
      otherFail: sum('otherFail'),
    });
    const k = cohensKappa({ resolvedPass, resolvedFail, otherPass, otherFail });
    expect(await p.locator('#kappa-figure').textContent()).toBe(
      `κ = ${k.kappa!.toFixed(2)} (95% CI ${k.ci![0].toFixed(2)} to ${k.ci![1].toFixed(2)}, n=${k.n.toLocaleString('en-US')})`,
    );
    // The stand-in judge disagrees with the tests on purpose now and then: agreement is high, not perfect.
    expect(k.kappa!).toBeGreaterThan(0.5);
    expect(k.kappa!).toBeLessThan(1);
    await p.locator('#table-calibration').screenshot({ path: `${SHOTS}/analysis-kappa.png` });
    await p.close();
  });
});

describe('the Compare view', () => {
  it('compares two groups picked in the page, in the words and numbers of /compare, with links to the discordant runs and its state in the URL', async () => {
    const p = await openPage();
    await p.locator('#tab-compare').click();
    await p.waitForURL(/view=compare/);
    await p.locator('#compare-a').selectOption({ label: name(A) });
    await p.waitForURL((u) => u.searchParams.getAll('a').join('|') === `${A.model}|${A.harnessVersion}`);
    await p.locator('#compare-b').selectOption({ label: name(B) });
    await p.waitForURL((u) => u.searchParams.getAll('b').join('|') === `${B.model}|${B.harnessVersion}`);

    const body = await api<CompareBody>(apiPaths.compare(SPACE, { a: A, b: B }));
    expect(body.pairs).toBeGreaterThan(40);
    expect(body.aOnly + body.bOnly).toBeGreaterThan(0);
    const sentence = await p.locator('#compare-sentence').innerText();
    expect(sentence).toBe(quoted(A, B, body));
    expect(sentence).toMatch(/The tasks: 60 tasks in view; the cockpit declares no population/);
    // More than 12 configurations are in view: no Holm clause (all pairs is refused).
    expect(sentence).toMatch(
      /^On \d+ tasks both ran \(outcome: hidden tests\), Claude 4\.5 Sonnet · 10132025 resolved \d+ \([\d.]+%\) and GPT-5 · 10132025 \d+ \([\d.]+%\): a difference of [+−±][\d.]+ points \(95% CI [+−±][\d.]+ to [+−±][\d.]+\), McNemar p [=<] [\d.]+\. The tasks: /,
    );
    const cell = async (id: string) =>
      Number((await p.locator(`#compare-table [data-cell="${id}"]`).innerText()).replace(/,/g, ''));
    expect({
      both: await cell('both'),
      aOnly: await cell('a-only'),
      bOnly: await cell('b-only'),
      neither: await cell('neither'),
      pairs: await cell('pairs'),
    }).toEqual({
      both: body.bothResolved,
      aOnly: body.aOnly,
      bOnly: body.bOnly,
      neither: body.neither,
      pairs: body.pairs,
    });
    expect(
      await p.locator('#discordant-a-only li').evaluateAll((items) => items.map((i) => i.getAttribute('data-task'))),
    ).toEqual(body.aOnlyTasks);
    expect(
      await p.locator('#discordant-b-only li').evaluateAll((items) => items.map((i) => i.getAttribute('data-task'))),
    ).toEqual(body.bOnlyTasks);
    expect(await p.locator('.difference .bar-ci').count()).toBe(1);
    await p.locator('#compare-area').screenshot({ path: `${SHOTS}/cockpit-compare.png` });
    const compareUrl = p.url();

    // A discordant task leads to A's run of it, which passed the hidden tests (the outcome compared).
    const first = p.locator('#discordant-a-only li').first();
    const task = (await first.getAttribute('data-task'))!;
    const link = first.locator('a.run-link').first();
    expect(await link.innerText()).toBe('A: tests pass');
    const runId = (await link.getAttribute('data-run'))!;
    expect(new URL((await link.getAttribute('href'))!, local.url).searchParams.get('run')).toBe(runId);
    await link.click();
    await p.waitForURL((u) => u.searchParams.get('run') === runId && u.searchParams.get('view') === 'runs');
    await p.locator('#run-detail .verdict-box .verdict-main').waitFor();
    expect(await p.locator('#run-detail h2').getAttribute('title')).toContain(
      `${A.model} · ${task} · harness ${A.harnessVersion}`,
    );
    // Back returns to the comparison.
    await p.goBack();
    await p.waitForURL((u) => u.searchParams.get('view') === 'compare');
    await p.close();

    // The same URL in a fresh page shows the same comparison.
    const again = await openPage(new URL(compareUrl).pathname + new URL(compareUrl).search);
    expect(await again.locator('#compare-sentence').innerText()).toBe(sentence);
    expect(await again.locator('#compare-a option:checked').innerText()).toBe(name(A));
    expect(await again.locator('#compare-b option:checked').innerText()).toBe(name(B));
    // Swapping negates the difference and keeps p.
    await again.locator('#compare-swap').click();
    await again.waitForURL((u) => u.searchParams.getAll('a').join('|') === `${B.model}|${B.harnessVersion}`);
    const swapped = await api<CompareBody>(apiPaths.compare(SPACE, { a: B, b: A }));
    expect(swapped.difference).toBeCloseTo(-body.difference!, 12);
    expect(await again.locator('#compare-sentence').innerText()).toBe(quoted(B, A, swapped));
    await again.close();
  });

  it('says in a plain sentence when two groups have no task in common, or when one group is picked twice', async () => {
    const nobody = { model: 'nobody', harnessVersion: 'none' };
    const search = (a: typeof A, b: typeof A) =>
      `?view=compare&a=${encodeURIComponent(a.model)}&a=${a.harnessVersion}&b=${encodeURIComponent(b.model)}&b=${b.harnessVersion}`;
    const p = await openPage(`/${search(A, nobody)}`);
    expect((await api<CompareBody>(apiPaths.compare(SPACE, { a: A, b: nobody }))).pairs).toBe(0);
    expect(await p.locator('#compare-sentence').innerText()).toBe(
      `${name(A)} and ${name(nobody)} have no task with a result on the hidden tests in common.`,
    );
    expect(await p.locator('#compare-table').count()).toBe(0);
    await p.goto(`${local.url}/${search(A, A)}`);
    await p.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    expect(await p.locator('#compare-sentence').innerText()).toBe(
      `A and B are the same group (${name(A)}): pick two different ones.`,
    );
    await p.close();
  });
});

describe('attempts', () => {
  it('lists a re-run’s attempts newest first in the run detail and counts the re-run in the per-model table', async () => {
    const p = await openPage();
    const reRunsCell = () =>
      p
        .locator('#table-models tbody tr', { has: p.locator('th', { hasText: A.model }) })
        .filter({ hasText: A.harnessVersion })
        .locator('td')
        .nth(7);
    expect(await p.locator('#table-models thead th').nth(8).textContent()).toBe('Re-runs');
    expect(await p.locator('#table-models thead th').nth(6).textContent()).toBe('First-attempt rate · judge');
    expect(await reRunsCell().textContent()).toBe('0');

    const row = rowOf(rerun);
    const later = (iso: string) => new Date(Date.parse(iso) + 3_600_000).toISOString();
    const delivery = {
      ...rerun.delivery,
      row: { ...row, startedAt: later(row.startedAt), finishedAt: later(row.finishedAt) },
      patch: `${rerun.delivery.patch as string}\n`,
    };
    expect((await pushDelivery(local.url, SPACE, delivery, local.keyOf(rerun.host))).status).toBe(202);
    const attempts = await eventually(
      async () => {
        const body = await api<AttemptsBody>(apiPaths.attempts(SPACE, rerun.id));
        return body.attempts.length === 2 && body.attempts[0]!.judgeVerdict !== null && body;
      },
      60_000,
      250,
    );
    // The page follows the new attempt without a reload.
    await eventually(async () => (await reRunsCell().textContent()) === '1', 30_000, 250);

    await p.goto(`${local.url}/?view=runs&run=${encodeURIComponent(rerun.id)}`);
    await p.locator('#run-attempts tbody tr').first().waitFor();
    const rows = p.locator('#run-attempts tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await p.locator('#run-attempts h3').innerText()).toBe('Attempts (2: this run was re-run)');
    expect(await rows.nth(0).getAttribute('data-current')).toBe('true');
    expect(await rows.nth(1).getAttribute('data-current')).toBe('false');
    expect(await rows.nth(0).locator('td').first().innerText()).toBe('current');
    expect(await rows.nth(1).locator('td').first().innerText()).toBe('earlier');
    const verdictLabel = (v: string | null) => (v === null ? 'not judged yet' : v.replace('_', ' '));
    expect(await rows.locator('.chip').allInnerTexts()).toEqual(
      attempts.attempts.map((a) => verdictLabel(a.judgeVerdict)),
    );
    expect(await rows.nth(0).locator('td').nth(1).innerText()).toBe(
      later(row.finishedAt)
        .replace('T', ' ')
        .replace(/:\d\d\.\d+Z$/, ' UTC'),
    );
    await p.locator('#run-attempts').screenshot({ path: `${SHOTS}/cockpit-attempts.png` });
    await p.close();
  });
});

/** Every run id the virtualised grid lists, read by scrolling it from top to bottom. */
async function gridIds(p: Page): Promise<string[]> {
  return p.evaluate(async () => {
    const scroller = document.querySelector<HTMLElement>('.grid-scroll')!;
    const ids = new Set<string>();
    for (let top = 0; ; top += scroller.clientHeight / 2) {
      scroller.scrollTop = top;
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      for (const row of scroller.querySelectorAll<HTMLElement>('[data-id]')) ids.add(row.dataset.id!);
      if (top >= scroller.scrollHeight) return [...ids];
    }
  });
}

describe('exports', () => {
  it('hold exactly the rows the grid shows, under the filters, the verdict and the search', async () => {
    const search = A.model.split(' ')[1]!.toLowerCase();
    const p = await openPage(`/?view=runs&tier=easy&verdict=resolved&verdict=wrong&q=${encodeURIComponent(search)}`);
    const inView = Number(/^([\d,]+) of/.exec(await p.locator('.runs-count').innerText())![1]!.replace(/,/g, ''));
    expect(inView).toBeGreaterThan(0);
    const shown = await gridIds(p);
    expect(shown.length).toBe(inView);
    const hrefs: Record<string, URL> = {};
    for (const format of ['csv', 'json', 'parquet']) {
      hrefs[format] = new URL((await p.locator(`#export-${format}`).getAttribute('href'))!, local.url);
      expect(hrefs[format]!.pathname).toBe(`/api/spaces/${SPACE}/export.${format}`);
      expect(hrefs[format]!.searchParams.getAll('verdict')).toEqual(['resolved', 'wrong']);
      expect(hrefs[format]!.searchParams.get('q')).toBe(search);
    }
    const exported = (await api<{ runs: { id: string }[] }>(hrefs.json!.pathname.slice(4) + hrefs.json!.search)).runs;
    expect(exported.map((r) => r.id).sort()).toEqual([...shown].sort());
    const csv = await (await fetch(hrefs.csv!)).text();
    expect(csv.trimEnd().split('\r\n').length).toBe(inView + 1);
    const parquet = await (await fetch(hrefs.parquet!)).arrayBuffer();
    const rows = await parquetReadObjects({ file: parquet, columns: ['id'] });
    expect(rows.map((r) => r.id as string).sort()).toEqual([...shown].sort());
    await p.locator('.runs-toolbar').screenshot({ path: `${SHOTS}/cockpit-exports.png` });
    await p.close();
  });
});

describe('the cards’ data', () => {
  it('downloads exactly the points a card shows: the verdict mix counts each configuration’s runs by verdict', async () => {
    const p = await openPage();
    const card = p.locator('#chart-verdict-mix');
    await card.scrollIntoViewIfNeeded();
    const [download] = await Promise.all([p.waitForEvent('download'), card.locator('.card-data').click()]);
    expect(download.suggestedFilename()).toBe('chart-verdict-mix.csv');
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    const runs = (
      await api<{ runs: { model: string; harnessVersion: string; judgeVerdict: string | null }[] }>(
        apiPaths.export(SPACE, 'json'),
      )
    ).runs;
    const configurations = new Set(runs.map((r) => `${r.model}|${r.harnessVersion}`));
    expect(rows).toHaveLength(configurations.size);
    for (const row of rows) {
      const mine = runs.filter((r) => r.model === row.model && r.harnessVersion === row.harnessVersion);
      expect(Number(row.runs)).toBe(mine.length);
      for (const verdict of ['resolved', 'partial', 'wrong', 'no_change', 'error', 'excluded'])
        expect({ verdict, n: Number(row[verdict]) }).toEqual({
          verdict,
          n: mine.filter((r) => r.judgeVerdict === verdict).length,
        });
    }
    await p.close();
  });

  it('offers every chart card’s data, named after the card', async () => {
    const ids = await (async () => {
      const p = await openPage();
      const found = await p.locator('.cards > .card').evaluateAll((cards) => cards.map((c) => c.id));
      await p.close();
      return found;
    })();
    expect(ids.length).toBeGreaterThanOrEqual(12);
    // One download per page: headless Chromium's limit on several downloads from one tab now and then drops a
    // download that a click did ask for (the click lands, the anchor is clicked, no download starts).
    for (const id of ids) {
      const p = await openPage();
      const card = p.locator(`#${id}`);
      await card.scrollIntoViewIfNeeded();
      await settled(p);
      // A card offers its data once drawn; the cost cards draw when their figures arrive from the API, which
      // the page's settling does not wait for. Wait for the button first, so a card with nothing says which.
      const button = card.locator('.card-data:enabled');
      await button.waitFor({ timeout: 20_000 }).catch(async () => {
        throw new Error(`${id} offers no data to download; it reads: ${await card.locator('.card-body').innerText()}`);
      });
      const [download] = await Promise.all([p.waitForEvent('download'), button.click()]).catch((e: Error) => {
        throw new Error(`${id}: ${e.message}`);
      });
      expect(download.suggestedFilename()).toBe(`${id}.csv`);
      const text = readFileSync((await download.path())!, 'utf8');
      expect({ id, rows: text.trimEnd().split('\r\n').length > 1 }).toEqual({ id, rows: true });
      await p.close();
    }
  }, 120_000);
});

describe('the cost cards', () => {
  it('show judge spend against the cap, and cost per resolved task with unpriced models as unknown, never $0', async () => {
    const p = await openPage();
    const spend = p.locator('#chart-judge-spend');
    await spend.scrollIntoViewIfNeeded();
    await spend.locator('#judge-cost-table').waitFor();
    expect(await spend.locator('#spend-per-day, #spend-none').count()).toBe(1);
    const stats = await api<StatsBody>(apiPaths.stats(SPACE));
    // The stand-in judge is priced: every configuration's judge spend is a sum in dollars.
    for (const cell of await spend.locator('#judge-cost-table tbody td:nth-child(3)').allTextContents())
      expect(cell).toMatch(/^\$[\d.,]+$/);
    const card = p.locator('#chart-cost');
    await card.scrollIntoViewIfNeeded();
    await card.locator('#cost-table').waitFor();
    for (const g of stats.groups) {
      const row = card.locator(`#cost-table tbody tr[data-model="${g.model}"][data-harness="${g.harnessVersion}"]`);
      const cells = await row.locator('td').allTextContents();
      if (g.model === PRICED) {
        expect(g.runCost.priced).toBeGreaterThan(0);
        expect(cells[1]).toMatch(/^\$[\d.,]+$/);
      } else {
        expect(g.runCost.totalUsd).toBeNull();
        // Of no priced run, none resolved is known: the column says there is none, the others are unknown.
        expect(cells).toEqual(['none', ...Array(3).fill('unknown'), 'no priced run', ...Array(2).fill('unknown')]);
      }
    }
    // Only the priced model is on the chart; every unpriced one is named beside it.
    expect(await card.locator('#pareto .point').count()).toBe(stats.groups.filter((g) => g.model === PRICED).length);
    expect(await card.locator('#pareto-left-off').textContent()).toContain(A.model);
    await card.screenshot({ path: `${SHOTS}/analysis-cost.png` });
    await p.close();
  });
});
