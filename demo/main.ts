// `npm run demo`: a realistic campaign in the cockpit within a minute (docs/contract.md §6 "Demo campaign"). It
// starts its own local mode on HOST:PORT (on a free port when that one is taken, by `npm start` say) with its own
// data folder and the stand-in judge, pushes the campaign through the signed endpoint, reports delivery, landing
// and judging as they go, and serves the cockpit once every run is final, until Ctrl-C. Only with --url does it
// push into a local mode it did not start.
// Options: --source (or --campaign) swe-bench-lite (default) | swe-bench-pro | terminal-bench, --data DIR,
// --tasks N, --seed S, --space NAME,
// --url URL, --fresh. The data is checked first: a missing or corrupt file stops it with a message naming it.
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalKeySource } from '#adapters/local/env-key-source.ts';
import { parseConfig, readConfigFile, type ReplayConfig } from '#schema/config.ts';
import type { CockpitsBody, RunsPage } from '#analytics/contract.ts';
import { apiPaths } from '#analytics/contract.ts';
import { ingestUrl } from '#runner/push.ts';
import { buildCampaign, readSourceRuns, type DemoCampaign } from './campaign.ts';
import { isDecided } from '#core/judge/transitions.ts';
import { deliverCampaign, writeCampaignFolders, type DeliveredCounts, type DeliveryAnswers } from './delivery.ts';
import { DEMO_JUDGE_MODEL, startDemoJudge } from './judge.ts';
import { DEMO_DATA_DIR, readDemoData } from './data.ts';
import { buildLiteCampaign, LITE_CAMPAIGN } from './lite-campaign.ts';
import { buildTerminalBenchCampaign, TERMINAL_BENCH_CAMPAIGN } from './terminal-bench-campaign.ts';
import { readTerminalBenchData } from './terminal-bench-data.ts';
import { DEMO_JUDGE_PRICE, DEMO_RUNNER_PRICES } from './prices.ts';
import { localPaths, PROJECT_ROOT } from '#infra/local/paths.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values: args } = parseArgs({
  options: {
    source: { type: 'string' },
    campaign: { type: 'string' },
    data: { type: 'string', default: DEMO_DATA_DIR },
    tasks: { type: 'string' },
    seed: { type: 'string', default: '7' },
    space: { type: 'string' },
    url: { type: 'string' },
    fresh: { type: 'boolean', default: false },
  },
});
const SOURCES = {
  'swe-bench-lite': { space: 'SweBenchLiteDemo', defaultTasks: null, campaign: LITE_CAMPAIGN },
  'swe-bench-pro': { space: 'SweBenchProDemo', defaultTasks: 50, campaign: null },
  'terminal-bench': { space: 'TerminalBenchDemo', defaultTasks: null, campaign: TERMINAL_BENCH_CAMPAIGN },
} as const;
const sourceName = args.campaign ?? args.source ?? 'swe-bench-lite';
type Source = keyof typeof SOURCES;
const DEMO_SENDERS = ['demo-runner-1', 'demo-runner-2'];
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8787);

async function main() {
  if (!Object.hasOwn(SOURCES, sourceName))
    throw new Error(`--campaign is ${Object.keys(SOURCES).join(' or ')}, not "${sourceName}".`);
  const source = sourceName as Source;
  const tasks = args.tasks === undefined ? SOURCES[source].defaultTasks : Number(args.tasks);
  if (tasks !== null && (!Number.isInteger(tasks) || tasks < 1))
    throw new Error('--tasks must be a whole number of at least 1.');
  // Read (and check) the data before anything starts, so a missing or corrupt file is all the demo says.
  const build = campaignBuilder(source, tasks);
  if (args.url) {
    const running = await cockpitsAt(args.url);
    if (!running)
      throw new Error(`Nothing answers at ${args.url}/api/cockpits: start local mode first, or leave out --url.`);
    return pushToRunning(args.url, running, build);
  }
  // A local mode the demo did not start has another configuration, other keys and no stand-in judge: the demo
  // never pushes into it unasked, and runs its own beside it.
  const free = await portIsFree(port);
  if (!free)
    console.log(
      `Port ${port} is taken (by \`npm start\`?), so the demo starts its own local mode on a free port; ` +
        `to push into the one at http://${host}:${port} instead, run \`npm run demo -- --url http://${host}:${port}\`.`,
    );
  await startAndPush(source, build, free ? port : 0);
}

