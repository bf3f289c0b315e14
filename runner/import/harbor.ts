// `replay-push import harbor`: Terminal-Bench and Harbor trial folders, one run per trial.
// - Terminal-Bench (`tb run`): a run folder's `results.json` lists its trials (`task_id`, `trial_name`
//   `<task>.<k>-of-<n>`, `is_resolved`, `failure_mode`, `parser_results` per test, token totals, times), and
//   `run_metadata.json` beside it names the agent, the model and the run's start; a trial folder holds its own
//   `results.json`.
// - Harbor (`harbor run`): a trial folder's `result.json` (task, agent, model, `agent_result` tokens and cost,
//   `verifier_result` reward, `exception_info`, times), `verifier/ctrf.json` (per-test results) and
//   `agent/trajectory.json` (ATIF: steps, tool calls, final metrics).
// A task's trials under one model and agent become samples 1, 2, …: in order of their run's start, their trial
// number, their own start, then where they lie, over every path of the import.
import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { toolCallCounts, type ImportedRun, type SkippedRun, type ToolCallField } from './imported-run.ts';
import { withTestNames } from './swe-bench-report.ts';
import { issueRecordOf } from './swe-bench-tasks.ts';
import type { ImportContext } from './swe-bench.ts';
import {
  asArray,
  asCount,
  asInstant,
  asNumber,
  asObject,
  asString,
  modifiedAt,
  readSourceJson,
  secondsBetween,
  SourceError,
  type Json,
} from './source-files.ts';

const MAX_DEPTH = 6;
const MIB = 1024 * 1024;
/** A run's `results.json` lists every trial with its task's instruction: a few hundred KiB for 80 tasks × 5. */
const MAX_RESULTS_BYTES = 64 * MIB;
const MAX_RESULT_BYTES = 4 * MIB;
const MAX_CTRF_BYTES = 8 * MIB;

/** `<task>.<k>-of-<n>`, with the run's name after it in some versions. */
const TRIAL_NUMBER = /\.(\d+)-of-\d+(?:\.|$)/;

/** Terminal-Bench's failure modes that stop the agent at its time cap. */
const BUDGET_FAILURES = new Set(['agent_timeout']);

/** ATIF tool names (as the agents Harbor ships call them) counted as the row's tool calls. */
const TOOL_OF: Record<string, ToolCallField> = {
  bash: 'bashCalls',
  bash_command: 'bashCalls',
  execute_bash: 'bashCalls',
  shell: 'bashCalls',
  read: 'readCalls',
  read_file: 'readCalls',
  view: 'readCalls',
  edit: 'editCalls',
  edit_file: 'editCalls',
  str_replace: 'editCalls',
  write: 'writeCalls',
  write_file: 'writeCalls',
  create: 'writeCalls',
};

interface TrialSource {
  /** For messages: the file, or file#trial for a trial of a run's list. */
  at: string;
  layout: 'terminal-bench' | 'harbor';
  /** The trial's record: a `results.json` entry, or Harbor's `result.json`. */
  trial: Json;
  /** Terminal-Bench's `run_metadata.json`, where there is one. */
  run: Json | null;
  /** Harbor's trial folder, read again for its verifier and trajectory files when the run is mapped. */
  dir: string;
  fileTime: string;
}

/** A name with whitespace (Terminal-Bench's "Factory Droid") as an identity the run id can hold. */
const identityOf = (name: string | null) => (name === null ? null : name.trim().replace(/\s+/g, '-') || null);

function modelOf(source: TrialSource): string | null {
  if (source.layout === 'terminal-bench') return asString(source.run?.model_name);
  const { trial } = source;
  const configured = asString(asObject(asObject(trial.config)?.agent)?.model_name);
  const info = asObject(asObject(trial.agent_info)?.model_info);
  const name = asString(info?.name);
  const provider = asString(info?.provider);
  return configured ?? (name && provider ? `${provider}/${name}` : name);
}

function harnessOf(source: TrialSource): string | null {
  if (source.layout === 'terminal-bench') return identityOf(asString(source.run?.agent_name));
  const agent = asObject(source.trial.agent_info);
  const name = identityOf(asString(agent?.name));
  const version = asString(agent?.version);
  return name && version ? `${name}@${version}` : name;
}

const taskOf = (source: TrialSource) =>
  asString(source.layout === 'terminal-bench' ? source.trial.task_id : source.trial.task_name);

/** Where a trial stands among its task's trials: its run's start, its trial number, its own start, its place. */
function orderOf(source: TrialSource): [string, number, string, string] {
  const { trial, run } = source;
  const started = asInstant(source.layout === 'terminal-bench' ? trial.trial_started_at : trial.started_at) ?? '';
  const number = Number(TRIAL_NUMBER.exec(asString(trial.trial_name) ?? '')?.[1] ?? 0);
  return [asInstant(run?.start_time) ?? started, number, started, source.at];
}

const compareOrder = (a: ReturnType<typeof orderOf>, b: ReturnType<typeof orderOf>) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
};

