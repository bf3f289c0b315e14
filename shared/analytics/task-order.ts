// The issue axis of the model × issue matrix.
import type { RunTable } from './run-table.ts';
import type { TaskFacts } from './run-selection.ts';

/**
 * Task order for the model × issue matrix: tasks with an issue record in published order (wave, then
 * order), then tasks without one by id. Dictionary indexes of every task of the table; it changes only
 * with the data, so a filter change just leaves out the tasks not in view.
 */
export function taskOrder(table: RunTable, facts: TaskFacts | null): Int32Array {
  const names = table.dictionaries.taskId.values;
  const order = (t: number) => facts?.order[t] ?? NaN;
  const wave = (t: number) => {
    const w = facts?.wave[t] ?? NaN;
    return Number.isNaN(w) ? Infinity : w;
  };
  return Int32Array.from(names.keys()).sort((a, b) => {
    const hasA = !Number.isNaN(order(a));
    const hasB = !Number.isNaN(order(b));
    if (hasA !== hasB) return hasA ? -1 : 1;
    if (hasA) return wave(a) - wave(b) || order(a) - order(b);
    return names[a]!.localeCompare(names[b]!);
  });
}

/** The tasks of `order` that have a run in the selection. */
export function tasksInView(table: RunTable, selection: Uint32Array, order: Int32Array): Int32Array {
  const present = new Uint8Array(table.dictionaries.taskId.values.length);
  const taskOf = table.text.taskId;
  for (let s = 0; s < selection.length; s++) present[taskOf[selection[s]!]!] = 1;
  return order.filter((t) => present[t] === 1);
}
