// Reads a `replay-run/1` run folder (docs/contract.md §7) and turns it into a validated run row plus what goes out with
// it. Every failure is a RunFolderError naming the file (and field or line) and why, never a stack trace.
import { lstat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type * as z from '#schema/zod.ts';
import { issueRecordSchema, type IssueRecord } from '#schema/issue.ts';
import { describeIssues } from '#schema/issues-text.ts';
import { resultFileSchema, trajectoryEventSchemas, type ResultFile, type TrajectoryEvent } from '#schema/run-folder.ts';
import {
  hiddenTestResultSchema,
  RUNNER_FIELDS,
  runnerRowSchema,
  runId,
  type HiddenTestResult,
  type RunnerRow,
} from '#schema/run.ts';
import { sha256Hex } from '#shared/sha256.ts';
import { scanContamination } from './contamination.ts';
import { deriveFigures, MEASURED_FIGURES, mergeRow, taskFields } from './derive.ts';
import { JsonTextError, parseJsonText } from './json-text.ts';
import { readFileSafely, UnsafeFileError } from './safe-read.ts';

export const RUN_FILES = {
  result: 'result.json',
  trajectory: 'trajectory.jsonl',
  patch: 'candidate.diff',
  summary: 'summary.md',
  task: 'task.json',
  hiddenTests: 'hidden-tests.json',
} as const;

type RunFile = (typeof RUN_FILES)[keyof typeof RUN_FILES];

const MIB = 1024 * 1024;
/** The most replay-push reads of each file: a larger one is refused (exit 2), never cut or half read. */
export const MAX_RUN_FILE_BYTES: Record<RunFile, number> = {
  'result.json': 4 * MIB,
  'trajectory.jsonl': 128 * MIB,
  'candidate.diff': 128 * MIB,
  'summary.md': 4 * MIB,
  'task.json': MIB,
  'hidden-tests.json': MIB,
};

export class RunFolderError extends Error {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'RunFolderError';
  }
}

export interface RunFolder {
  folder: string;
  result: ResultFile;
  events: TrajectoryEvent[] | null;
  /** null when `result.json` says the source recorded no patch (`patchRecorded: false`). */
  patch: string | null;
  summary: string;
  task: IssueRecord | null;
  hiddenTest: HiddenTestResult | null;
  warnings: string[];
}

/** What one run folder sends: the row and its texts, plus the (id, finishedAt, patch hash) that identify it. */
export interface PreparedRun {
  folder: string;
  id: string;
  host: string;
  row: RunnerRow;
  patch: string | null;
  summary: string;
  /** SHA-256 of candidate.diff as the harness wrote it (before any cut); of '' when no patch was recorded. */
  patchSha256: string;
  task: IssueRecord | null;
  hiddenTest: HiddenTestResult | null;
  warnings: string[];
}

export interface PrepareOptions {
  /** `--host`: every folder must be this host's (a folder naming another is refused). */
  host?: string;
  /** Defaults to the folder's parent. */
  runsRoot?: string;
  forbid?: string[];
}

/** A file of the run folder as text, or null when absent; never through a link, never beyond its cap. */
async function readOptional(folder: string, file: RunFile): Promise<string | null> {
  try {
    const read = await readFileSafely(join(folder, file), { within: folder, maxBytes: MAX_RUN_FILE_BYTES[file] });
    return read && read.bytes.toString('utf8');
  } catch (error) {
    if (error instanceof UnsafeFileError) throw new RunFolderError(error.path, error.reason);
    throw error;
  }
}

/** The file's JSON; a parse error names the position only: the text may be a secret a hard link led to. */
export function parseJsonFile(path: string, text: string): unknown {
  try {
    return parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonTextError) throw new RunFolderError(path, `${error.message}.`);
    throw error;
  }
}

function validate<T extends z.ZodMiniType>(schema: T, value: unknown, path: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RunFolderError(path, describeIssues(parsed.error.issues).join('; '));
  return parsed.data;
}

/**
 * One event per line. A truncated LAST line (no newline after it: the harness was stopped mid-write) is
 * skipped with a warning; any other malformed line refuses the folder, naming the line.
 */
export function parseTrajectory(text: string, path: string): { events: TrajectoryEvent[]; warnings: string[] } {
  const lines = text.split('\n');
  const events: TrajectoryEvent[] = [];
  const warnings: string[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    const where = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lines.length - 1)
        return void warnings.push(`${path}: ${where} is cut short (no newline after it) and was skipped.`);
      throw new RunFolderError(path, `${where} is not valid JSON.`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new RunFolderError(path, `${where} is not a JSON object.`);
    const type = (value as { type?: unknown }).type;
    const schema =
      typeof type === 'string' && Object.hasOwn(trajectoryEventSchemas, type)
        ? trajectoryEventSchemas[type as keyof typeof trajectoryEventSchemas]
        : null;
    if (!schema) return;
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new RunFolderError(path, `${where}: ${describeIssues(parsed.error.issues).join('; ')}`);
    events.push(parsed.data);
  });
  return { events, warnings };
}

/** A run folder's files as text, by name; a file absent from it is absent here. */
export type RunFolderTexts = Partial<Record<RunFile, string>>;