async function portIsFree(candidate: number): Promise<boolean> {
  const probe = createServer();
  const free = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(candidate, host, () => resolve(true));
  });
  if (free) await new Promise((resolve) => probe.close(resolve));
  return free;
}

type CampaignBuilder = (hosts: string[]) => DemoCampaign | Promise<DemoCampaign>;

function campaignBuilder(source: Source, tasks: number | null): CampaignBuilder {
  const seed = Number(args.seed);
  if (source === 'terminal-bench') {
    readTerminalBenchData();
    return (hosts) => buildTerminalBenchCampaign({ tasks: tasks ?? undefined, seed, hosts });
  }
  if (source === 'swe-bench-pro') {
    const runs = readSourceRuns();
    return (hosts) => buildCampaign(runs, { tasks: tasks ?? SOURCES[source].defaultTasks, seed, hosts });
  }
  const data = readDemoData(args.data);
  return (hosts) => buildLiteCampaign(data, { tasks: tasks ?? undefined, seed, hosts });
}

/** Which cockpits a running local mode serves, or null when nothing (or not local mode) answers. */
async function cockpitsAt(url: string): Promise<CockpitsBody | null> {
  try {
    const response = await fetch(`${url}/api${apiPaths.cockpits()}`, { signal: AbortSignal.timeout(1500) });
    return response.ok ? ((await response.json()) as CockpitsBody) : null;
  } catch {
    return null;
  }
}

/** Builds the campaign and prints the banner: what it holds, counted from what was built. */
async function campaignFor(build: CampaignBuilder, hosts: string[]): Promise<DemoCampaign> {
  const campaign = await build(hosts);
  const rows = campaign.runs.map((r) => r.delivery.row as { model: string; harnessVersion: string });
  const configurations = new Set(rows.map((r) => `${r.model} · ${r.harnessVersion}`)).size;
  const harnesses = new Set(rows.map((r) => r.harnessVersion)).size;
  console.log(
    `Demo campaign: ${campaign.runs.length} runs: ${configurations} model configurations ` +
      `(${campaign.models} models, ${harnesses} harness versions) on ${campaign.source}.`,
  );
  for (const line of campaign.provenance.lines()) console.log(`  ${line}`);
  console.log(
    `  Verdicts: ${campaign.verdicts ?? `the stand-in judge "${DEMO_JUDGE_MODEL}", from each run's hidden-test outcome (data/README.md)`}.`,
  );
  return campaign;
}

