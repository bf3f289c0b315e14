// `replay-push import swe-bench`: SWE-bench predictions (`.jsonl`, or `.json` as a list or keyed by instance id:
// `instance_id`, `model_name_or_path`, `model_patch`) and, when a folder is given, the harness's evaluation logs
// (`logs/run_evaluation/<run_id>/<model>/<instance_id>/report.json`) as hidden-test results. The harness records
// no tokens, cost, steps or agent time, so those stay null; the run's time is the predictions file's.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportedRun, SkippedRun } from './imported-run.ts';
import { readJsonLines } from './json-lines.ts';
import { readReport } from './swe-bench-report.ts';
import { issueRecordOf, type TaskFacts } from './swe-bench-tasks.ts';
import { asObject, asString, modifiedAt, readSourceJson, SourceError, type Json } from './source-files.ts';

export interface ImportContext {
  /** `--dataset`: task facts by instance id. */
  dataset: Map<string, TaskFacts>;
}

const MAX_PREDICTIONS_JSON_BYTES = 256 * 1024 * 1024;
const MAX_DEPTH = 6;

/** report.json files under an evaluation folder, by instance id (the folder holding it), each with its model folder. */
export async function findReports(root: string): Promise<Map<string, { model: string; path: string }[]>> {
  const found = new Map<string, { model: string; path: string }[]>();
  const walk = async (dir: string, trail: string[]) => {
    if (trail.length > MAX_DEPTH) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      // Links are not followed: an evaluation folder is read where it is.
      if (entry.isDirectory()) await walk(join(dir, entry.name), [...trail, entry.name]);
      else if (entry.isFile() && entry.name === 'report.json' && trail.length) {
        const instance = trail.at(-1)!;
        const list = found.get(instance) ?? [];
        list.push({ model: trail.at(-2) ?? '', path: join(dir, entry.name) });
        found.set(instance, list);
      }
    }
  };
  await walk(root, []);
  return found;
}

/** A file's predictions, one at a time, each with where it stands (file:line, or file#index for a .json). */
async function* predictionsOf(path: string): AsyncGenerator<{ at: string; value: Json } | SkippedRun> {
  if (path.endsWith('.jsonl')) {
    for await (const line of readJsonLines(path)) {
      const at = `${path}:${line.line}`;
      if ('problem' in line) yield { source: at, field: '(line)', reason: line.problem };
      else yield { at, value: line.value };
    }
    return;
  }
  const parsed = await readSourceJson(path, MAX_PREDICTIONS_JSON_BYTES);
  const entries: [string, unknown][] = Array.isArray(parsed)
    ? parsed.map((v, i) => [String(i), v])
    : Object.entries(asObject(parsed) ?? {});
  if (!Array.isArray(parsed) && !asObject(parsed))
    throw new SourceError(path, 'is neither a list of predictions nor an object keyed by instance id.');
  for (const [key, value] of entries) {
    const object = asObject(value);
    const at = `${path}#${key}`;
    if (!object) yield { source: at, field: '(entry)', reason: 'is not a JSON object' };
    // Keyed by instance id: the key names the instance where the entry does not.
    else yield { at, value: Array.isArray(parsed) ? object : { instance_id: key, ...object } };
  }
}

/** One prediction as a run: the patch, the model, the hidden-test result where the evaluation has it. */
export async function predictionRun(
  at: string,
  prediction: Json,
  finishedAt: string,
  reports: Map<string, { model: string; path: string }[]>,
  context: ImportContext,
  metricsSource: ImportedRun['metricsSource'] = 'swe-bench/1',
): Promise<ImportedRun> {
  const taskId = asString(prediction.instance_id);
  const model = asString(prediction.model_name_or_path);
  const candidates = (taskId && reports.get(taskId)) || [];
  // The harness names the model's folder after model_name_or_path, "/" written as "__".
  const report =
    candidates.find((r) => model !== null && r.model === model.replace(/\//g, '__')) ??
    (candidates.length === 1 ? candidates[0] : undefined);
  return {
    source: at,
    metricsSource,
    taskId,
    model,
    harnessVersion: null,
    startedAt: null,
    finishedAt,
    outcome: 'finished',
    figures: {},
    patch: asString(prediction.model_patch) ?? '',
    summary: '',
    hiddenTest: report && taskId ? await readReport(report.path, taskId) : null,
    task: taskId ? issueRecordOf(taskId, context.dataset.get(taskId)) : null,
  };
}

export async function* importSweBench(
  files: string[],
  folders: string[],
  context: ImportContext,
): AsyncGenerator<ImportedRun | SkippedRun> {
  const reports = new Map<string, { model: string; path: string }[]>();
  for (const folder of folders)
    for (const [id, list] of await findReports(folder)) reports.set(id, [...(reports.get(id) ?? []), ...list]);
  if (!files.length && folders.length)
    yield { source: folders.join(', '), field: 'predictions', reason: 'no predictions file given beside the logs' };
  for (const file of files) {
    const finishedAt = await modifiedAt(file);
    for await (const item of predictionsOf(file)) {
      if ('reason' in item) yield item;
      else {
        try {
          yield await predictionRun(item.at, item.value, finishedAt, reports, context);
        } catch (error) {
          if (!(error instanceof SourceError)) throw error;
          yield { source: item.at, field: 'hiddenTest', reason: error.message };
        }
      }
    }
  }
}
