// What an importer makes of one run of a harness's outputs (docs/runner.md "Importing a harness's outputs"), and how
// it becomes a `replay-run/1` run folder. Every value a source does not record stays null; the figures go into
// result.json as given values (they win over what replay-push would derive, and an explicit null stays null), so
// a run without per-call times never gets a derived wall time or throughput of zero. Before a folder is written,
// everything in it passes the schemas ingest applies; a run that does not is listed with the field and skipped.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as z from '#schema/zod.ts';
import { issueRecordSchema, type IssueRecord } from '#schema/issue.ts';
import { describeIssues } from '#schema/issues-text.ts';
import { patchText, longText } from '#schema/primitives.ts';
import { RUN_FOLDER_FORMAT, resultFileSchema } from '#schema/run-folder.ts';
import { hiddenTestResultSchema, runnerRowSchema, runId, type HiddenTestResult, type RunnerRow } from '#schema/run.ts';
import { sha256Hex } from '#shared/sha256.ts';
import { MEASURED_FIGURES, outputTokensPerMinute } from '../derive.ts';
import { RUN_FILES } from '../run-folder.ts';

export const IMPORT_FORMATS = ['swe-bench', 'swe-agent', 'mini-swe-agent', 'openhands', 'inspect', 'harbor'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The figures an importer may give; anything it leaves out is null. */
export type GivenFigures = Partial<
  Pick<
    RunnerRow,
    | 'wallSeconds'
    | 'steps'
    | 'promptTokens'
    | 'completionTokens'
    | 'maxPromptTokensPerCall'
    | 'costUsd'
    | 'medianCallSeconds'
    | 'bashCalls'
    | 'readCalls'
    | 'editCalls'
    | 'writeCalls'
    | 'maxSteps'
    | 'repo'
    | 'issueNumber'
  >
>;

/** The figures that count a run's tool calls. */
export type ToolCallField = 'bashCalls' | 'readCalls' | 'editCalls' | 'writeCalls';

/** How many of a run's tool calls fall under each field; a call that is none of them (null) counts nowhere. */
export function toolCallCounts(fields: Iterable<ToolCallField | null | undefined>): Record<ToolCallField, number> {
  const counts = { bashCalls: 0, readCalls: 0, editCalls: 0, writeCalls: 0 };
  for (const field of fields) if (field) counts[field]++;
  return counts;
}

/** One run as a source records it; null where it records nothing. */
export interface ImportedRun {
  /** Where it came from, for messages: a file, or file:line. */
  source: string;
  metricsSource: NonNullable<RunnerRow['metricsSource']>;
  taskId: string | null;
  model: string | null;
  harnessVersion: string | null;
  /** The source's trial or epoch number (1 first), where it numbers repeated tries of a task. */
  sample?: number;
  startedAt: string | null;
  finishedAt: string;
  outcome: RunnerRow['outcome'];
  figures: GivenFigures;
  /** null where the format records no diff at all (not an empty one): the run is then not judged. */
  patch: string | null;
  summary: string;
  hiddenTest: HiddenTestResult | null;
  task: IssueRecord | null;
}

/** A run that cannot be mapped: where, the field it lacks or fails, and why. */
export interface SkippedRun {
  source: string;
  field: string;
  reason: string;
}

export interface ImportDefaults {
  /** `--model`, `--harness-version`: used where the source does not name them. */
  model?: string;
  harnessVersion?: string;
}

/** Figures the source does not give are written as null: replay-push then keeps them null, never derives them. */
const FIGURES = [...MEASURED_FIGURES, 'costUsd'] as const;

export interface RunFolderFiles {
  /** The folder's name under the import root: the run id made safe, plus a short hash of the id. */
  name: string;
  id: string;
  files: Partial<Record<(typeof RUN_FILES)[keyof typeof RUN_FILES], string>>;
}

function check<T extends z.ZodMiniType>(schema: T, value: unknown, prefix: string): string | null {
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  const first = parsed.error.issues[0]!;
  return `${[prefix, ...first.path.map(String)].filter(Boolean).join('.')}|${describeIssues([first])[0]}`;
}

/** The run folder of an imported run, or the field that keeps it from being one. */
export function toRunFolder(run: ImportedRun, defaults: ImportDefaults): RunFolderFiles | SkippedRun {
  const skipped = (field: string, reason: string): SkippedRun => ({ source: run.source, field, reason });
  const model = run.model ?? defaults.model ?? null;
  const harnessVersion = run.harnessVersion ?? defaults.harnessVersion ?? null;
  if (!run.taskId) return skipped('taskId', 'the source names no task (instance id)');
  if (!model) return skipped('model', 'the source names no model: give --model');
  if (!harnessVersion) return skipped('harnessVersion', 'the source names no harness version: give --harness-version');
  const result = {
    format: RUN_FOLDER_FORMAT,
    model,
    taskId: run.taskId,
    harnessVersion,
    ...(run.sample === undefined ? {} : { sample: run.sample }),
    startedAt: run.startedAt ?? run.finishedAt,
    finishedAt: run.finishedAt,
    outcome: run.outcome,
    ...Object.fromEntries(FIGURES.map((f) => [f, null])),
    // Of the source's own figures, as replay-push derives it from a trajectory's.
    outputTokensPerMinute: outputTokensPerMinute(run.figures.completionTokens ?? null, run.figures.wallSeconds ?? null),
    ...run.figures,
    metricsSource: run.metricsSource,
    ...(run.patch === null ? { patchRecorded: false } : {}),
  };
  const problems = [
    check(resultFileSchema, result, ''),
    // The host is --host's, filled in when the folder is sent; any valid name stands in for the check here.
    check(runnerRowSchema, { ...result, host: 'import' }, ''),
    run.patch !== null && check(patchText, run.patch, 'patch'),
    check(longText(4 * 1024 * 1024), run.summary, 'summary'),
    run.hiddenTest && check(hiddenTestResultSchema, run.hiddenTest, 'hiddenTest'),
    run.task && check(issueRecordSchema, run.task, 'task'),
  ].filter((p): p is string => Boolean(p));
  if (problems.length) {
    const [field, reason] = problems[0]!.split('|') as [string, string];
    return skipped(field || '(row)', reason);
  }
  if (run.task && run.task.taskId !== run.taskId) return skipped('task.taskId', 'is not the run’s task');
  const id = runId({ model, taskId: run.taskId, harnessVersion, sample: run.sample });
  const safe = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120);
  return {
    name: `${safe}--${sha256Hex(id).slice(0, 10)}`,
    id,
    files: {
      [RUN_FILES.result]: `${JSON.stringify(result, null, 2)}\n`,
      ...(run.patch ? { [RUN_FILES.patch]: run.patch } : {}),
      ...(run.summary ? { [RUN_FILES.summary]: run.summary } : {}),
      ...(run.task ? { [RUN_FILES.task]: `${JSON.stringify(run.task, null, 2)}\n` } : {}),
      ...(run.hiddenTest ? { [RUN_FILES.hiddenTests]: `${JSON.stringify(run.hiddenTest, null, 2)}\n` } : {}),
    },
  };
}

export const isSkipped = (value: object): value is SkippedRun => 'reason' in value && 'field' in value;

/**
 * Writes the folder under `root`, each file atomically (temp file, rename), and leaves a file alone when it
 * already holds these bytes: importing the same outputs twice changes nothing on disk. A file the run no longer
 * has (the source lost its report) is removed.
 */
export async function writeRunFolder(root: string, folder: RunFolderFiles): Promise<string> {
  const dir = join(root, folder.name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const file of Object.values(RUN_FILES)) if (!(file in folder.files)) await rm(join(dir, file), { force: true });
  for (const [file, text] of Object.entries(folder.files)) {
    const path = join(dir, file);
    const current = await readFile(path, 'utf8').catch(() => null);
    if (current === text) continue;
    const temp = `${path}.${process.pid}.tmp`;
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, path);
  }
  return dir;
}
