// The repeated-trials demo data (data/terminal-bench/, data/README.md): agents' published Terminal-Bench runs,
// five trials of each of the 80 tasks of terminal-bench-core 0.1.1 per agent, as
// demo/build-terminal-bench-data.ts reduced them from the public leaderboard. Each run folder keeps
// Terminal-Bench's own layout (`results.json`, `run_metadata.json`), so `replay-push import harbor` reads it as it
// reads a run a team holds; `configurations.json` names each agent's model and harness version, which the
// reduced runs no longer carry. The schema is shared by the builder (which writes nothing it could not read
// back) and the demo (which stops on a missing or corrupt file and names it).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '#schema/zod.ts';
import { pathSafeIdentity } from '#schema/primitives.ts';
import { configurationSchema, DemoDataError, parsed, readText } from './data.ts';

export const TERMINAL_BENCH_DATA_DIR = join(import.meta.dirname, '../data/terminal-bench');
export const TERMINAL_BENCH_CONFIGURATIONS = 'configurations.json';

export const terminalBenchConfigurationSchema = z.extend(
  z.pick(configurationSchema, { model: true, harnessVersion: true, description: true, source: true }),
  {
    /** The configuration's folder under the data folder, holding one folder per run. */
    id: pathSafeIdentity,
    /** The run folders, in the order the leaderboard lists them. */
    runs: z.array(pathSafeIdentity).check(z.minLength(1)),
  },
);
export type TerminalBenchConfiguration = z.output<typeof terminalBenchConfigurationSchema>;

export const terminalBenchDataSchema = z.object({
  dataset: z.object({ name: z.string(), version: z.string(), tasks: z.int().check(z.positive()) }),
  configurations: z.array(terminalBenchConfigurationSchema).check(z.minLength(1)),
});
export type TerminalBenchData = z.output<typeof terminalBenchDataSchema>;

/** The fields of a trial the reduced `results.json` keeps (the instruction, the task's text, is left out). */
export const KEPT_TRIAL_FIELDS = [
  'id',
  'uuid',
  'trial_name',
  'task_id',
  'is_resolved',
  'failure_mode',
  'parser_results',
  'total_input_tokens',
  'total_output_tokens',
  'trial_started_at',
  'trial_ended_at',
  'agent_started_at',
  'agent_ended_at',
  'test_ended_at',
] as const;

/** The fields of `run_metadata.json` kept: enough to order the runs and name the data set, never an agent or model. */
export const KEPT_RUN_FIELDS = ['run_id', 'start_time', 'end_time', 'dataset_name', 'dataset_version', 'n_attempts'];

/** Reads and checks configurations.json, and that every run folder it names holds a results.json. */
export function readTerminalBenchData(dir = TERMINAL_BENCH_DATA_DIR): TerminalBenchData {
  const file = join(dir, TERMINAL_BENCH_CONFIGURATIONS);
  let json: unknown;
  try {
    json = JSON.parse(readText(file));
  } catch (error) {
    if (error instanceof DemoDataError) throw error;
    throw new DemoDataError(file, 'is corrupt: it is not JSON.');
  }
  const data = parsed(terminalBenchDataSchema, json, file);
  for (const c of data.configurations)
    for (const run of runFoldersOf(c, dir))
      if (!existsSync(join(run, 'results.json'))) throw new DemoDataError(join(run, 'results.json'), 'is missing.');
  return data;
}

/** A configuration's run folders, as `replay-push import harbor` is given them. */
export const runFoldersOf = (c: TerminalBenchConfiguration, dir = TERMINAL_BENCH_DATA_DIR) =>
  c.runs.map((run) => join(dir, c.id, run));
