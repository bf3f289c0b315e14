// `replay-push import openhands`: an evaluation's `output.jsonl`, one run per line, streamed (it can hold gigabytes),
// and `eval_outputs/<instance_id>/report.json` beside it when the evaluation has run. Per line: `instance_id`,
// `test_result.git_patch`, `metadata` (model, OpenHands commit), `metrics` (cost, token usage, one latency per
// model call) and `history` (timestamps, and the agent's actions: run, read, edit, write, finish).
import { dirname, join } from 'node:path';
import { stat } from 'node:fs/promises';
import {
  toolCallCounts,
  type GivenFigures,
  type ImportedRun,
  type SkippedRun,
  type ToolCallField,
} from './imported-run.ts';
import { readJsonLines } from './json-lines.ts';
import { readReport } from './swe-bench-report.ts';
import { issueRecordOf, taskFactsOf } from './swe-bench-tasks.ts';
import type { ImportContext } from './swe-bench.ts';
import {
  asArray,
  asCount,
  asInstant,
  asNumber,
  asObject,
  asString,
  modifiedAt,
  secondsBetween,
  SourceError,
  type Json,
} from './source-files.ts';

/** OpenHands actions counted as the row's tool calls. */
const TOOL_OF: Record<string, ToolCallField> = {
  run: 'bashCalls',
  read: 'readCalls',
  edit: 'editCalls',
  write: 'writeCalls',
};

/** `error` of a run stopped by its iteration or budget cap, rather than by a failure. */
const BUDGET_ERROR = /maximum iteration|max_iterations|budget|exceeds? .*limit/i;

function figuresOf(metrics: Json | null, history: Json[], startedAt: string | null, finishedAt: string | null) {
  const usage = asObject(metrics?.accumulated_token_usage);
  const perCall = asArray(metrics?.token_usages).map(asObject);
  const latencies = asArray(metrics?.response_latencies).map((l) => asNumber(asObject(l)?.latency));
  const prompts = perCall.map((u) => asCount(u?.prompt_tokens));
  // OpenHands reports a cost of 0 for a model it has no price for: only a run with per-call costs has one.
  const costs = asArray(metrics?.costs);
  const actions = history.filter((h) => h.source === 'agent' && typeof h.action === 'string');
  const tools = toolCallCounts(actions.map((action) => TOOL_OF[action.action as string]));
  const figures: GivenFigures = {
    wallSeconds: secondsBetween(startedAt, finishedAt),
    steps: latencies.length || null,
    promptTokens: asCount(usage?.prompt_tokens),
    completionTokens: asCount(usage?.completion_tokens),
    maxPromptTokensPerCall:
      prompts.length && prompts.every((p) => p !== null) ? Math.max(...(prompts as number[])) : null,
    costUsd: costs.length ? asNumber(metrics?.accumulated_cost) : null,
    ...(history.length ? tools : {}),
  };
  return figures;
}

/** The run of one output.jsonl line. */
export async function openHandsRun(
  at: string,
  line: Json,
  folder: string,
  fileTime: string,
  context: ImportContext,
): Promise<ImportedRun> {
  const taskId = asString(line.instance_id);
  const metadata = asObject(line.metadata);
  const history = asArray(line.history)
    .map(asObject)
    .filter((h): h is Json => h !== null);
  const times = history.map((h) => asInstant(h.timestamp)).filter((t): t is string => t !== null);
  const startedAt = times[0] ?? asInstant(metadata?.start_time);
  const finishedAt = times.at(-1) ?? null;
  const error = asString(line.error);
  const commit = asString(metadata?.git_commit);
  const finish = history.findLast((h) => h.action === 'finish');
  const instance = asObject(line.instance);
  const facts = taskId ? (context.dataset.get(taskId) ?? (instance ? taskFactsOf(instance) : undefined)) : undefined;
  const report = taskId ? join(folder, 'eval_outputs', taskId, 'report.json') : null;
  const hasReport = report !== null && (await stat(report).catch(() => null))?.isFile();
  return {
    source: at,
    metricsSource: 'openhands/1',
    taskId,
    model: asString(asObject(metadata?.llm_config)?.model),
    harnessVersion: commit ? `openhands@${commit.slice(0, 12)}` : null,
    startedAt,
    finishedAt: finishedAt ?? fileTime,
    outcome: error === null ? 'finished' : BUDGET_ERROR.test(error) ? 'budget' : 'model-error',
    figures: figuresOf(asObject(line.metrics), history, startedAt, finishedAt),
    patch: asString(asObject(line.test_result)?.git_patch) ?? '',
    summary: asString(asObject(finish?.args)?.final_thought) ?? '',
    hiddenTest: hasReport && taskId ? await readReport(report, taskId) : null,
    task: taskId ? issueRecordOf(taskId, facts) : null,
  };
}

export async function* importOpenHands(
  files: string[],
  context: ImportContext,
): AsyncGenerator<ImportedRun | SkippedRun> {
  for (const file of files) {
    const fileTime = await modifiedAt(file);
    for await (const line of readJsonLines(file)) {
      const at = `${file}:${line.line}`;
      if ('problem' in line) {
        yield { source: at, field: '(line)', reason: line.problem };
        continue;
      }
      try {
        yield await openHandsRun(at, line.value, dirname(file), fileTime, context);
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        yield { source: at, field: 'hiddenTest', reason: error.message };
      }
    }
  }
}
