// The size and tier of a merged fix, computed from its diff (docs/contract.md §2): the demo's SWE-bench Lite tasks
// and `replay-push import --dataset` both publish issue records whose tier comes from the gold patch this way.
import { parseDiff } from '#shared/diff.ts';
import { patchCounts } from './derive.ts';

/** A test file by the usual layouts: under tests/ or testing/, or named test_*, *_test(s).py or conftest.py. */
export const isTestPath = (path: string) =>
  /(^|\/)(tests?|testing)\//.test(path) || /(^|\/)(test_[^/]*|[^/]*_tests?\.py|conftest\.py)$/.test(path);

/** The tier rule (docs/contract.md §2): changed lines of the fix outside test files. */
export const tierOf = (codeLinesChanged: number) =>
  codeLinesChanged <= 30 ? 'easy' : codeLinesChanged <= 250 ? 'medium' : 'hard';

/** Sizes of a fix, computed from its diff: all files, and the code files (test files left out). */
export function fixSize(diff: string) {
  const files = parseDiff(diff).files.map((f) => ({ path: f.newPath ?? f.oldPath ?? '', ...patchCounts(f.text) }));
  const code = files.filter((f) => !isTestPath(f.path));
  const lines = (list: typeof files) => list.reduce((s, f) => s + f.patchLinesAdded + f.patchLinesRemoved, 0);
  return {
    filesChanged: files.length,
    linesAdded: files.reduce((s, f) => s + f.patchLinesAdded, 0),
    linesRemoved: files.reduce((s, f) => s + f.patchLinesRemoved, 0),
    codeFilesChanged: code.length,
    codeLinesChanged: lines(code),
    fixHasTests: files.length > code.length,
  };
}