export async function readRunFolder(folderPath: string): Promise<RunFolder> {
  const folder = resolve(folderPath);
  if ((await lstat(folder).catch(() => null))?.isSymbolicLink())
    throw new RunFolderError(folder, 'is a symbolic link: a run folder is read where it is, never through a link.');
  const texts: RunFolderTexts = {};
  const result = await readOptional(folder, RUN_FILES.result);
  if (result === null)
    throw new RunFolderError(join(folder, RUN_FILES.result), 'is missing: every run folder needs one.');
  texts[RUN_FILES.result] = result;
  const others = [RUN_FILES.trajectory, RUN_FILES.patch, RUN_FILES.summary, RUN_FILES.task, RUN_FILES.hiddenTests];
  const read = await Promise.all(others.map((file) => readOptional(folder, file)));
  others.forEach((file, i) => {
    if (read[i] !== null) texts[file] = read[i];
  });
  return parseRunFolder(folder, texts);
}

/**
 * The run folder whose files hold `texts`, checked as `readRunFolder` checks one on disk: `replay-push import`'s
 * folders before they are written (the demo's campaign reads them so), errors naming `folder`'s files.
 */
export function parseRunFolder(folder: string, texts: RunFolderTexts): RunFolder {
  const at = (file: string) => join(folder, file);
  const resultText = texts[RUN_FILES.result];
  if (resultText === undefined)
    throw new RunFolderError(at(RUN_FILES.result), 'is missing: every run folder needs one.');
  const result = validate(resultFileSchema, parseJsonFile(at(RUN_FILES.result), resultText), at(RUN_FILES.result));
  if (result.finishedAt < result.startedAt)
    throw new RunFolderError(
      at(RUN_FILES.result),
      `"finishedAt" (${result.finishedAt}) is before "startedAt" (${result.startedAt}).`,
    );
  const {
    [RUN_FILES.trajectory]: trajectoryText,
    [RUN_FILES.patch]: patch,
    [RUN_FILES.summary]: summary,
    [RUN_FILES.task]: taskText,
    [RUN_FILES.hiddenTests]: hiddenText,
  } = texts;
  if (result.patchRecorded === false && patch)
    throw new RunFolderError(
      at(RUN_FILES.patch),
      'holds a patch, but result.json says "patchRecorded": false: remove one of the two.',
    );
  const trajectory = trajectoryText === undefined ? null : parseTrajectory(trajectoryText, at(RUN_FILES.trajectory));
  const task =
    taskText === undefined
      ? null
      : validate(issueRecordSchema, parseJsonFile(at(RUN_FILES.task), taskText), at(RUN_FILES.task));
  if (task && task.taskId !== result.taskId)
    throw new RunFolderError(
      at(RUN_FILES.task),
      `is for task "${task.taskId}", but result.json says "${result.taskId}".`,
    );
  const hiddenTest =
    hiddenText === undefined
      ? null
      : validate(
          hiddenTestResultSchema,
          parseJsonFile(at(RUN_FILES.hiddenTests), hiddenText),
          at(RUN_FILES.hiddenTests),
        );
  return {
    folder,
    result,
    events: trajectory?.events ?? null,
    patch: result.patchRecorded === false ? null : (patch ?? ''),
    summary: summary ?? '',
    task,
    hiddenTest,
    warnings: trajectory?.warnings ?? [],
  };
}

/** The runner fields `result.json` gives (anything else in it, `format` and `workspace` included, stays home). */
function givenFields(result: ResultFile): Record<string, unknown> {
  return Object.fromEntries(Object.entries(result).filter(([key]) => (RUNNER_FIELDS as string[]).includes(key)));
}

/** The measured figures `result.json` gives as null: they stay null rather than derived. */
const unmeasured = (result: ResultFile) =>
  Object.fromEntries(MEASURED_FIGURES.filter((key) => result[key] === null).map((key) => [key, null]));

export function prepareRun(run: RunFolder, options: PrepareOptions = {}): PreparedRun {
  const resultPath = join(run.folder, RUN_FILES.result);
  const host = options.host ?? run.result.host;
  if (!host) throw new RunFolderError(resultPath, 'has no "host", and neither --host nor REPLAY_HOST names one.');
  if (options.host && run.result.host && run.result.host !== options.host) {
    throw new RunFolderError(
      resultPath,
      `names host "${run.result.host}", but this is --host "${options.host}": it belongs to another runner.`,
    );
  }
  const contamination =
    run.events && run.result.contamination === undefined
      ? scanContamination(run.events, {
          runsRoot: resolve(options.runsRoot ?? dirname(run.folder)),
          runFolder: run.folder,
          workspace: run.result.workspace,
          forbid: (options.forbid ?? []).map((f) => resolve(f)),
        })
      : [];
  const derived = deriveFigures(run.result, run.events, run.patch);
  const row = validate(
    runnerRowSchema,
    {
      ...mergeRow({ ...derived }, { contamination }, taskFields(run.task), givenFields(run.result), { host }),
      ...unmeasured(run.result),
    },
    resultPath,
  );
  return {
    folder: run.folder,
    id: runId(row),
    host,
    row,
    patch: run.patch,
    summary: run.summary,
    patchSha256: sha256Hex(run.patch ?? ''),
    task: run.task,
    hiddenTest: run.hiddenTest,
    warnings: run.warnings,
  };
}