async function readIfFile(path: string, maxBytes: number): Promise<unknown> {
  if (!(await stat(path).catch(() => null))?.isFile()) return null;
  return readSourceJson(path, maxBytes);
}

/** The trials a folder holds, and whether its subfolders need reading too (a Harbor job, or no trial yet). */
async function trialsOfFolder(dir: string): Promise<{ trials: TrialSource[]; descend: boolean }> {
  const results = join(dir, 'results.json');
  const list = asObject(await readIfFile(results, MAX_RESULTS_BYTES));
  if (list) {
    const fileTime = await modifiedAt(results);
    if (Array.isArray(list.results)) {
      // A run: its list holds every trial its trial folders hold, so they are not read again.
      const run = asObject(await readIfFile(join(dir, 'run_metadata.json'), MAX_RESULT_BYTES));
      const trials = list.results.map(asObject).filter((t): t is Json => t !== null);
      return {
        trials: trials.map((trial, i) => ({
          at: `${results}#${asString(trial.trial_name) ?? i}`,
          layout: 'terminal-bench',
          trial,
          run,
          dir,
          fileTime,
        })),
        descend: false,
      };
    }
    if (typeof list.trial_name === 'string') {
      // A trial folder on its own: its run's metadata is two folders up (run/task/trial).
      const runDir = dirname(dirname(dir));
      const run = asObject(await readIfFile(join(runDir, 'run_metadata.json'), MAX_RESULT_BYTES));
      return { trials: [{ at: results, layout: 'terminal-bench', trial: list, run, dir, fileTime }], descend: false };
    }
  }
  const resultPath = join(dir, 'result.json');
  const result = asObject(await readIfFile(resultPath, MAX_RESULT_BYTES));
  if (result && typeof result.trial_name === 'string' && typeof result.task_name === 'string') {
    const fileTime = await modifiedAt(resultPath);
    return {
      trials: [{ at: resultPath, layout: 'harbor', trial: result, run: null, dir, fileTime }],
      descend: false,
    };
  }
  return { trials: [], descend: true };
}

/** Every trial under the paths (a file given stands for its folder); links are not followed. */
async function findTrials(paths: string[], skipped: SkippedRun[]): Promise<TrialSource[]> {
  const found: TrialSource[] = [];
  const walk = async (dir: string, depth: number) => {
    try {
      const { trials, descend } = await trialsOfFolder(dir);
      found.push(...trials);
      if (!descend || depth >= MAX_DEPTH) return;
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      skipped.push({ source: error.path, field: '(file)', reason: error.reason });
      return;
    }
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name)))
      if (entry.isDirectory()) await walk(join(dir, entry.name), depth + 1);
  };
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    await walk(info?.isDirectory() ? path : dirname(path), 0);
  }
  return found;
}

/** Terminal-Bench's verdict per trial: resolved, or not (no parsable test run included, as its accuracy counts it). */
function terminalBenchTests(trial: Json, ranAt: string): ImportedRun['hiddenTest'] {
  const resolved = trial.is_resolved;
  const tests = asObject(trial.parser_results);
  const failure = asString(trial.failure_mode);
  if (resolved !== true && resolved !== false && resolved !== null) return null;
  const status = resolved === true ? 'pass' : 'fail';
  if (!tests) return { status, ranAt, details: `No test result could be parsed (failure_mode ${failure}).` };
  const names = (outcome: string) =>
    Object.entries(tests)
      .filter(([, v]) => v === outcome)
      .map(([name]) => name);
  return withTestNames({ status, ranAt }, names('passed'), names('failed'));
}

function terminalBenchRun(source: TrialSource): ImportedRun {
  const { trial } = source;
  const startedAt = asInstant(trial.agent_started_at) ?? asInstant(trial.trial_started_at);
  const finishedAt = asInstant(trial.trial_ended_at) ?? asInstant(source.run?.end_time) ?? source.fileTime;
  const input = asCount(trial.total_input_tokens);
  const output = asCount(trial.total_output_tokens);
  // An agent that reports no usage is written 0 and 0 by Terminal-Bench: not measured.
  const measured = !(input === 0 && output === 0);
  const failure = asString(trial.failure_mode);
  const taskId = taskOf(source);
  return {
    source: source.at,
    metricsSource: 'terminal-bench/1',
    taskId,
    model: modelOf(source),
    harnessVersion: harnessOf(source),
    startedAt,
    finishedAt,
    outcome: failure && BUDGET_FAILURES.has(failure) ? 'budget' : 'finished',
    figures: {
      wallSeconds: secondsBetween(trial.agent_started_at, trial.agent_ended_at),
      promptTokens: measured ? input : null,
      completionTokens: measured ? output : null,
    },
    patch: null,
    summary: '',
    hiddenTest: terminalBenchTests(trial, asInstant(trial.test_ended_at) ?? finishedAt),
    task: taskId ? issueRecordOf(taskId, undefined) : null,
  };
}

