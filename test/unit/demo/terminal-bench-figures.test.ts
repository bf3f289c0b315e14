// The repeated-trials demo (issue 38, item 4): ten agents' published Terminal-Bench runs, five trials of each of
// 80 tasks, imported with `replay-push import harbor` and landed as the pipeline lands them. Each agent's pass@1,
// pass@5 and pass^5 on `/stats` are those recomputed here straight from the committed results.json files, with
// nothing of the importer or the statistics: a task's c of n trials with `is_resolved` true.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { landedRow } from '../../../bench/direct-load.ts';
import { apiPaths, type StatsBody } from '#analytics/contract.ts';
import { answerRead } from '#core/read/read-api.ts';
import { buildTerminalBenchCampaign } from '#demo/terminal-bench-campaign.ts';
import { TERMINAL_BENCH_DATA_DIR } from '#demo/terminal-bench-data.ts';
import { parseConfig } from '#schema/config.ts';
import { inMemoryReadDeps, InMemoryTable } from '../../helpers/in-memory-ports.ts';

const SPACE = 'TerminalBenchDemo';
const NOW = '2026-12-04T12:00:00.000Z';
const HOSTS = ['demo-runner-1', 'demo-runner-2'];

interface RawConfiguration {
  id: string;
  model: string;
  harnessVersion: string;
  runs: string[];
}

/** Per configuration, each task's trials and how many resolved, read from the raw files. */
function rawCounts(): Map<string, { configuration: RawConfiguration; tasks: Map<string, { n: number; c: number }> }> {
  const { configurations } = JSON.parse(readFileSync(join(TERMINAL_BENCH_DATA_DIR, 'configurations.json'), 'utf8')) as {
    configurations: RawConfiguration[];
  };
  const counts = new Map<string, { configuration: RawConfiguration; tasks: Map<string, { n: number; c: number }> }>();
  for (const configuration of configurations) {
    const tasks = new Map<string, { n: number; c: number }>();
    for (const run of configuration.runs) {
      const file = join(TERMINAL_BENCH_DATA_DIR, configuration.id, run, 'results.json');
      const { results } = JSON.parse(readFileSync(file, 'utf8')) as {
        results: { task_id: string; is_resolved: boolean | null }[];
      };
      for (const trial of results) {
        const task = tasks.get(trial.task_id) ?? { n: 0, c: 0 };
        task.n++;
        if (trial.is_resolved === true) task.c++;
        tasks.set(trial.task_id, task);
      }
    }
    counts.set(`${configuration.model} ${configuration.harnessVersion}`, { configuration, tasks });
  }
  return counts;
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;

async function statsOfDemo(): Promise<StatsBody> {
  const campaign = await buildTerminalBenchCampaign({ seed: 7, hosts: HOSTS });
  const table = new InMemoryTable();
  for (const run of campaign.runs) await table.putRun(landedRow(SPACE, run.delivery, NOW, run.hiddenTest), null);
  const deps = inMemoryReadDeps(table, parseConfig({ spaces: { [SPACE]: { senders: HOSTS } } }), new Date(NOW));
  const [route, query = ''] = `/api${apiPaths.stats(SPACE, { outcome: 'tests' })}`.split('?');
  const answer = await answerRead(deps, 'GET', route!, query);
  expect(answer.status).toBe(200);
  return answer.body as StatsBody;
}

describe('the Terminal-Bench demo’s reliability figures', () => {
  it('are, per agent, the pass@1, pass@5 and pass^5 recomputed from the raw results.json files', async () => {
    const raw = rawCounts();
    const stats = await statsOfDemo();
    expect(stats.outcome).toBe('tests');
    expect(stats.groups).toHaveLength(10);
    for (const group of stats.groups) {
      const { tasks } = raw.get(`${group.model} ${group.harnessVersion}`)!;
      const perTask = [...tasks.values()];
      expect(perTask).toHaveLength(80);
      expect(perTask.every((t) => t.n === 5)).toBe(true);
      const curve = new Map(group.samples.curve.map((p) => [p.k, p]));
      expect(group.samples.curve.map((p) => p.k)).toEqual([1, 2, 3, 4, 5]);
      expect(group).toMatchObject({ runs: 400, n: 400, outside: 0 });
      expect(group.resolved).toBe(perTask.reduce((s, t) => s + t.c, 0));
      expect(curve.get(1)!.passAt).toBeCloseTo(mean(perTask.map((t) => t.c / t.n)), 12);
      expect(curve.get(5)!.passAt).toBeCloseTo(mean(perTask.map((t) => (t.c > 0 ? 1 : 0))), 12);
      expect(curve.get(5)!.passHat).toBeCloseTo(mean(perTask.map((t) => (t.c === t.n ? 1 : 0))), 12);
    }
    // The figures differ between agents: the comparison above is not of one number with itself.
    const pass5 = new Set(stats.groups.map((g) => g.samples.curve[4]!.passAt.toFixed(4)));
    expect(pass5.size).toBeGreaterThan(5);
  }, 120_000);
});
