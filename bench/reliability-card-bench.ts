// The Reliability card at 100,000 runs of 12 configurations × 5 samples (6 models × 2 harness versions, 1,667 tasks
// each), part of `npm run bench:dashboard` (`-- --reliability-only` for it alone): on each outcome switch the card
// computes pass@k and pass^k with their bootstrap intervals for every configuration and draws its two charts and
// tables; timed per switch by the page's own measures of the card (`fill #chart-reliability`, its figures and DOM,
// and `draw #reliability-pass-at` and `-hat`, uPlot drawing each chart), with the whole switch (every card, to the
// painted frame) beside it. Floor: the same switch on
// the Hosts area, where no card is drawn (the state, the address bar, the view model and a frame).
// Median and max of `rounds` clicks each way, in one run.
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { parseConfig } from '#schema/config.ts';
import { cockpitReady } from './cockpit-ready.ts';
import { loadSpace, preparedBefore } from './load-space.ts';
import { syntheticCampaign } from './synthetic-campaign.ts';

const SPACE = 'SamplesBench';
const HOSTS = ['bench-host-1', 'bench-host-2'];
const SAMPLES = 5;
const TARGET_MS = 150;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

/** Clicks the outcome `to`; the ms until every part is filled and the next frame painted, and the card's own measure. */
async function switchOutcome(page: Page, to: 'judge' | 'tests'): Promise<{ switchMs: number; cardMs: number | null }> {
  return page.evaluate(async (outcome) => {
    // (No named functions in here: tsx would wrap them in a helper the page does not have.)
    const parts = ['fill #chart-reliability', 'draw #reliability-pass-at', 'draw #reliability-pass-hat'];
    for (const name of parts) performance.clearMeasures(name);
    const t0 = performance.now();
    document.querySelector<HTMLElement>(`[data-outcome="${outcome}"]`)!.click();
    while ((document.documentElement.dataset.pendingParts ?? '0') !== '0') await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const measured = parts.map((name) => performance.getEntriesByName(name, 'measure')[0]);
    const cardMs = measured.every(Boolean) ? measured.reduce((sum, m) => sum + m!.duration, 0) : null;
    return { switchMs: performance.now() - t0, cardMs };
  }, to);
}

async function openCockpit(browser: Browser, url: string, runs: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url);
  await cockpitReady(page, runs, 180_000);
  return page;
}

async function alternate(page: Page, rounds: number) {
  const times: { switchMs: number; cardMs: number | null }[] = [];
  for (let k = 0; k < rounds; k++) {
    times.push(await switchOutcome(page, 'judge'));
    times.push(await switchOutcome(page, 'tests'));
  }
  return times;
}

export async function measureReliabilityCard(
  browser: Browser,
  options: { runs: number; rounds: number; fresh: boolean },
): Promise<void> {
  const { runs, rounds } = options;
  const dataDir = resolve(import.meta.dirname, 'results', `dashboard-samples-${runs}`);
  const loaded = preparedBefore(dataDir, runs, options.fresh);
  const config = parseConfig({ spaces: { [SPACE]: { senders: HOSTS } }, cockpits: { Samples: { space: SPACE } } });
  const landedAt = new Date().toISOString();
  const campaign = syntheticCampaign(
    { space: SPACE, runs, hosts: HOSTS, models: 6, harnesses: ['h1', 'h2'], tasksPerWave: 730, samples: SAMPLES },
    landedAt,
  );
  if (!loaded) await loadSpace(config, dataDir, SPACE, campaign.issues, [...campaign.rows()]);
  const local = await startLocalMode({ config, dataDir, port: 0, sweepIntervalSeconds: 3600, env: {} });
  try {
    const dashboard = await openCockpit(browser, `${local.url}/`, runs);
    // The card is where the reader looks, so it is filled in the click's own task.
    await dashboard.locator('#chart-reliability').scrollIntoViewIfNeeded();
    await alternate(dashboard, 1);
    const points = await dashboard.locator('#reliability-points tbody tr').count();
    const cards = await alternate(dashboard, rounds);
    await dashboard.context().close();
    const hosts = await openCockpit(browser, `${local.url}/?view=hosts`, runs);
    const floor = await alternate(hosts, rounds);
    await hosts.context().close();

    const card = cards.map((c) => c.cardMs).filter((v): v is number => v !== null);
    if (card.length !== cards.length) throw new Error('The Reliability card was not drawn on every switch.');
    const row = (name: string, xs: number[], floorXs: number[], target = '') =>
      console.log(
        `${name.padEnd(44)}${ms(median(xs)).padStart(10)}${ms(Math.max(...xs)).padStart(10)}` +
          `${ms(median(floorXs)).padStart(10)}${ms(Math.max(...floorXs)).padStart(10)}  ${target}`,
      );
    console.log(
      `\nReliability card at ${runs.toLocaleString('en-US')} runs: 12 configurations × ${SAMPLES} samples ` +
        `(${points} points drawn); ${rounds} outcome switches each way.`,
    );
    console.log(
      `${''.padEnd(44)}${'median'.padStart(10)}${'max'.padStart(10)}${'floor med'.padStart(10)}${'floor max'.padStart(10)}  target`,
    );
    const floorSwitch = floor.map((f) => f.switchMs);
    row(
      'Reliability card, fill and draw',
      card,
      floorSwitch,
      `< ${ms(TARGET_MS)} ${median(card) < TARGET_MS ? 'met' : 'MISSED'}`,
    );
    row(
      'outcome switch, every card',
      cards.map((c) => c.switchMs),
      floorSwitch,
    );
    console.log('Floor: the same switch on the Hosts area (no card drawn).');
  } finally {
    await local.stop();
  }
}