/** Harbor's verifier: the reward (1 is a pass) with `verifier/ctrf.json`'s tests; an exception before it, an error. */
async function harborTests(source: TrialSource, ranAt: string): Promise<ImportedRun['hiddenTest']> {
  const { trial, dir } = source;
  const reward = asNumber(asObject(asObject(trial.verifier_result)?.rewards)?.reward);
  const exception = asObject(trial.exception_info);
  if (reward === null) {
    if (!exception) return null;
    return { status: 'error', ranAt, details: `No reward: ${asString(exception.exception_type) ?? 'an exception'}.` };
  }
  const status = reward >= 1 ? 'pass' : 'fail';
  const ctrf = asObject(await readIfFile(join(dir, 'verifier', 'ctrf.json'), MAX_CTRF_BYTES));
  const tests = asArray(asObject(ctrf?.results)?.tests).map(asObject);
  if (!tests.length) return { status, ranAt, details: `Harbor reward ${reward}.` };
  const names = (statuses: string[]) =>
    tests.filter((t) => statuses.includes(asString(t?.status) ?? '')).map((t) => asString(t?.name) ?? '');
  // CTRF's statuses: passed, failed, skipped, pending, other; a skipped or pending test neither passed nor failed.
  return withTestNames({ status, ranAt }, names(['passed']), names(['failed', 'other']));
}

async function harborRun(source: TrialSource): Promise<ImportedRun> {
  const { trial, dir } = source;
  const agent = asObject(trial.agent_result) ?? {};
  const execution = asObject(trial.agent_execution);
  const trajectory = asObject(await readIfFile(join(dir, 'agent', 'trajectory.json'), 64 * MIB));
  const final = asObject(trajectory?.final_metrics);
  const steps = asArray(trajectory?.steps)
    .map(asObject)
    .filter((s): s is Json => s?.source === 'agent');
  const tools = toolCallCounts(
    steps.flatMap((s) => asArray(s.tool_calls).map((call) => TOOL_OF[asString(asObject(call)?.function_name) ?? ''])),
  );
  const finishedAt = asInstant(trial.finished_at) ?? source.fileTime;
  const exception = asString(asObject(trial.exception_info)?.exception_type);
  const taskId = taskOf(source);
  return {
    source: source.at,
    metricsSource: 'harbor/1',
    taskId,
    model: modelOf(source),
    harnessVersion: harnessOf(source),
    startedAt: asInstant(execution?.started_at) ?? asInstant(trial.started_at),
    finishedAt,
    outcome: exception === null ? 'finished' : /^Agent.*Timeout/.test(exception) ? 'budget' : 'model-error',
    figures: {
      wallSeconds: secondsBetween(execution?.started_at, execution?.finished_at),
      steps: steps.length || asCount(final?.total_steps),
      promptTokens: asCount(agent.n_input_tokens) ?? asCount(final?.total_prompt_tokens),
      completionTokens: asCount(agent.n_output_tokens) ?? asCount(final?.total_completion_tokens),
      costUsd: asNumber(agent.cost_usd) ?? asNumber(final?.total_cost_usd),
      ...(steps.length ? tools : {}),
    },
    patch: null,
    summary: '',
    hiddenTest: await harborTests(source, asInstant(asObject(trial.verifier)?.finished_at) ?? finishedAt),
    task: taskId ? issueRecordOf(taskId, undefined) : null,
  };
}

export async function* importHarbor(
  paths: string[],
  _context: ImportContext,
): AsyncGenerator<ImportedRun | SkippedRun> {
  const skipped: SkippedRun[] = [];
  const trials = await findTrials(paths, skipped);
  yield* skipped;
  // The same trial reached twice (a run folder and its copy, or a run and one of its trial folders) is one run.
  const seen = new Map<string, string>();
  const groups = new Map<string, { source: TrialSource; order: ReturnType<typeof orderOf> }[]>();
  for (const source of trials) {
    const id = asString(source.trial.id) ?? asString(source.trial.uuid);
    if (id && seen.has(id)) {
      yield { source: source.at, field: 'id', reason: `the same trial (${id}) as ${seen.get(id)}` };
      continue;
    }
    if (id) seen.set(id, source.at);
    const key = [modelOf(source), harnessOf(source), taskOf(source)].join('\u0000');
    groups.set(key, [...(groups.get(key) ?? []), { source, order: orderOf(source) }]);
  }
  for (const group of groups.values()) {
    group.sort((a, b) => compareOrder(a.order, b.order));
    for (const [index, { source }] of group.entries()) {
      try {
        const run = source.layout === 'harbor' ? await harborRun(source) : terminalBenchRun(source);
        yield { ...run, sample: index + 1 };
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        yield { source: source.at, field: '(file)', reason: error.message };
      }
    }
  }
}

/** Whether a folder holds Terminal-Bench or Harbor trials, for `auto`. */
export async function holdsTrials(dir: string): Promise<boolean> {
  const walk = async (path: string, depth: number): Promise<boolean> => {
    const { trials, descend } = await trialsOfFolder(path).catch(() => ({ trials: [], descend: false }));
    if (trials.length) return true;
    if (!descend || depth >= 3) return false;
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries)
      if (entry.isDirectory() && (await walk(join(path, entry.name), depth + 1))) return true;
    return false;
  };
  return walk(dir, 0);
}
