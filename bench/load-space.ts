// Loads a synthetic space into a local-mode data folder once, for the cockpit benchmarks: runs and issues go
// straight into the store (direct-load.ts), then one compaction writes the persisted snapshot. A marker file
// says the folder holds all of them, so a later run skips the load; without it the folder holds an
// interrupted load, and perhaps a snapshot missing its rows, and is emptied first.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLocalMode } from '#infra/local/local-mode.ts';
import { systemClock } from '#core/ports.ts';
import { compactSpace } from '#core/read/snapshot-store.ts';
import type { ReplayConfig } from '#schema/config.ts';
import type { SentIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import { loadIssues, loadRows } from './direct-load.ts';

/** Whether `dataDir` holds a complete load of `runs` runs; when it does not (or `fresh`), it is emptied. */
export function preparedBefore(dataDir: string, runs: number, fresh: boolean): boolean {
  const marker = join(dataDir, 'loaded.json');
  const loaded =
    !fresh && existsSync(marker) && (JSON.parse(readFileSync(marker, 'utf8')) as { runs: number }).runs === runs;
  if (!loaded) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  return loaded;
}

/**
 * Loads with the compactor off: runs and issues are stamped when they were generated, before the load, so
 * a snapshot written during the load has an `asOf` after the stamps of those still to come, and its `since`
 * delta would never bring them in. One compaction after the load reads the whole table.
 */
export async function loadSpace(
  config: ReplayConfig,
  dataDir: string,
  space: string,
  issues: SentIssue[],
  rows: RunRow[],
): Promise<void> {
  const local = await startLocalMode({
    config,
    dataDir,
    port: 0,
    sweepIntervalSeconds: 3600,
    snapshotIntervalSeconds: 0,
    env: {},
  });
  try {
    const started = Date.now();
    const store = local.adapters.table;
    await loadIssues(store, issues);
    await loadRows(store, rows, {
      concurrency: 32,
      onProgress: (n) => console.log(`  loaded ${n} runs (${((Date.now() - started) / 1000).toFixed(0)} s)`),
    });
    const snapshot = await compactSpace(
      { runs: store, issues: store, objects: local.adapters.data, clock: systemClock },
      space,
    );
    writeFileSync(join(dataDir, 'loaded.json'), JSON.stringify({ runs: rows.length }));
    console.log(
      `Loaded into the store and compacted (${snapshot.runs} runs in the snapshot) in ${((Date.now() - started) / 1000).toFixed(1)} s (kept for the next run).`,
    );
  } finally {
    await local.stop();
  }
}
