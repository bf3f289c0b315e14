// "Same files as the fix" on the real SWE-bench Lite demo runs (issue 41, item 1): the fact the judge computes
// from the candidate and the merged fix it fetched (the fix's code, then its tests) agrees with a count made here
// from the two diffs' `diff --git` lines, test files aside on both sides.
import { describe, expect, it } from '@jest/globals';
import { readDemoData } from '#demo/data.ts';
import { originalFix } from '#demo/lite-campaign.ts';
import { isTestPath, verdictChecks } from '#core/judge/verdict-checks.ts';

const data = readDemoData();
const filesOf = (diff: string) => [...diff.matchAll(/^diff --git a\/\S+ b\/(\S+)$/gm)].map((m) => m[1]!);
const codeFilesOf = (diff: string) => [...new Set(filesOf(diff).filter((path) => !isTestPath(path)))].sort();

describe('same files as the fix, on the demo runs', () => {
  const runs = data.runs.map((run) => {
    const task = data.tasks.find((t) => t.instanceId === run.instanceId)!;
    return {
      computed: verdictChecks(run.patch, '', { diff: originalFix(task), omittedLockFiles: [] }, '').sameFiles,
      counted: codeFilesOf(run.patch).join('\n') === codeFilesOf(task.goldPatch).join('\n'),
      addsTest: filesOf(run.patch).some(isTestPath),
      exactlyTheFixFiles: [...new Set(filesOf(run.patch))].sort().join('\n') === codeFilesOf(task.goldPatch).join('\n'),
    };
  });

  it('compares the code files of both diffs, so the merged fix’s test files never make it false', () => {
    expect(runs.map((r) => r.computed)).toEqual(runs.map((r) => r.counted));
    // 311 candidates change exactly the fix's code files; 7 more change them and add a test of their own.
    expect(runs.filter((r) => r.exactlyTheFixFiles)).toHaveLength(311);
    expect(runs.filter((r) => r.computed && !r.exactlyTheFixFiles).every((r) => r.addsTest)).toBe(true);
    expect(runs.filter((r) => r.computed)).toHaveLength(318);
  });
});
