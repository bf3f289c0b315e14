// The repeated-trials demo campaign (`npm run demo -- --campaign terminal-bench`): ten agents' published
// Terminal-Bench runs, five trials of each of the 80 tasks (data/terminal-bench/, data/README.md). Each agent's
// run folders are imported exactly as `replay-push import harbor` imports a team's own (runner/import/harbor.ts),
// and each run folder's files are read by the runner's own checks (parseRunFolder, prepareRun), as they come
// from the importer: writing 4,000 folders to disk to read them back took most of the build (11 s of 12 s).
// A task's trials become samples 1–5, each with its real outcome and per-test results, and its agent time and
// tokens where the run records them. A Terminal-Bench trial records no diff, so every run's patch is not recorded
// (the pipeline excludes it from the judge's figures without a call) and no task is a GitHub issue (no issue
// records): its hidden-test result is the outcome to read. Only the runner host each run is sent from is generated.
import { join } from 'node:path';
import { mapImport } from '#runner/import/import-command.ts';
import { buildHiddenTestDelivery, buildRunDelivery } from '#runner/delivery.ts';
import { parseRunFolder, prepareRun, RunFolderError, type PreparedRun } from '#runner/run-folder.ts';
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
  for (const c of data.configurations) {
    const imported: PreparedRun[] = [];
    const { skipped } = await mapImport(
      'harbor',
      runFoldersOf(c, dir),
      { model: c.model, harnessVersion: c.harnessVersion },
      async (folder) => {
        // Named where `replay-push import` would write it, for the messages of a folder that does not read.
        const path = join(dir, c.id, folder.name);
        try {
          imported.push(prepareRun(parseRunFolder(path, folder.files), { host: options.hosts[0] }));
        } catch (error) {
          if (error instanceof RunFolderError) throw new DemoDataError(error.path, `is corrupt: ${error.message}`);
          throw error;
        }
      },
    );
    const [first] = skipped;
    if (first) throw new DemoDataError(first.source, `is corrupt: ${first.field}: ${first.reason}.`);
    for (const run of imported) {
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
