// Issue records for SWE-bench-style tasks: an instance id `owner__repo-123` names the repository and the number of
// the pull request that fixed it (SWE-bench names a fix PR, not always an issue; GitHub answers a PR's number as an
// issue's, as the demo does). A dataset file (`--dataset`, SWE-bench's JSONL: `instance_id`, `repo`,
// `base_commit`, `patch`, `test_patch`) adds the base commit, the fix's size and its tier, computed from the gold
// patch by the demo's rule (runner/fix-size.ts). Issue text (`problem_statement`, `hints_text`) is never read
// into anything.
import type { IssueRecord } from '#schema/issue.ts';
import { fixSize, tierOf } from '../fix-size.ts';
import { readJsonLines } from './json-lines.ts';
import { asString } from './source-files.ts';

const INSTANCE_ID = /^([A-Za-z0-9_.-]+?)__([A-Za-z0-9_.-]+)-(\d+)$/;

/** What a dataset row (or a harness's copy of the instance) says about a task; the fix already measured. */
export interface TaskFacts {
  repo: string | null;
  baseSha: string | null;
  fix: ReturnType<typeof fixSize> | null;
}

export function taskFactsOf(row: Record<string, unknown>): TaskFacts {
  const gold = asString(row.patch);
  return {
    repo: asString(row.repo),
    baseSha: asString(row.base_commit),
    fix: gold === null ? null : fixSize(gold + (asString(row.test_patch) ?? '')),
  };
}

/** The dataset's tasks by instance id (each gold patch measured as it streams past, never held), and what was skipped. */
export async function readDataset(path: string): Promise<{ tasks: Map<string, TaskFacts>; skipped: string[] }> {
  const tasks = new Map<string, TaskFacts>();
  const skipped: string[] = [];
  for await (const line of readJsonLines(path)) {
    if ('problem' in line) skipped.push(`${path}:${line.line} ${line.problem}`);
    else {
      const id = asString(line.value.instance_id);
      if (id) tasks.set(id, taskFactsOf(line.value));
      else skipped.push(`${path}:${line.line} has no "instance_id": skipped`);
    }
  }
  return { tasks, skipped };
}

/** The issue record of a SWE-bench-style instance id, or null for an id of another shape. */
export function issueRecordOf(instanceId: string, facts: TaskFacts | undefined): IssueRecord | null {
  const match = INSTANCE_ID.exec(instanceId);
  if (!match) return null;
  const [, owner, name, number] = match;
  const pr = Number(number);
  if (!Number.isSafeInteger(pr) || pr < 1) return null;
  const fix = facts?.fix ?? null;
  return {
    taskId: instanceId,
    order: null,
    repo: facts?.repo ?? `${owner}/${name}`,
    issueNumber: pr,
    fixPrNumber: pr,
    tier: fix ? tierOf(fix.codeLinesChanged) : null,
    wave: null,
    codeLinesChanged: fix?.codeLinesChanged ?? null,
    codeFilesChanged: fix?.codeFilesChanged ?? null,
    filesChanged: fix?.filesChanged ?? null,
    linesAdded: fix?.linesAdded ?? null,
    linesRemoved: fix?.linesRemoved ?? null,
    fixHasTests: fix?.fixHasTests ?? null,
    originalFixModel: null,
    commits: null,
    issueToMergeHours: null,
    prToMergeHours: null,
    mergedAt: null,
    baseSha: facts?.baseSha ?? null,
    mergeSha: null,
  };
}
