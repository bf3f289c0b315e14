// The paired comparison of docs/contract.md §6 (`GET …/compare`): two groups over the tasks both ran with a result on
// the chosen outcome, their statistics from the one statistics module. The read API answers with it and the
// cockpit's Compare view runs it on its own table, so the two cannot disagree.
import type { Group } from './run-grouping.ts';
import type { CompareBody } from './contract.ts';
import type { RunTable } from './run-table.ts';
import {
  MIN_SHARED_TASKS,
  NOT_RESOLVED,
  OUTCOME_RULES,
  pairedComparison,
  RESOLVED,
  type ResolveOutcome,
} from './statistics.ts';

/** A task the group has no run of (in the selection). */
const NO_RUN = -2;

/**
 * Each group's class on the outcome for each task, by task dictionary index: RESOLVED, NOT_RESOLVED,
 * OUTSIDE, or NO_RUN; one pass over the selection for all of them. A group that is not in the table has
 * no run of any task.
 */
export function taskOutcomesOf(
  table: RunTable,
  selection: Uint32Array,
  groups: readonly Group[],
  outcome: ResolveOutcome,
): Int8Array[] {
  const tasks = table.dictionaries.taskId.values.length;
  const harnesses = table.dictionaries.harnessVersion.values.length;
  const groupOf = new Int32Array(table.dictionaries.model.values.length * harnesses).fill(-1);
  groups.forEach((g, k) => {
    const model = table.dictionaries.model.indexOf(g.model);
    const harness = table.dictionaries.harnessVersion.indexOf(g.harnessVersion);
    if (model >= 0 && harness >= 0) groupOf[model * harnesses + harness] = k;
  });
  const out = groups.map(() => new Int8Array(tasks).fill(NO_RUN));
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  const { model, harnessVersion, taskId } = table.text;
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const g = groupOf[model[i]! * harnesses + harnessVersion[i]!]!;
    if (g >= 0) out[g]![taskId[i]!] = classOf[codes[i]!]!;
  }
  return out;
}

/** The four counts of the tasks both have a result of, and the discordant tasks' dictionary indexes. */
export function pairCounts(a: Int8Array, b: Int8Array) {
  const counts = { bothResolved: 0, aOnly: 0, bOnly: 0, neither: 0 };
  const aOnlyTasks: number[] = [];
  const bOnlyTasks: number[] = [];
  for (let t = 0; t < a.length; t++) {
    const x = a[t]!;
    const y = b[t]!;
    // OUTSIDE and NO_RUN, the classes without a result, are the ones below NOT_RESOLVED.
    if (x < NOT_RESOLVED || y < NOT_RESOLVED) continue;
    if (x === RESOLVED && y === RESOLVED) counts.bothResolved++;
    else if (x === RESOLVED) aOnlyTasks.push(t);
    else if (y === RESOLVED) bOnlyTasks.push(t);
    else counts.neither++;
  }
  counts.aOnly = aOnlyTasks.length;
  counts.bOnly = bOnlyTasks.length;
  return { counts, aOnlyTasks, bOnlyTasks };
}

/**
 * A against B over the tasks both ran with a result on the outcome. A group that is not in the selection,
 * the same group twice, or no common task answer pairs 0 with null statistics (never NaN); fewer than
 * MIN_SHARED_TASKS pairs give the counts and null statistics.
 */
export function compareGroups(
  table: RunTable,
  selection: Uint32Array,
  a: Group,
  b: Group,
  outcome: ResolveOutcome,
): Omit<CompareBody, 'asOf'> {
  const same = a.model === b.model && a.harnessVersion === b.harnessVersion;
  const [ofA, ofB] = taskOutcomesOf(table, same ? new Uint32Array(0) : selection, [a, b], outcome);
  const { counts, aOnlyTasks, bOnlyTasks } = pairCounts(ofA!, ofB!);
  const names = (tasks: number[]) => tasks.map((t) => table.dictionaries.taskId.values[t]!).sort();
  const comparison = pairedComparison(counts);
  const tooFew = comparison.pairs < MIN_SHARED_TASKS;
  return {
    outcome,
    minPairs: MIN_SHARED_TASKS,
    ...comparison,
    ...(tooFew && { difference: null, ci: null, mcnemarP: null }),
    aOnlyTasks: names(aOnlyTasks),
    bOnlyTasks: names(bOnlyTasks),
  };
}
