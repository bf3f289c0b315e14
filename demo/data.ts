// The demo's real data set (data/swe-bench-lite/, data/README.md): four agent configurations' runs on the same
// SWE-bench Lite tasks, as demo/build-data.ts wrote them from the public sources. One schema per
// file, shared by the builder (which writes nothing it could not read back) and by `npm run demo` (which
// stops on a missing or corrupt file and names it, line included).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '#schema/zod.ts';
import { gitSha, pathSafeIdentity, identity, repoName } from '#schema/primitives.ts';
import { TEST_NAME_MAX_CHARS } from '#schema/run.ts';

export const DEMO_DATA_DIR = join(import.meta.dirname, '../data/swe-bench-lite');
export const DEMO_DATA_FILES = {
  configurations: 'configurations.json',
  tasks: 'tasks.jsonl',
  runs: 'runs.jsonl',
} as const;

const testName = z.string().check(z.minLength(1), z.maxLength(TEST_NAME_MAX_CHARS));
const figure = z.nullable(z.number().check(z.nonnegative()));
const wholeFigure = z.nullable(z.int().check(z.nonnegative()));

export const sourceSchema = z.object({
  repository: repoName,
  commit: gitSha,
  /** The folder (or file) in that commit the figures were read from. */
  path: z.string().check(z.minLength(1)),
});

export const configurationSchema = z.object({
  id: pathSafeIdentity,
  model: identity,
  harnessVersion: pathSafeIdentity,
  /** What the agent is, in a few words (the harness and how its model was named by the source). */
  description: z.string().check(z.minLength(1), z.maxLength(300)),
  source: sourceSchema,
  /** Over the whole of SWE-bench Lite (300 tasks): how many tasks got a patch, and how many were resolved. */
  patchesInLite: z.int().check(z.nonnegative()),
  resolvedInLite: z.int().check(z.nonnegative()),
});

export const taskSchema = z.object({
  instanceId: pathSafeIdentity,
  repo: repoName,
  baseCommit: gitSha,
  /** The pull request that fixed it: the number at the end of the instance id. */
  prNumber: z.int().check(z.positive()),
  /** The merged fix without its test files (SWE-bench's `patch`). */
  goldPatch: z.string().check(z.minLength(1)),
  /** The merged fix's test files (SWE-bench's `test_patch`): the hidden tests. */
  testPatch: z.string(),
  failToPass: z.array(testName).check(z.minLength(1)),
  passToPass: z.array(testName),
});

export const runSchema = z.object({
  configuration: pathSafeIdentity,
  instanceId: pathSafeIdentity,
  /** The candidate patch as the configuration's predictions file holds it. */
  patch: z.string().check(z.minLength(1)),
  /** In the harness's `resolved` list. */
  resolved: z.boolean(),
  /** Per the harness's report: the patch applied (false: it did not, and no test ran). */
  patchApplied: z.boolean(),
  /** From the run's eval log; null when there is none or its tests did not run. */
  passedTests: z.nullable(z.array(testName)),
  failedTests: z.nullable(z.array(testName)),
  /** From the run's trajectory; null when the source does not record it. */
  costUsd: figure,
  promptTokens: wholeFigure,
  completionTokens: wholeFigure,
  steps: wholeFigure,
  wallSeconds: figure,
});

export type DemoSource = z.output<typeof sourceSchema>;
export type DemoConfiguration = z.output<typeof configurationSchema>;
export type DemoTask = z.output<typeof taskSchema>;
export type DemoRunRecord = z.output<typeof runSchema>;

export interface DemoData {
  configurations: DemoConfiguration[];
  tasks: DemoTask[];
  runs: DemoRunRecord[];
}

/** A data file that is missing or does not hold what it should: the message names the file (and line). */
export class DemoDataError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(
      `${file} ${problem} The demo data is rebuilt with \`npm run build:demo-data\` (data/README.md), or restored with \`git checkout -- data/\`.`,
    );
  }
}

export function readText(file: string): string {
  if (!existsSync(file)) throw new DemoDataError(file, 'is missing.');
  return readFileSync(file, 'utf8');
}

export function parsed<T extends z.ZodMiniType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = issue.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new DemoDataError(where, `is corrupt${at}: ${issue.message}.`);
}

function readJsonLines<T extends z.ZodMiniType>(file: string, schema: T): z.output<T>[] {
  const lines = readText(file).split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (!lines.length) throw new DemoDataError(file, 'is empty.');
  return lines.map((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new DemoDataError(`${file}:${i + 1}`, 'is corrupt: the line is not JSON.');
    }
    return parsed(schema, value, `${file}:${i + 1}`);
  });
}

/** Reads and checks the data set: every file parses, and every run names a known task and configuration. */
export function readDemoData(dir = DEMO_DATA_DIR): DemoData {
  const at = (name: string) => join(dir, name);
  const configurationsFile = at(DEMO_DATA_FILES.configurations);
  let configurationsJson: unknown;
  try {
    configurationsJson = JSON.parse(readText(configurationsFile));
  } catch (error) {
    if (error instanceof DemoDataError) throw error;
    throw new DemoDataError(configurationsFile, 'is corrupt: it is not JSON.');
  }
  const configurations = parsed(z.array(configurationSchema), configurationsJson, configurationsFile);
  const tasks = readJsonLines(at(DEMO_DATA_FILES.tasks), taskSchema);
  const runs = readJsonLines(at(DEMO_DATA_FILES.runs), runSchema);
  const taskIds = new Set(tasks.map((t) => t.instanceId));
  const configurationIds = new Set(configurations.map((c) => c.id));
  runs.forEach((run, i) => {
    const where = `${at(DEMO_DATA_FILES.runs)}:${i + 1}`;
    if (!taskIds.has(run.instanceId))
      throw new DemoDataError(where, `is corrupt: task ${run.instanceId} is not in ${DEMO_DATA_FILES.tasks}.`);
    if (!configurationIds.has(run.configuration))
      throw new DemoDataError(
        where,
        `is corrupt: configuration ${run.configuration} is not in ${DEMO_DATA_FILES.configurations}.`,
      );
  });
  return { configurations, tasks, runs };
}

/** Writes the data set after checking it against the schemas the demo reads it with. */
export function writeDemoData(dir: string, data: DemoData): void {
  mkdirSync(dir, { recursive: true });
  const lines = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(
    join(dir, DEMO_DATA_FILES.configurations),
    JSON.stringify(z.parse(z.array(configurationSchema), data.configurations), null, 2) + '\n',
  );
  writeFileSync(join(dir, DEMO_DATA_FILES.tasks), lines(data.tasks.map((t) => z.parse(taskSchema, t))));
  writeFileSync(join(dir, DEMO_DATA_FILES.runs), lines(data.runs.map((r) => z.parse(runSchema, r))));
  readDemoData(dir);
}
