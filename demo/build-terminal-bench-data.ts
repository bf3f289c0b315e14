// Builds data/terminal-bench/ (data/README.md) from a clone of the public Terminal-Bench leaderboard at a pinned
// commit: the agents that published five runs of every task of terminal-bench-core 0.1.1 with each trial's
// own times. Per run it keeps Terminal-Bench's layout and only what the product reads: each trial's outcome,
// failure mode, per-test parser results, token totals and times (never the task's instruction), and the run's
// start and data set. Run by `npm run build:demo-data -- --terminal-bench <clone>`.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '#schema/zod.ts';
import { gitShow, gitTree } from './git-show.ts';
import {
  KEPT_RUN_FIELDS,
  KEPT_TRIAL_FIELDS,
  readTerminalBenchData,
  TERMINAL_BENCH_CONFIGURATIONS,
  terminalBenchDataSchema,
  type TerminalBenchConfiguration,
} from './terminal-bench-data.ts';

export const LEADERBOARD = {
  repository: 'laude-institute/terminal-bench-leaderboard',
  commit: '8e1925a397d7ed859c027cc19b3a3d90c16ef8df',
};
const RESULTS = 'results/terminal-bench-core@0.1.1';
const DATASET = { name: 'terminal-bench-core', version: '0.1.1', tasks: 80 };
const TRIALS_PER_TASK = 5;

/** Each agent's submission: its folder there, and its model and harness version as the folder names them. */
const SUBMISSIONS = [
  ['openhands-claude-4-sonnet', 'claude-4-sonnet', 'openhands-20250711', '20250711_openhands_claude-4-sonnet'],
  ['cursor-cli-claude-4-sonnet', 'claude-4-sonnet', 'cursor-cli-20250811', '20250811_cursor-cli_claude-4-sonnet'],
  [
    'mini-swe-agent-claude-4-sonnet',
    'claude-4-sonnet',
    'mini-swe-agent-20250825',
    '20250825_swe-agent-mini_claude-4-sonnet',
  ],
  ['goose-claude-4-opus', 'claude-4-opus', 'goose-20250829', '20250829_goose_claude-4-opus'],
  ['goose-claude-4-sonnet', 'claude-4-sonnet', 'goose-20250829', '20250829_goose_claude-4-sonnet'],
  ['chaterm-claude-4-sonnet', 'claude-4-sonnet', 'chaterm-20250911', '20250911_chaterm_claude-4-sonnet'],
  ['droid-claude-4.1-opus', 'claude-4.1-opus', 'droid-20250923', '20250923_droid_claude-4-1-opus'],
  ['droid-claude-4-sonnet', 'claude-4-sonnet', 'droid-20250923', '20250923_droid_claude-4-sonnet'],
  ['droid-gpt-5', 'gpt-5', 'droid-20250924', '20250924_droid_gpt-5'],
  ['ob1-sdk', 'ob1-sdk', 'ob1-20250910', 'ob1-09-10-25'],
].map(([id, model, harnessVersion, folder]) => ({
  id: id!,
  model: model!,
  harnessVersion: harnessVersion!,
  folder: folder!,
}));

/** A run's results.json: `<run>/results.json` (a run folder) or `<run>_results.json` (goose's submissions). */
const RUN_RESULTS = /^([^/]+?)(?:\/|_{1,2})results\.json$/;

const pick = (record: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]]));

export function buildTerminalBenchData(clone: string, out: string): void {
  const read = (path: string) => JSON.parse(gitShow(clone, LEADERBOARD.commit, path)) as Record<string, unknown>;
  rmSync(out, { recursive: true, force: true });
  const configurations: TerminalBenchConfiguration[] = [];
  for (const { folder: submitted, ...submission } of SUBMISSIONS) {
    const folder = `${RESULTS}/${submitted}`;
    const runs: string[] = [];
    const perTask = new Map<string, number>();
    // Only a run folder's own results.json: a copy of a run nested in another run is not a run of its own.
    for (const path of gitTree(clone, LEADERBOARD.commit, folder)) {
      const match = RUN_RESULTS.exec(path.slice(folder.length + 1));
      if (!match) continue;
      const run = match[1]!;
      const trials = (read(path).results as Record<string, unknown>[]).map((t) => pick(t, KEPT_TRIAL_FIELDS));
      for (const t of trials) perTask.set(t.task_id as string, (perTask.get(t.task_id as string) ?? 0) + 1);
      const dir = join(out, submission.id, run);
      mkdirSync(dir, { recursive: true });
      // One trial a line: the file is still Terminal-Bench's results.json, and a diff shows what changed.
      writeFileSync(
        join(dir, 'results.json'),
        `{"results": [\n${trials.map((t) => JSON.stringify(t)).join(',\n')}\n]}\n`,
      );
      const metadata = path.endsWith('/results.json') ? `${folder}/${run}/run_metadata.json` : null;
      const text = metadata && gitShow(clone, LEADERBOARD.commit, metadata, { optional: true });
      if (text)
        writeFileSync(
          join(dir, 'run_metadata.json'),
          `${JSON.stringify(pick(JSON.parse(text), KEPT_RUN_FIELDS), null, 2)}\n`,
        );
      runs.push(run);
    }
    const counts = [...perTask.values()];
    if (perTask.size !== DATASET.tasks || counts.some((n) => n !== TRIALS_PER_TASK))
      throw new Error(
        `${folder}: ${perTask.size} tasks, trials per task ${[...new Set(counts)].join('/')}: not 80 × 5.`,
      );
    const agent = submission.harnessVersion.replace(/-\d+$/, '');
    const description = `${agent} with ${submission.model}, as submitted to the leaderboard (${submitted})`;
    configurations.push({ ...submission, description, source: { ...LEADERBOARD, path: folder }, runs });
  }
  const data = z.parse(terminalBenchDataSchema, { dataset: DATASET, configurations });
  writeFileSync(join(out, TERMINAL_BENCH_CONFIGURATIONS), `${JSON.stringify(data, null, 2)}\n`);
  readTerminalBenchData(out);
  for (const c of configurations) console.log(`  ${c.id}: ${c.runs.length} runs (${c.runs.join(', ')})`);
}
