// Each configuration's samples of each task on an outcome (docs/contract.md §6 "Repeated samples"): n runs with a
// result, c of them resolved, and the task's repository for `cluster=repo`; one pass over the selection for
// every group, into one dense count per group and task (a pair of 100k-run configurations is compared without a
// map or an object per task). With one run per (model, task, harness) every n is 1. Browser-safe.
import { OUTCOME_RULES, OUTSIDE, RESOLVED, type OutcomeRule, type ResolveOutcome } from './outcome.ts';
import {
  reliabilityOf,
  reliabilityOfKinds,
  type ClusterUnit,
  type Reliability,
  type TaskSamples,
} from './reliability.ts';
import type { Group } from './run-grouping.ts';
import type { RunTable } from './run-table.ts';

/** Runs with a result (`n[g][t]`) and resolved (`c[g][t]`) of group g on task t, tasks in task id order. */
export interface SampleCounts {
  tasks: readonly string[];
  /**
   * Each task's repository, the least any of its counted runs names (as the engine's `min(repo)`), null where none
   * names one.
   */
  repos: readonly (string | null)[];
  n: Int32Array[];
  c: Int32Array[];
}

/** The counts of the groups, in the order given; a group not in the table has no run of any task. */
export function sampleCountsOf(
  table: RunTable,
  selection: ArrayLike<number>,
  groups: readonly Group[],
  outcome: ResolveOutcome,
): SampleCounts {
  const harnesses = table.dictionaries.harnessVersion.values.length;
  const groupOf = new Int32Array(table.dictionaries.model.values.length * harnesses).fill(-1);
  groups.forEach((g, k) => {
    const model = table.dictionaries.model.indexOf(g.model);
    const harness = table.dictionaries.harnessVersion.indexOf(g.harnessVersion);
    if (model >= 0 && harness >= 0) groupOf[model * harnesses + harness] = k;
  });
  const { model, harnessVersion } = table.text;
  const of = Int32Array.from({ length: selection.length }, (_, s) => {
    const i = selection[s]!;
    return groupOf[model[i]! * harnesses + harnessVersion[i]!]!;
  });
  return sampleCountsOfGrouping(table, selection, { groups, of }, OUTCOME_RULES[outcome]);
}

/**
 * sampleCountsOf for groups given by each selected run's group (`of`, -1 for none): any grouping, such as one group
 * per harness version of every model (the per-model table's totals), its tasks clustered across its models; and
 * any rule of what counts and what "resolves" (an outcome's, or a budget running out).
 */
export function sampleCountsOfGrouping(
  table: RunTable,
  selection: ArrayLike<number>,
  { groups, of }: { groups: readonly unknown[]; of: Int32Array },
  { field, classOf }: OutcomeRule,
): SampleCounts {
  const tasks = table.dictionaries.taskId.values.length;
  const n = groups.map(() => new Int32Array(tasks));
  const c = groups.map(() => new Int32Array(tasks));
  const repoOf = new Int32Array(tasks).fill(-1);
  const codes = table.codes[field];
  const { taskId, repo } = table.text;
  const repoNames = table.dictionaries.repo.values;
  // Each repository's place in name order, so the least of a task's repositories is found without a string compare.
  const rankOf = new Int32Array(repoNames.length);
  nameOrder(repoNames).forEach((code, rank) => (rankOf[code] = rank));
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const g = of[s]!;
    const cls = classOf[codes[i]!]!;
    if (g < 0 || cls === OUTSIDE) continue;
    const t = taskId[i]!;
    n[g]![t]!++;
    if (cls === RESOLVED) c[g]![t]!++;
    const r = repo[i]!;
    if (r >= 0 && (repoOf[t]! < 0 || rankOf[r]! < rankOf[repoOf[t]!]!)) repoOf[t] = r;
  }
  const names = table.dictionaries.taskId.values;
  const order = nameOrder(names);
  return {
    tasks: Array.from(order, (t) => names[t]!),
    repos: Array.from(order, (t) => repoNames[repoOf[t]!] ?? null),
    n: n.map((counts) => Int32Array.from(order, (t) => counts[t]!)),
    c: c.map((counts) => Int32Array.from(order, (t) => counts[t]!)),
  };
}

const orders = new WeakMap<readonly string[], Int32Array>();

/**
 * A dictionary's indexes in name order (compareTaskIds), kept until the dictionary grows. In task id order, the
 * figures that draw over tasks or repositories (the sign flips, the bootstrap clustered by repository) see them in
 * one order whichever order the runs arrived in, as the read API's engine path, which counts them in SQL, does.
 */
function nameOrder(names: readonly string[]): Int32Array {
  let order = orders.get(names);
  if (order?.length !== names.length) {
    order = Int32Array.from(names.keys()).sort((x, y) => compareTaskIds(names[x]!, names[y]!));
    orders.set(names, order);
  }
  return order;
}

/** Task ids in code-unit order (the same in every engine and locale). */
export const compareTaskIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Group g's tasks with a result, in task id order, as the statistics take them. */
export function samplesOfGroup(counts: SampleCounts, g: number): TaskSamples[] {
  const out: TaskSamples[] = [];
  const [n, c] = [counts.n[g]!, counts.c[g]!];
  for (let t = 0; t < n.length; t++)
    if (n[t]! > 0) out.push({ task: counts.tasks[t]!, n: n[t]!, c: c[t]!, repo: counts.repos[t]! });
  return out;
}

/** Everything each group's repeated samples say on the outcome (reliability.ts), the groups in the order given. */
export function reliabilityOfGroups(
  table: RunTable,
  selection: ArrayLike<number>,
  groups: readonly Group[],
  outcome: ResolveOutcome,
  unit: ClusterUnit = 'task',
): Reliability[] {
  return reliabilityOfCounts(sampleCountsOf(table, selection, groups, outcome), unit);
}

/** Each group's reliability from its counts: clustered by task, from its sample kinds alone (reliabilityOfKinds). */
export function reliabilityOfCounts(counts: SampleCounts, unit: ClusterUnit): Reliability[] {
  return counts.n.map((n, g) => {
    if (unit !== 'task') return reliabilityOf(samplesOfGroup(counts, g), unit);
    const c = counts.c[g]!;
    return reliabilityOfKinds(Array.from(n, (samples, t) => ({ n: samples, c: c[t]! })));
  });
}
