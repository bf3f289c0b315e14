// The analyst's cockpit at 100,000 runs of 12 configurations (730 tasks a wave), part of `npm run bench:dashboard`:
// - switching the outcome (hidden tests ⇄ judge), timed from the click until every card shows the figures on
//   the new outcome and the frame after it is painted, beside its floor: the same switch on the Hosts area,
//   where no card is drawn (the state, the address bar, the view model and a frame);
// - Compare's all pairs of the 12 configurations (66 pairs), timed from the click to the painted table, beside
//   its floor: the same click on the Hosts area (no card drawn); and the computation alone (allPairs in Node
//   on the same runs), beside one pass over them (groupRuns).
// Median and max of every figure, each beside its floor, in one run.
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { NO_FILTERS, selectRuns } from '#analytics/run-selection.ts';
import { groupRuns } from '#analytics/run-grouping.ts';
import { allPairs } from '#analytics/all-pairs.ts';
import { columnsFromBytes } from '#analytics/columns.ts';
import { RunTable } from '#analytics/run-table.ts';
import { parseConfig } from '#schema/config.ts';
import { cockpitReady } from './cockpit-ready.ts';
import { loadSpace, preparedBefore } from './load-space.ts';
import { syntheticCampaign } from './synthetic-campaign.ts';

const SPACE = 'AnalysisBench';
const HOSTS = ['bench-host-1', 'bench-host-2'];
const TARGETS = { outcomeSwitchMs: 150, allPairsMs: 100 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

/** Clicks `selector` and returns the ms until every part of the page is filled and the next frame painted. */
async function timedClick(page: Page, selector: string): Promise<number> {
  return page.evaluate(async (s) => {
    // (No named functions in here: tsx would wrap them in a helper the page does not have.)
    const target = document.querySelector<HTMLElement>(s)!;
    const t0 = performance.now();
    target.click();
    while ((document.documentElement.dataset.pendingParts ?? '0') !== '0') await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return performance.now() - t0;
  }, selector);
}

async function openCockpit(browser: Browser, url: string, runs: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url);
  await cockpitReady(page, runs, 120_000);
  return page;
}

/** Alternating clicks on two selectors, `rounds` times each; the times of the clicks on `measured`. */
async function alternate(page: Page, measured: string, other: string, rounds: number) {
  const on: number[] = [];
  const off: number[] = [];
  for (let k = 0; k < rounds; k++) {
    on.push(await timedClick(page, measured));
    off.push(await timedClick(page, other));
  }
  return { on, off };
}

export async function measureAnalysis(
  browser: Browser,
  options: { runs: number; rounds: number; fresh: boolean },
): Promise<void> {
  const { runs, rounds } = options;
  const dataDir = resolve(import.meta.dirname, 'results', `dashboard-analysis-${runs}`);
  const loaded = preparedBefore(dataDir, runs, options.fresh);
  const config = parseConfig({ spaces: { [SPACE]: { senders: HOSTS } }, cockpits: { Analysis: { space: SPACE } } });
  const landedAt = new Date().toISOString();
  // 6 models × 2 harness versions = 12 configurations, each on runs / 12 tasks in waves of 730.
  const campaign = syntheticCampaign(
    { space: SPACE, runs, hosts: HOSTS, models: 6, harnesses: ['h1', 'h2'], tasksPerWave: 730 },
    landedAt,
  );
  if (!loaded) await loadSpace(config, dataDir, SPACE, campaign.issues, [...campaign.rows()]);
  const local = await startLocalMode({ config, dataDir, port: 0, sweepIntervalSeconds: 3600, env: {} });
  try {
    // The outcome switch: every card of the dashboard, then the floor on the Hosts area.
    const dashboard = await openCockpit(browser, `${local.url}/`, runs);
    await timedClick(dashboard, '[data-outcome="judge"]');
    await timedClick(dashboard, '[data-outcome="tests"]');
    const cards = await alternate(dashboard, '[data-outcome="judge"]', '[data-outcome="tests"]', rounds);
    await dashboard.context().close();
    const hosts = await openCockpit(browser, `${local.url}/?view=hosts`, runs);
    const floor = await alternate(hosts, '[data-outcome="judge"]', '[data-outcome="tests"]', rounds);
    const pairsFloor = await alternate(hosts, '[data-mode="all"]', '[data-mode="one"]', rounds);
    await hosts.context().close();

    // All pairs of the 12 configurations, each click from one pair's view; the outcome alternates, so each
    // all pairs is computed afresh rather than found again.
    const compare = await openCockpit(browser, `${local.url}/?view=compare`, runs);
    const pairsClicks: number[] = [];
    for (let k = 0; k < rounds; k++) {
      await timedClick(compare, k % 2 ? '[data-outcome="tests"]' : '[data-outcome="judge"]');
      pairsClicks.push(await timedClick(compare, '[data-mode="all"]'));
      await timedClick(compare, '[data-mode="one"]');
    }
    const shown = await compare.locator('#all-pairs-table tbody tr').count();
    await compare.context().close();

    // The computation alone, in Node, on the same runs as the page reads them.
    const body = new Uint8Array(await (await fetch(`${local.url}/api/spaces/${SPACE}/columns`)).arrayBuffer());
    const table = RunTable.fromColumns([columnsFromBytes(body)]);
    const selection = selectRuns(table, NO_FILTERS);
    const compute: number[] = [];
    const pass: number[] = [];
    let pairs = 0;
    for (let k = 0; k < rounds * 2 + 2; k++) {
      const t0 = performance.now();
      const groups = groupRuns(table, selection).groups;
      const t1 = performance.now();
      pairs = allPairs(table, selection, groups, k % 2 ? 'judge' : 'tests').rows.length;
      const t2 = performance.now();
      if (k < 2) continue;
      pass.push(t1 - t0);
      compute.push(t2 - t1);
    }

    const row = (name: string, xs: number[], floorXs: number[] | null, target = '') =>
      console.log(
        `${name.padEnd(40)}${ms(median(xs)).padStart(10)}${ms(Math.max(...xs)).padStart(10)}` +
          `${(floorXs ? ms(median(floorXs)) : '').padStart(10)}${(floorXs ? ms(Math.max(...floorXs)) : '').padStart(10)}  ${target}`,
      );
    const met = (value: number, limit: number) => `< ${ms(limit)} ${value < limit ? 'met' : 'MISSED'}`;
    console.log(
      `\nAnalysis at ${runs.toLocaleString('en-US')} runs: 12 configurations (6 models × 2 harness versions) ` +
        `in waves of 730 tasks; ${rounds} clicks each way.`,
    );
    console.log(
      `${''.padEnd(40)}${'median'.padStart(10)}${'max'.padStart(10)}${'floor med'.padStart(10)}${'floor max'.padStart(10)}  target`,
    );
    const switches = [...cards.on, ...cards.off];
    row(
      'outcome switch, every card',
      switches,
      [...floor.on, ...floor.off],
      met(median(switches), TARGETS.outcomeSwitchMs),
    );
    row(
      `all pairs click (${shown} rows shown)`,
      pairsClicks,
      pairsFloor.on,
      met(median(pairsClicks), TARGETS.allPairsMs),
    );
    row(`all pairs computed (${pairs} pairs, Node)`, compute, pass, met(median(compute), TARGETS.allPairsMs));
    console.log('Floors: the same clicks on the Hosts area (no card drawn); one grouping pass over the runs.');
  } finally {
    await local.stop();
  }
}