async function startAndPush(source: Source, build: CampaignBuilder, listenPort: number) {
  const { space, campaign: declared } = SOURCES[source];
  const campaignDeclared = declared ? { campaign: declared } : {};
  const dataDir = process.env.REPLAY_DATA_DIR ?? join(PROJECT_ROOT, '.replay-data', `demo-${source}`);
  if (args.fresh && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  const config = parseConfig({
    defaultJudgeModel: DEMO_JUDGE_MODEL,
    // Retries (a failed attempt, a missing issue record's next look) come after seconds here, not minutes.
    spaces: {
      [space]: { senders: DEMO_SENDERS, judge: { model: DEMO_JUDGE_MODEL, dailyCap: 100_000, retryBaseSeconds: 5 } },
    },
    cockpits: { [space]: { space, ...campaignDeclared } },
    // ILLUSTRATIVE prices (demo-prices.ts): demo-oracle is no real model and costs nothing, and the demo's token
    // counts are generated; some runner models stay unpriced, so their run cost reads "unknown" (a run whose
    // harness recorded its cost has that cost).
    prices: { ...DEMO_RUNNER_PRICES, [DEMO_JUDGE_MODEL]: DEMO_JUDGE_PRICE },
  });
  const campaign = await campaignFor(build, DEMO_SENDERS);
  const judge = await startDemoJudge(campaign);
  // Loaded once the data has been read: a broken data folder is reported before the pipeline's modules load.
  const { startLocalMode } = await import('#infra/local/local-mode.ts');
  const local = await startLocalMode({
    config,
    dataDir,
    host,
    port: listenPort,
    sweepIntervalSeconds: 5,
    env: { ...process.env, ...judge.env },
    log: (line) => console.log(`  ${line}`),
  });
  console.log(`\nCockpit: ${local.url}/   (data in ${dataDir}; --fresh starts over)`);
  console.log(
    `Judge: stand-in "${DEMO_JUDGE_MODEL}" at ${judge.anthropicUrl}. It answers from the hidden-test outcome and disagrees on purpose in ` +
      `about 1 run in 10. It is not a real judge; its price in the cost cards ($3 / $15 ` +
      `per million input / output tokens) and the runner models' prices are illustrative.\n`,
  );
  const stop = async () => {
    await local.stop();
    await judge.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  const started = Date.now();
  const delivery = { runs: 0, hiddenTests: 0, over: false };
  const following = followJudging(local.url, space, campaign, delivery, started);
  try {
    const done = await push(
      local.url,
      space,
      campaign,
      join(dataDir, 'keys'),
      join(dataDir, 'runs'),
      started,
      (answers) => {
        delivery.runs = answers.accepted.runs;
        delivery.hiddenTests = answers.accepted.hiddenTests;
      },
    );
    delivery.runs = done.answers.accepted.runs + done.report.alreadyAccepted;
    delivery.hiddenTests = done.answers.accepted.hiddenTests + done.report.alreadyAccepted;
  } finally {
    delivery.over = true;
  }
  await following;
  console.log(`Serving the cockpit at ${local.url}/ until Ctrl-C.`);
}

async function pushToRunning(url: string, running: CockpitsBody, build: CampaignBuilder) {
  const { configPath, keysDir } = localPaths();
  const config = readConfigFile(configPath);
  const space = args.space ?? running.cockpits[0]?.space ?? Object.keys(config.spaces)[0]!;
  if (!config.spaces[space])
    throw new Error(
      `Space "${space}" is not in ${configPath}, which the demo reads to find the senders and their keys.`,
    );
  console.log(
    `Local mode is already running at ${url}: pushing into space ${space} (senders ${config.spaces[space].senders.join(', ')}, keys from ${keysDir}).`,
  );
  console.log(
    `Judging happens in that process only if it was started with judge credentials (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, GITHUB_TOKEN); ` +
      `otherwise runs wait with judgeState "waiting-credentials". For verdicts from the ` +
      `stand-in judge "${DEMO_JUDGE_MODEL}", stop it and run \`npm run demo\` alone.\n`,
  );
  const keys = await keysFor(config, space, keysDir);
  // Runs are spread over the senders that have a key: a delivery from an unpaired host would be refused.
  const campaign = await campaignFor(build, [...keys.keys()]);
  await push(url, space, campaign, keysDir, join(localPaths().dataDir, 'demo-runs', space), Date.now()).catch(
    (error: Error) => {
      throw new Error(
        `${error.message} The demo signs with the keys in ${keysDir}: when local ` +
          `mode runs with another REPLAY_DATA_DIR or REPLAY_KEYS_DIR, give the demo the same.`,
      );
    },
  );
  console.log(`Open ${url}/ to see the campaign.`);
}

async function keysFor(config: ReplayConfig, space: string, keysDir: string): Promise<Map<string, string>> {
  const { senders, secretConfigKey } = config.spaces[space]!;
  const source = new LocalKeySource(keysDir);
  const keys = new Map<string, string>();
  for (const sender of senders) {
    const [key] = await source.keysFor(secretConfigKey, sender);
    if (key) keys.set(sender, key);
  }
  if (!keys.size) throw new Error(`No key for any sender of ${space} in the environment or ${keysDir}.`);
  return keys;
}

/**
 * Writes the campaign as run folders under `runsRoot` and delivers them with replay-push's sync core, so
 * the demo goes through the real runner path: outbox, ledger, signing, retries. A second demo against the
 * same data finds them already accepted.
 */
async function push(
  url: string,
  space: string,
  campaign: DemoCampaign,
  keysDir: string,
  runsRoot: string,
  started: number,
  onProgress?: (answers: DeliveryAnswers) => void,
) {
  const folders = writeCampaignFolders(campaign, runsRoot);
  console.log(
    `Wrote ${folders.length} run folders (replay-run/1) under ${runsRoot}; delivering them as \`replay-push sync\` does.`,
  );
  const done = await deliverCampaign(runsRoot, folders, { endpoint: ingestUrl(url, space), keysDir, onProgress });
  // Every count by kind of delivery, from the endpoint's answers: accepted (now or before) and rejected.
  const { accepted, rejected } = done.answers;
  const again = done.report.alreadyAccepted
    ? `; ${done.report.alreadyAccepted} run folders had been delivered before`
    : '';
  console.log(
    `Delivered ${kinds(accepted)} in ${secondsSince(started)} s${again}; rejected ` +
      `${rejected.issues + rejected.runs + rejected.hiddenTests ? kinds(rejected) : 'none'}.`,
  );
  if (rejected.issues + rejected.runs + rejected.hiddenTests)
    console.log(
      `  The endpoint's answers to the rejected ones are in ${join(runsRoot, '.replay-outbox', 'rejected')}.`,
    );
  return done;
}

const kinds = (c: DeliveredCounts) => `${c.issues} issues, ${c.runs} runs and ${c.hiddenTests} hidden-test results`;
const secondsSince = (started: number) => ((Date.now() - started) / 1000).toFixed(0);

async function allRuns(url: string, space: string): Promise<RunsPage['runs']> {
  const rows: RunsPage['runs'] = [];
  let cursor: string | undefined;
  do {
    const page = (await (await fetch(`${url}/api${apiPaths.runs(space, { cursor, limit: 1000 })}`)).json()) as RunsPage;
    rows.push(...page.runs);
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return rows;
}

/** How long the demo waits, once delivery is over, for every run to be final before it serves anyway. */
const FINAL_WITHIN_MS = 180_000;

/**
 * Reports every 5 s how many of the campaign's runs were delivered, have landed and are final (judged, flagged,
 * or decided at landing: docs/contract.md §5), and returns once every run is final — or, past the wait, names
 * the states the others are in.
 */
async function followJudging(
  url: string,
  space: string,
  campaign: DemoCampaign,
  delivery: { runs: number; hiddenTests: number; over: boolean },
  started: number,
) {
  const ids = new Set(campaign.runs.map((r) => r.id));
  const total = campaign.runs.length;
  let deadline = Infinity;
  for (;;) {
    await new Promise((r) => setTimeout(r, 5000));
    const rows = (await allRuns(url, space)).filter((r) => ids.has(r.id));
    const final = rows.filter(isDecided);
    const flagged = final.filter((r) => r.judgeState === 'flagged').length;
    // Each round reports, the last one too, so even a campaign final within 5 s shows its progress once.
    console.log(
      `  ${secondsSince(started)} s: delivered ${delivery.runs} of ${total} runs and ${delivery.hiddenTests} ` +
        `hidden-test results · ` +
        `landed ${rows.length} · final ${final.length} (judged or flagged)`,
    );
    if (delivery.over && final.length === total) {
      console.log(
        `Every run is final after ${secondsSince(started)} s: ${total - flagged} with a verdict` +
          `${flagged ? `, ${flagged} flagged (a check withheld the judge's "resolved")` : ''}.`,
      );
      return;
    }
    if (delivery.over && deadline === Infinity) deadline = Date.now() + FINAL_WITHIN_MS;
    if (Date.now() > deadline) {
      const states = new Map<string, number>();
      for (const r of rows) if (!isDecided(r)) states.set(r.judgeState, (states.get(r.judgeState) ?? 0) + 1);
      const waiting = [...states].map(([state, n]) => `${n} ${state}`);
      if (rows.length < total) waiting.push(`${total - rows.length} not landed`);
      console.log(`  Not every run is final after ${FINAL_WITHIN_MS / 1000} s more: ${waiting.join(', ')}.`);
      return;
    }
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
