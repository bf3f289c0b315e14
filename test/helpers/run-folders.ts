// Run folders (format replay-run/1) for replay-push tests, and the real command run in-process.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '#runner/cli.ts';

export interface RunFolderSpec {
  name?: string;
  result?: Record<string, unknown>;
  /** Lines of trajectory.jsonl (objects are serialised); omitted = no trajectory. */
  trajectory?: (Record<string, unknown> | string)[];
  patch?: string;
  summary?: string;
  task?: Record<string, unknown>;
  hiddenTest?: Record<string, unknown>;
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

export function resultJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'replay-run/1',
    model: 'qwen3:8b',
    taskId: 'acme__widgets-42',
    harnessVersion: 'h2',
    host: 'mac-studio-1',
    startedAt: '2026-11-20T10:00:00Z',
    finishedAt: '2026-11-20T10:12:00Z',
    outcome: 'finished',
    ...overrides,
  };
}

export function taskJson(taskId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    taskId,
    repo: 'acme/widgets',
    issueNumber: 42,
    tier: 'easy',
    wave: 1,
    baseSha: 'a'.repeat(40),
    mergeSha: 'b'.repeat(40),
    ...overrides,
  };
}

export function writeRunFolder(root: string, spec: RunFolderSpec = {}): string {
  const result = resultJson(spec.result);
  const dir = join(root, spec.name ?? `${String(result.taskId)}__${String(result.harnessVersion)}`);
  mkdirSync(dir, { recursive: true });
  if (spec.trajectory)
    writeFileSync(
      join(dir, 'trajectory.jsonl'),
      spec.trajectory.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n',
    );
  if (spec.patch !== undefined) writeFileSync(join(dir, 'candidate.diff'), spec.patch);
  if (spec.summary !== undefined) writeFileSync(join(dir, 'summary.md'), spec.summary);
  if (spec.task) writeFileSync(join(dir, 'task.json'), JSON.stringify(spec.task));
  if (spec.hiddenTest) writeFileSync(join(dir, 'hidden-tests.json'), JSON.stringify(spec.hiddenTest));
  // Written last, as a harness should: a folder without result.json is a run still being written.
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result));
  return dir;
}

export const SMALL_PATCH =
  'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n';

/** A key file readable only by its owner, as replay-push requires. */
export function writeKeyFile(dir: string, key: string, name = 'replay.key'): string {
  const path = join(dir, name);
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

/**
 * `replay-push …` in this process, through the same entry the bin uses; `onErr` sees each progress line as it comes,
 * `now` is the clock deliveries are signed by (Date.now when not given).
 */
export async function replayPush(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  onErr: (line: string) => void = () => {},
  now?: () => number,
): Promise<CliRun> {
  const run: CliRun = { code: -1, out: [], err: [] };
  const err = (line: string) => {
    run.err.push(line);
    onErr(line);
  };
  run.code = await runCli(args, env, { out: (l) => run.out.push(l), err, errRaw: err, isTTY: false }, now);
  return run;
}

/** Every file under `dir` (none when it does not exist), each with its text, for "the secret is nowhere" checks. */
export function filesUnder(dir: string): { path: string; text: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path, text: readFileSync(path, 'utf8') };
    });
}
