// `npm run bench:compactor-memory -- --runs N --before <commit>`: the snapshot compactor's peak heap at N runs
// (200,000 by default), each compaction in a fresh Node process over the same local-mode table: a full rebuild
// (no manifest, so the whole table is read) and then a delta compaction of 1% of the runs changed since. Run for
// the compactor in this tree and, with --before, for the one at another commit (its tree written to a temporary
// folder by `git archive`, sharing this node_modules), on the same table. The heap is the main isolate's (the
// emulators run in a worker thread, an isolate of their own), sampled every millisecond during the compaction,
// beside its floor: the same process just before (modules loaded, local mode started, the 1% touched, after a
// full GC). Options: --runs N (200000) --before <commit> --fresh
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { getHeapStatistics } from 'node:v8';
import { systemClock } from '#core/ports.ts';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { parseConfig } from '#schema/config.ts';
import { preparedBefore, loadSpace } from './load-space.ts';
import { BENCH_CAMPAIGN, syntheticCampaign } from './synthetic-campaign.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200000' },
    before: { type: 'string' },
    fresh: { type: 'boolean' },
    // Internal: one measurement in this process.
    measure: { type: 'string' },
    tree: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const SPACE = 'BenchSpace';
const TOUCHED = Math.round(RUNS / 100);
const here = resolve(import.meta.dirname, '..');
const dataDir = resolve(import.meta.dirname, 'results', `compactor-memory-${RUNS}`);
const config = parseConfig({
  spaces: { [SPACE]: { senders: BENCH_CAMPAIGN.hosts } },
  cockpits: { Bench: { space: SPACE } },
});
const mb = (bytes: number) => bytes / 1024 / 1024;

interface Measurement {
  kind: string;
  ms: number;
  floorMb: number;
  peakMb: number;
  changed: number;
  runs: number;
}

/** One compaction by the compactor of `tree`, in this process: a rebuild from the table or a delta of 1%. */
async function measure(kind: 'rebuild' | 'delta', tree: string): Promise<Measurement> {
  const store = await import(pathToFileURL(join(tree, 'core/read/snapshot-store.ts')).href);
  const layout = await import(pathToFileURL(join(tree, 'core/storage-layout.ts')).href);
  const local = await startLocalMode({
    config,
    dataDir,
    port: 0,
    sweepIntervalSeconds: 3600,
    snapshotIntervalSeconds: 0,
    env: {},
  });
  try {
    const table = local.adapters.table;
    if (kind === 'rebuild') await local.adapters.data.delete(layout.snapshotManifestKey(SPACE));
    else {
      // 1% of the runs written again after the snapshot: what a delta compaction reads.
      const now = new Date().toISOString();
      const { rows } = syntheticCampaign({ space: SPACE, runs: TOUCHED, ...BENCH_CAMPAIGN }, now);
      for (const { id } of rows()) {
        const stored = (await table.getRun(SPACE, id))!;
        await table.putRun({ ...stored.value, updatedAt: now }, stored.rev);
      }
    }
    (globalThis as { gc?: () => void }).gc!();
    const used = () => getHeapStatistics().used_heap_size;
    const floor = used();
    let peak = floor;
    const sampler = setInterval(() => (peak = Math.max(peak, used())), 1);
    const t0 = performance.now();
    const result = await store.compactSpace(
      { runs: table, issues: table, objects: local.adapters.data, clock: systemClock },
      SPACE,
    );
    const ms = performance.now() - t0;
    clearInterval(sampler);
    peak = Math.max(peak, used());
    // A compactor from before delta parts names no kind, only where its runs came from.
    return {
      kind: result.kind ?? `from ${result.source}`,
      ms,
      floorMb: mb(floor),
      peakMb: mb(peak),
      changed: result.changed,
      runs: result.runs,
    };
  } finally {
    await local.stop();
  }
}

/** Runs one measurement in a fresh Node process (tsx's loader, `--expose-gc`) and answers its figures. */
function inFreshProcess(kind: 'rebuild' | 'delta', tree: string): Measurement {
  const child = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      ...process.execArgv,
      import.meta.filename,
      '--runs',
      String(RUNS),
      '--measure',
      kind,
      '--tree',
      tree,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (child.status !== 0) throw new Error(`The ${kind} measurement failed (exit ${child.status}): ${child.stdout}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!);
}

/** The repository's tree at `commit`, written once outside this one (its type check), with this tree's node_modules. */
function treeAt(commit: string): string {
  const dir = join(tmpdir(), `replay-bench-tree-${commit}`);
  if (!existsSync(join(dir, 'package.json'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execSync(`git archive ${commit} | tar -x -C '${dir}'`, { cwd: here, stdio: 'inherit' });
    symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
  }
  return dir;
}

if (values.measure) {
  console.log(JSON.stringify(await measure(values.measure as 'rebuild' | 'delta', values.tree!)));
  process.exit(0);
}

if (!preparedBefore(dataDir, RUNS, values.fresh ?? false)) {
  const landedAt = new Date(Date.now() - 60_000).toISOString();
  const campaign = syntheticCampaign({ space: SPACE, runs: RUNS, ...BENCH_CAMPAIGN }, landedAt);
  await loadSpace(config, dataDir, SPACE, campaign.issues, [...campaign.rows()]);
}
const trees: [string, string][] = [
  ...(values.before ? [[`before (${values.before})`, treeAt(values.before)] as [string, string]] : []),
  ['this tree', here],
];
console.log(`\nThe snapshot compactor at ${RUNS.toLocaleString('en-US')} runs, each compaction in a fresh process:`);
console.log(
  `${'compactor'.padEnd(24)}${'compaction'.padEnd(32)}${'time'.padStart(9)}${'peak heap'.padStart(11)}` +
    `${'floor'.padStart(9)}${'peak − floor'.padStart(14)}`,
);
for (const [name, tree] of trees) {
  for (const kind of ['rebuild', 'delta'] as const) {
    const m = inFreshProcess(kind, tree);
    const what = `${m.kind}, ${m.changed.toLocaleString('en-US')} changed`;
    console.log(
      `${name.padEnd(24)}${what.padEnd(32)}${`${(m.ms / 1000).toFixed(1)} s`.padStart(9)}` +
        `${`${Math.round(m.peakMb)} MB`.padStart(11)}${`${Math.round(m.floorMb)} MB`.padStart(9)}` +
        `${`${Math.round(m.peakMb - m.floorMb)} MB`.padStart(14)}`,
    );
  }
}
