// The paired comparison of docs/contract.md §6 (`GET …/compare`): two groups over the tasks both ran with a counted
// verdict, their statistics from the one statistics module. The read API answers with it and the cockpit's
// Compare view runs it on its own table, so the two cannot disagree.
import type { Group } from './aggregates.ts';
import { codeOf } from './columns.ts';
import type { CompareBody } from './contract.ts';
import type { RunTable } from './run-table.ts';
import { pairedComparison } from './statistics.ts';

const RESOLVED = codeOf('verdict', 'resolved');

/** resolved, partial, wrong, no_change: the verdicts inside the resolve rate's denominator. */
export const counted = (code: number) =>
  code >= codeOf('verdict', 'resolved') && code <= codeOf('verdict', 'no_change');

/**
 * A against B over the tasks both ran with a counted verdict. A group that is not in the selection, the
 * same group twice, or no common task answer pairs 0 with null statistics (never NaN).
 */
export function compareGroups(table: RunTable, selection: Uint32Array, a: Group, b: Group): Omit<CompareBody, 'asOf'> {
  const same = a.model === b.model && a.harnessVersion === b.harnessVersion;
  const verdictsOf = (group: Group) => {
    const model = table.dictionaries.model.indexOf(group.model);
    const harness = table.dictionaries.harnessVersion.indexOf(group.harnessVersion);
    const byTask = new Map<number, number>();
    if (model < 0 || harness < 0 || same) return byTask;
    for (const i of selection) {
      if (table.text.model[i] === model && table.text.harnessVersion[i] === harness && counted(table.codes.verdict[i]!))
        byTask.set(table.text.taskId[i]!, table.codes.verdict[i]!);
    }
    return byTask;
  };
  const ofA = verdictsOf(a);
  const ofB = verdictsOf(b);
  const counts = { bothResolved: 0, neither: 0 };
  const aOnlyTasks: string[] = [];
  const bOnlyTasks: string[] = [];
  for (const [task, verdictA] of ofA) {
    const verdictB = ofB.get(task);
    if (verdictB === undefined) continue;
    const taskId = table.dictionaries.taskId.values[task]!;
    if (verdictA === RESOLVED && verdictB === RESOLVED) counts.bothResolved++;
    else if (verdictA === RESOLVED) aOnlyTasks.push(taskId);
    else if (verdictB === RESOLVED) bOnlyTasks.push(taskId);
    else counts.neither++;
  }
  return {
    ...pairedComparison({ ...counts, aOnly: aOnlyTasks.length, bOnly: bOnlyTasks.length }),
    aOnlyTasks: aOnlyTasks.sort(),
    bOnlyTasks: bOnlyTasks.sort(),
  };
}
