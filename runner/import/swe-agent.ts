// `replay-push import swe-agent`: SWE-agent `.traj` files, one run each (`<instance_id>.traj`). `info.model_stats`
// gives tokens (`tokens_sent`, `tokens_received`), cost (`instance_cost`) and model calls (`api_calls`);
// `trajectory` gives the actions, counted as tool calls; `info.submission` is the patch; `info.exit_status` the
// outcome. SWE-agent 1.x also records its version (`info.swe_agent_version`) and the model (`replay_config`).
// A trajectory records no times: the run's time is the file's, and wall time stays null.
import { basename } from 'node:path';
import { toolCallCounts, type ImportedRun, type SkippedRun, type ToolCallField } from './imported-run.ts';
import { issueRecordOf } from './swe-bench-tasks.ts';
import type { ImportContext } from './swe-bench.ts';
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
} from './source-files.ts';
import { filesEndingIn } from './trajectory-files.ts';

/**
 * SWE-agent runs every action in its shell; its file tools are commands like any other. These name the ones that
 * read, edit or create a file; every other action is a bash call, and `submit` is none.
 */
const TOOL_OF = (action: string): ToolCallField | null => {
  const [command, sub] = action.trim().split(/\s+/, 2);
  if (command === 'submit' || !command) return null;
  if (command === 'str_replace_editor')
    return sub === 'view' ? 'readCalls' : sub === 'create' ? 'writeCalls' : 'editCalls';
  if (['open', 'goto', 'scroll_up', 'scroll_down'].includes(command)) return 'readCalls';
  if (['edit', 'insert', 'str_replace'].includes(command)) return 'editCalls';
  if (command === 'create') return 'writeCalls';
  return 'bashCalls';
};

/** The outcome of an `exit_status`: a cost, context, time or step cap is the budget; a format or other error is not. */
export function outcomeOfExit(status: string | null): ImportedRun['outcome'] {
  if (status === null || /^submitted$/i.test(status)) return 'finished';
  if (/cost|context|limit|time|step/i.test(status)) return 'budget';
  if (/submitted/i.test(status)) return 'finished';
  return 'model-error';
}

/** The model `replay_config` names: a JSON text in SWE-agent 1.x, an object in some versions. */
function modelOfReplayConfig(config: unknown): string | null {
  let value = config;
  if (typeof config === 'string') {
    try {
      value = JSON.parse(config);
    } catch {
      return null;
    }
  }
  return asString(asObject(asObject(asObject(value)?.agent)?.model)?.name);
}

export async function sweAgentRun(path: string, context: ImportContext): Promise<ImportedRun> {
  const traj = asObject(await readSourceJson(path));
  if (!traj) throw new SourceError(path, 'is not a JSON object.');
  const info = asObject(traj.info) ?? {};
  const stats = asObject(info.model_stats) ?? {};
  const taskId = basename(path).replace(/\.traj$/, '');
  const version = asString(info.swe_agent_version);
  const steps = asArray(traj.trajectory).map(asObject);
  const tools = toolCallCounts(steps.map((step) => TOOL_OF(asString(step?.action) ?? '')));
  return {
    source: path,
    metricsSource: 'swe-agent/1',
    taskId,
    model: modelOfReplayConfig(traj.replay_config),
    harnessVersion: version ? `swe-agent@${version}` : null,
    startedAt: null,
    finishedAt: await modifiedAt(path),
    outcome: outcomeOfExit(asString(info.exit_status)),
    figures: {
      steps: asCount(stats.api_calls),
      promptTokens: asCount(stats.tokens_sent),
      completionTokens: asCount(stats.tokens_received),
      costUsd: asNumber(stats.instance_cost),
      ...(steps.length ? tools : {}),
    },
    // SWE-agent writes the diff after a newline; the patch starts at its first line.
    patch: (asString(info.submission) ?? '').replace(/^(\r?\n)+/, ''),
    summary: '',
    hiddenTest: null,
    task: issueRecordOf(taskId, context.dataset.get(taskId)),
  };
}

export async function* importSweAgent(
  paths: string[],
  context: ImportContext,
): AsyncGenerator<ImportedRun | SkippedRun> {
  for (const file of await filesEndingIn(paths, '.traj')) yield await runOfFile(file, (f) => sweAgentRun(f, context));
}
