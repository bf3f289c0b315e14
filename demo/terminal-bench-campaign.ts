// The repeated-trials demo campaign (`npm run demo -- --campaign terminal-bench`): ten agents' published
// Terminal-Bench runs, five trials of each of the 80 tasks (data/terminal-bench/, data/README.md). Each agent's
// run folders are imported exactly as `replay-push import harbor` imports a team's own (runner/import/harbor.ts):
// a task's trials become samples 1–5, each with its real outcome and per-test results, and its agent time and
// tokens where the run records them. A Terminal-Bench trial records no diff, so every run's patch is not recorded
// (the pipeline excludes it from the judge's figures without a call) and no task is a GitHub issue (no issue
// records): its hidden-test result is the outcome to read. Only the runner host each run is sent from is generated.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importToFolders } from '#runner/import/import-command.ts';
import { buildHiddenTestDelivery, buildRunDelivery } from '#runner/delivery.ts';
import { prepareFolders } from '#runner/sync.ts';
import { sha256Hex } from '#shared/sha256.ts';
import type { CampaignDeclaration } from '#analytics/contract.ts';
import type { DemoCampaign, DemoRun } from './campaign.ts';
import { DemoDataError } from './data.ts';
import { Provenance } from './provenance.ts';
import { seeded, shuffle } from './random.ts';
import { readTerminalBenchData, runFoldersOf, TERMINAL_BENCH_DATA_DIR } from './terminal-bench-data.ts';

/** What the campaign's tasks are, as its cockpit declares it: all of them, five times each. */
export const TERMINAL_BENCH_CAMPAIGN: CampaignDeclaration = {
  population: { name: 'terminal-bench-core 0.1.1', size: 80 },
  sample: 'five trials of each task, as each agent submitted them to the public leaderboard',
};

export interface TerminalBenchCampaignOptions {
  /** How many of the 80 tasks (a fixed-seed sample, each with all its trials); all of them when absent. */
  tasks?: number;
  seed: number;
  /** Runner hosts the runs are spread over; each must be a sender of the target space. */
  hosts: string[];
  dir?: string;
}

export async function buildTerminalBenchCampaign(options: TerminalBenchCampaignOptions): Promise<DemoCampaign> {
  const dir = options.dir ?? TERMINAL_BENCH_DATA_DIR;
  const data = readTerminalBenchData(dir);
  const runs: DemoRun[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'replay-demo-terminal-bench-'));
  try {
    for (const c of data.configurations) {
      const root = join(scratch, c.id);
      const imported = await importToFolders('harbor', runFoldersOf(c, dir), root, {
        model: c.model,
        harnessVersion: c.harnessVersion,
      });
      const [skipped] = imported.skipped;
      if (skipped) throw new DemoDataError(skipped.source, `is corrupt: ${skipped.field}: ${skipped.reason}.`);
      const prepared = await prepareFolders(imported.folders, { runsRoot: root, host: options.hosts[0] });
      const [invalid] = prepared.invalid;
      if (invalid) throw new DemoDataError(invalid.path, `is corrupt: ${invalid.message}`);
      for (const run of prepared.runs) {
        const random = seeded(Number.parseInt(sha256Hex(`${options.seed}:host:${run.id}`).slice(0, 8), 16));
        const host = options.hosts[Math.floor(random() * options.hosts.length)]!;
        const sent = { ...run, host, row: { ...run.row, host } };
        const hiddenTest = sent.hiddenTest!;
        runs.push({
          id: run.id,
          host,
          resolved: hiddenTest.status === 'pass',
          token: sha256Hex(`run:${run.id}`).slice(0, 16),
          delivery: JSON.parse(buildRunDelivery(sent).body) as Record<string, unknown>,
          hiddenTest: JSON.parse(buildHiddenTestDelivery(sent, hiddenTest).body) as Record<string, unknown>,
        });
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const taskOf = (run: DemoRun) => (run.delivery.row as { taskId: string }).taskId;
  const all = [...new Set(runs.map(taskOf))].sort();
  const tasks = new Set(shuffle(all, seeded(options.seed)).slice(0, options.tasks ?? all.length));
  const kept = runs.filter((r) => tasks.has(taskOf(r)));
  const provenance = new Provenance();
  for (const { delivery, hiddenTest } of kept) {
    const row = delivery.row as { wallSeconds: number | null; promptTokens: number | null };
    const result = hiddenTest.hiddenTestResult as { passedTests?: string[] };
    provenance.note('real', 'runs', 'agent, task, trial number and hidden-test result');
    provenance.note(result.passedTests ? 'real' : 'unknown', 'runs', 'test names');
    provenance.note(row.wallSeconds === null ? 'unknown' : 'real', 'runs', 'agent time');
    provenance.note(row.promptTokens === null ? 'unknown' : 'real', 'runs', 'tokens');
    for (const field of ['cost', 'steps', 'patch (a trial records none)']) provenance.note('unknown', 'runs', field);
    provenance.note('generated', 'runs', 'runner host');
  }
  return {
    issues: [],
    runs: kept,
    models: new Set(data.configurations.map((c) => c.model)).size,
    tasks: tasks.size,
    source:
      `${tasks.size} ${data.dataset.name} ${data.dataset.version} tasks from data/terminal-bench/ ` +
      `(${data.configurations.length} agents' published runs, five trials each)`,
    provenance,
    verdicts:
      'none asked for: a trial records no diff, so each run is excluded from the judge’s figures; read its hidden-test figures',
  };
}
