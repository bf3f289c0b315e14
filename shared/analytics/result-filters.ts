// What narrows the runs in view beyond the row filters (docs/contract.md §6): the judge verdicts and hidden-test
// results chosen, and the search words. The Runs grid and the exports both apply these functions, so an export
// holds exactly the rows the grid counts in "N of M".
import type { HiddenColumn, VerdictCounts } from './rate-figures.ts';
import { codeOf, valueOfCode, VERDICTS, type TextField } from './columns.ts';
import type { RunTable } from './run-table.ts';

export type VerdictKey = keyof VerdictCounts;

export const VERDICT_ORDER: VerdictKey[] = [
  'resolved',
  'partial',
  'wrong',
  'no_change',
  'error',
  'excluded',
  'flagged',
  'unjudged',
];

export const VERDICT_LABELS: Record<VerdictKey, string> = {
  resolved: 'resolved',
  partial: 'partial',
  wrong: 'wrong',
  no_change: 'no change',
  error: 'error',
  excluded: 'excluded',
  flagged: 'flagged',
  unjudged: 'not judged yet',
};

export const HIDDEN_TEST_COLUMNS: HiddenColumn[] = ['pass', 'fail', 'error', 'none'];

export const HIDDEN_TEST_LABELS: Record<HiddenColumn, string> = {
  pass: 'tests pass',
  fail: 'tests fail',
  error: 'tests error',
  none: 'no test result',
};

export const isVerdictKey = (v: string): v is VerdictKey => (VERDICT_ORDER as string[]).includes(v);
export const isHiddenColumn = (v: string): v is HiddenColumn => (HIDDEN_TEST_COLUMNS as string[]).includes(v);

/** A short readable name of a task: its issue (`repo#123`) when known, else the id without hashes. */
export function taskLabel(taskId: string, issue?: { repo: string; issueNumber: number } | null): string {
  if (issue) return `${issue.repo}#${issue.issueNumber}`;
  return taskId
    .replace(/^instance_/, '')
    .replace(/-v[0-9a-f]{20,}$/, '')
    .replace(/[0-9a-f]{12,}/g, (hash) => hash.slice(0, 7));
}

/** Each task's label, by task dictionary index. */
export function taskLabels(
  table: RunTable,
  issues: readonly { taskId: string; repo: string; issueNumber: number }[],
): string[] {
  const issueOf = new Map(issues.map((i) => [i.taskId, i]));
  return table.dictionaries.taskId.values.map((id) => taskLabel(id, issueOf.get(id)));
}

const FLAGGED = codeOf('judgeState', 'flagged');

/** The verdicts as the cockpit shows them, by shown code: the verdict's code, and one past the last for "flagged". */
export const VERDICT_KEYS_BY_CODE: VerdictKey[] = ['unjudged', ...VERDICTS, 'flagged'];

/** A run's shown verdict code: a "resolved" a flag rule withheld is "flagged", not "not judged yet". */
export const verdictCodeAt = (table: RunTable, i: number): number =>
  table.codes.judgeState[i] === FLAGGED ? VERDICT_KEYS_BY_CODE.length - 1 : table.codes.verdict[i]!;

export const verdictKeyAt = (table: RunTable, i: number): VerdictKey => VERDICT_KEYS_BY_CODE[verdictCodeAt(table, i)]!;

/** Whether a run's verdict is among `keys`, looked up by code: a pass over 100k runs without string keys. */
function verdictsByCode(keys: readonly VerdictKey[]) {
  const byCode = Uint8Array.from({ length: 8 }, (_, code) =>
    keys.includes((valueOfCode('verdict', code) ?? 'unjudged') as VerdictKey) ? 1 : 0,
  );
  const flagged = keys.includes('flagged');
  return {
    has: (table: RunTable, i: number) =>
      table.codes.judgeState[i] === FLAGGED ? flagged : byCode[table.codes.verdict[i]!] === 1,
  };
}

/** The rows whose judge verdict and hidden-test result are among those chosen (none chosen: any). */
export function selectByResult(
  table: RunTable,
  rows: Uint32Array,
  chosen: { verdicts: readonly VerdictKey[]; hiddenTests: readonly HiddenColumn[] },
): Uint32Array {
  if (!chosen.verdicts.length && !chosen.hiddenTests.length) return rows;
  const verdicts = verdictsByCode(chosen.verdicts);
  const tests = new Set(chosen.hiddenTests.map((t) => (t === 'none' ? 0 : codeOf('hiddenTest', t))));
  return rows.filter(
    (i) =>
      (!chosen.verdicts.length || verdicts.has(table, i)) && (!tests.size || tests.has(table.codes.hiddenTest[i]!)),
  );
}

const SEARCHED: TextField[] = ['model', 'taskId', 'harnessVersion', 'host', 'repo'];

/** The verdicts and hidden-test results a search word names: their keys or labels contain it (lower case). */
export const resultsNamed = (word: string) => ({
  verdicts: VERDICT_ORDER.filter((key) => key.replace('_', ' ').includes(word) || VERDICT_LABELS[key].includes(word)),
  hiddenTests: HIDDEN_TEST_COLUMNS.filter((column) => HIDDEN_TEST_LABELS[column].includes(word)),
});

/**
 * The rows whose model, task (id or label), harness, host, repo, verdict or hidden-test result contains every
 * search word, case-insensitively. Each word is matched once per dictionary value, not once per run.
 */
export function searchRows(table: RunTable, rows: Uint32Array, search: string, labels: readonly string[]): Uint32Array {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return rows;
  const matches = words.map((w) => {
    const named = resultsNamed(w);
    return {
      text: SEARCHED.map((f) =>
        Uint8Array.from(table.dictionaries[f].values, (v) => (v.toLowerCase().includes(w) ? 1 : 0)),
      ),
      verdict: verdictsByCode(named.verdicts),
      tests: Uint8Array.from({ length: 4 }, (_, code) =>
        named.hiddenTests.includes((valueOfCode('hiddenTest', code) ?? 'none') as HiddenColumn) ? 1 : 0,
      ),
      label: Uint8Array.from(labels, (l) => (l.toLowerCase().includes(w) ? 1 : 0)),
    };
  });
  return rows.filter((i) =>
    matches.every(
      (w) =>
        w.verdict.has(table, i) ||
        w.tests[table.codes.hiddenTest[i]!] ||
        w.label[table.text.taskId[i]!] ||
        SEARCHED.some((f, k) => table.text[f][i]! >= 0 && w.text[k]![table.text[f][i]!]),
    ),
  );
}
