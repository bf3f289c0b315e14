// `replay-push import inspect`: Inspect `.eval` logs (a zip: `header.json` with the eval's model, package versions
// and times; `samples/<id>_epoch_<n>.json`, one run each). Entries are read one at a time within a cap
// (zip-entries.ts). Per sample: model usage (tokens, cost where Inspect records it), its own times where it has
// them (else the eval's, and no wall time), the assistant turns as steps, their tool calls, and the scores; a
// score's `metadata.model_patch` (inspect_evals' SWE-bench scorer) is the patch.
import { toolCallCounts, type ImportedRun, type SkippedRun, type ToolCallField } from './imported-run.ts';
import { issueRecordOf } from './swe-bench-tasks.ts';
import type { ImportContext } from './swe-bench.ts';
import { parseJsonText } from '../json-text.ts';
import { asArray, asInstant, asNumber, asObject, asString, SourceError, type Json } from './source-files.ts';
import { filesEndingIn } from './trajectory-files.ts';
import { zipEntries } from './zip-entries.ts';

/** The log layout this importer reads (`header.json` "version"). */
const LOG_VERSION = 2;
const SAMPLE = /^samples\/[^/]+\.json$/;

function json(bytes: Buffer, path: string, entry: string): Json {
  let value: unknown;
  try {
    value = parseJsonText(bytes.toString('utf8'));
  } catch {
    throw new SourceError(path, `entry ${entry} is not valid JSON.`);
  }
  const object = asObject(value);
  if (!object) throw new SourceError(path, `entry ${entry} is not a JSON object.`);
  return object;
}

/** A sum over the models a sample used, null unless every one gives it. */
function usageSum(usage: Json | null, key: string): number | null {
  const values = Object.values(usage ?? {}).map((u) => asNumber(asObject(u)?.[key]));
  return values.length && values.every((v) => v !== null) ? (values as number[]).reduce((s, v) => s + v, 0) : null;
}

const TEXT_EDITOR_TOOL: Record<string, ToolCallField> = {
  view: 'readCalls',
  create: 'writeCalls',
  str_replace: 'editCalls',
  insert: 'editCalls',
  undo_edit: 'editCalls',
};

/** Pass, fail or nothing, from the first score Inspect gives as correct/incorrect or as a number. */
function hiddenTestOfScores(scores: Json | null, ranAt: string): ImportedRun['hiddenTest'] {
  for (const [scorer, score] of Object.entries(scores ?? {})) {
    const value = asObject(score)?.value;
    const pass = value === 'C' || value === true || value === 1;
    const fail = value === 'I' || value === false || (typeof value === 'number' && value >= 0 && value < 1);
    if (pass || fail)
      return { status: pass ? 'pass' : 'fail', ranAt, details: `Inspect scorer "${scorer}": ${String(value)}` };
  }
  return null;
}

export function inspectRun(path: string, header: Json, sample: Json, context: ImportContext): ImportedRun {
  const evalInfo = asObject(header.eval) ?? {};
  const stats = asObject(header.stats) ?? {};
  const id = sample.id;
  const taskId = typeof id === 'number' || typeof id === 'string' ? String(id) : null;
  const messages = asArray(sample.messages).map(asObject);
  const assistant = messages.filter((m): m is Json => m?.role === 'assistant');
  const tools = toolCallCounts(
    assistant.flatMap((m) =>
      asArray(m.tool_calls)
        .map(asObject)
        .map((call) => {
          const name = asString(call?.function);
          if (name === 'bash') return 'bashCalls';
          return name === 'text_editor' ? TEXT_EDITOR_TOOL[asString(asObject(call?.arguments)?.command) ?? ''] : null;
        }),
    ),
  );
  const usage = asObject(sample.model_usage);
  const ownTimes = asInstant(sample.started_at) !== null && asInstant(sample.completed_at) !== null;
  const startedAt = asInstant(sample.started_at) ?? asInstant(stats.started_at);
  const finishedAt = asInstant(sample.completed_at) ?? asInstant(stats.completed_at);
  if (!finishedAt) throw new SourceError(path, `sample ${String(taskId)} and the eval record no completion time.`);
  const scores = asObject(sample.scores);
  const patch = Object.values(scores ?? {})
    .map((s) => asString(asObject(asObject(s)?.metadata)?.model_patch))
    .find((p) => p !== null);
  const version = asString(asObject(evalInfo.packages)?.inspect_ai);
  return {
    source: `${path}#${String(taskId)}/${String(sample.epoch ?? 1)}`,
    metricsSource: 'inspect/2',
    taskId,
    model: asString(evalInfo.model),
    harnessVersion: version ? `inspect@${version}` : null,
    // Inspect numbers a task's repeated tries as epochs from 1.
    sample: typeof sample.epoch === 'number' ? sample.epoch : 1,
    startedAt,
    finishedAt,
    outcome: sample.error ? 'model-error' : sample.limit ? 'budget' : 'finished',
    figures: {
      wallSeconds: ownTimes ? asNumber(sample.total_time) : null,
      steps: assistant.length || null,
      promptTokens: usageSum(usage, 'input_tokens'),
      completionTokens: usageSum(usage, 'output_tokens'),
      costUsd: usageSum(usage, 'total_cost'),
      ...(messages.length ? tools : {}),
    },
    patch: patch ?? null,
    summary: '',
    hiddenTest: hiddenTestOfScores(scores, finishedAt),
    task: taskId ? issueRecordOf(taskId, context.dataset.get(taskId)) : null,
  };
}

async function* runsOfLog(path: string, context: ImportContext): AsyncGenerator<ImportedRun | SkippedRun> {
  let header: Json | null = null;
  for await (const entry of zipEntries(path, (name) => name === 'header.json'))
    header = json(await entry.read(), path, entry.name);
  if (!header) throw new SourceError(path, 'has no header.json: not an Inspect log.');
  if (header.version !== LOG_VERSION)
    throw new SourceError(
      path,
      `is an Inspect log of version ${String(header.version)}; version ${LOG_VERSION} is read.`,
    );
  // Samples one at a time: a log of thousands is never held whole.
  for await (const entry of zipEntries(path, (name) => SAMPLE.test(name))) {
    const at = `${path}#${entry.name}`;
    try {
      yield inspectRun(path, header, json(await entry.read(), path, entry.name), context);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      yield { source: at, field: '(entry)', reason: error.reason };
    }
  }
}

export async function* importInspect(
  paths: string[],
  context: ImportContext,
): AsyncGenerator<ImportedRun | SkippedRun> {
  for (const file of await filesEndingIn(paths, '.eval')) {
    try {
      yield* runsOfLog(file, context);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      yield { source: file, field: '(file)', reason: error.reason };
    }
  }
}
