// `replay-push import mini-swe-agent`: `.traj.json` files (`info`: `exit_status`, `submission`, `model_stats`,
// `mini_version`, `config.model.model_name`; `messages`, whose model answers carry `extra`: the response with
// its usage, the cost and a Unix timestamp), and `preds.json` for runs that have no trajectory beside it. The run's
// times are its first and last model answers'; the first call's own start is not recorded, so wall time stays null.
// mini-swe-agent has one tool, bash: each action a model answer ran is a bash call.
import { basename } from 'node:path';
import { isSkipped, type ImportedRun, type SkippedRun } from './imported-run.ts';
import { issueRecordOf } from './swe-bench-tasks.ts';
import { predictionRun, type ImportContext } from './swe-bench.ts';
import {
  asArray,
  asCount,
  asNumber,
  asObject,
  asString,
  modifiedAt,
  readSourceJson,
  runOfFile,
  SourceError,
  type Json,
} from './source-files.ts';
import { filesEndingIn } from './trajectory-files.ts';

const BASH_BLOCK = /```(bash|mswea_bash_command)\n/;

export function outcomeOfMiniExit(status: string | null): ImportedRun['outcome'] {
  if (!status || status === 'Submitted') return 'finished';
  return /Limits|Time|Cost/i.test(status) ? 'budget' : 'model-error';
}

/** A sum over the model answers, null unless every answer gives it. */
const sumOfEvery = (values: (number | null)[]) =>
  values.length && values.every((v) => v !== null) ? (values as number[]).reduce((s, v) => s + v, 0) : null;

export async function miniSweAgentRun(path: string, context: ImportContext): Promise<ImportedRun> {
  const traj = asObject(await readSourceJson(path));
  if (!traj) throw new SourceError(path, 'is not a JSON object (a list of messages alone names no run).');
  const info = asObject(traj.info) ?? {};
  const stats = asObject(info.model_stats) ?? {};
  const answers = asArray(traj.messages)
    .map(asObject)
    .filter((m): m is Json => m?.role === 'assistant');
  const extras = answers.map((a) => asObject(a.extra));
  const usage = extras.map((e) => asObject(asObject(e?.response)?.usage));
  // When a model answer came: its `timestamp`, else the provider's `created` (both Unix seconds).
  const times = extras
    .map((e) => asNumber(e?.timestamp) ?? asNumber(asObject(e?.response)?.created))
    .filter((t): t is number => t !== null)
    .map((t) => new Date(t * 1000).toISOString());
  const version = asString(info.mini_version);
  const taskId = asString(traj.instance_id) ?? basename(path).replace(/\.traj\.json$/, '');
  const calls = asCount(stats.api_calls);
  const cost = asNumber(stats.instance_cost);
  const bashCalls = extras.some((e) => Array.isArray(e?.actions))
    ? extras.reduce((s, e) => s + asArray(e?.actions).length, 0)
    : answers.filter((a) => BASH_BLOCK.test(asString(a.content) ?? '')).length;
  return {
    source: path,
    metricsSource: 'mini-swe-agent/1',
    taskId,
    model: asString(asObject(asObject(info.config)?.model)?.model_name),
    harnessVersion: version ? `mini-swe-agent@${version}` : null,
    startedAt: times[0] ?? null,
    finishedAt: times.at(-1) ?? (await modifiedAt(path)),
    outcome: outcomeOfMiniExit(asString(info.exit_status)),
    figures: {
      wallSeconds: null,
      steps: calls,
      promptTokens: sumOfEvery(usage.map((u) => asCount(u?.prompt_tokens))),
      completionTokens: sumOfEvery(usage.map((u) => asCount(u?.completion_tokens))),
      // A cost of 0 after model calls is mini-swe-agent's "no price known" (cost tracking ignoring errors).
      costUsd: cost === 0 && calls ? null : cost,
      ...(answers.length ? { bashCalls, readCalls: 0, editCalls: 0, writeCalls: 0 } : {}),
    },
    patch: asString(info.submission) ?? '',
    summary: '',
    hiddenTest: null,
    task: issueRecordOf(taskId, context.dataset.get(taskId)),
  };
}

export async function* importMiniSweAgent(
  paths: string[],
  context: ImportContext,
): AsyncGenerator<ImportedRun | SkippedRun> {
  const files = await filesEndingIn(paths, '.traj.json');
  const preds = files.filter((f) => !f.endsWith('.traj.json'));
  const seen = new Set<string>();
  for (const file of files.filter((f) => f.endsWith('.traj.json'))) {
    const run = await runOfFile(file, (f) => miniSweAgentRun(f, context));
    if (!isSkipped(run) && run.taskId) seen.add(run.taskId);
    yield run;
  }
  // preds.json: the patches of runs whose trajectories were not given (no cost, tokens or steps then).
  for (const file of preds) {
    try {
      const byId = asObject(await readSourceJson(file));
      if (!byId) throw new SourceError(file, 'is not an object keyed by instance id.');
      const finishedAt = await modifiedAt(file);
      for (const [id, value] of Object.entries(byId)) {
        if (seen.has(id)) continue;
        const entry = asObject(value);
        if (!entry) yield { source: `${file}#${id}`, field: '(entry)', reason: 'is not a JSON object' };
        else
          yield await predictionRun(
            `${file}#${id}`,
            { instance_id: id, ...entry },
            finishedAt,
            new Map(),
            context,
            'mini-swe-agent/1',
          );
      }
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      yield { source: file, field: '(file)', reason: error.reason };
    }
  }
}
