// Runs of different harness versions are never pooled: a group is one (model, harness version).
import type { RunTable } from './run-table.ts';

export interface Group {
  model: string;
  harnessVersion: string;
}

export interface Grouping {
  groups: Group[];
  /** Group index of each selected row, in selection order. */
  of: Int32Array;
}

export function groupRuns(table: RunTable, selection: Uint32Array): Grouping {
  const harnessCount = table.dictionaries.harnessVersion.values.length;
  // Group index by model × harness version dictionary indexes (-1: none yet): an array lookup per run.
  const byKey = new Int32Array(table.dictionaries.model.values.length * harnessCount).fill(-1);
  const groups: Group[] = [];
  const of = new Int32Array(selection.length);
  const { model, harnessVersion } = table.text;
  for (let s = 0; s < selection.length; s++) {
    const i = selection[s]!;
    const key = model[i]! * harnessCount + harnessVersion[i]!;
    let g = byKey[key]!;
    if (g < 0) {
      g = byKey[key] = groups.length;
      groups.push({ model: table.string('model', i)!, harnessVersion: table.string('harnessVersion', i)! });
    }
    of[s] = g;
  }
  return { groups, of };
}

/** Rows of each group, in selection order: side by side in one array, each group's a view of its stretch. */
export function rowsByGroup(grouping: Grouping, selection: Uint32Array): Uint32Array[] {
  const { of } = grouping;
  const end = new Uint32Array(grouping.groups.length);
  for (let s = 0; s < of.length; s++) if (of[s]! >= 0) end[of[s]!]!++;
  let from = 0;
  const start = end.map((n) => ((from += n), from - n));
  end.set(start);
  const all = new Uint32Array(from);
  for (let s = 0; s < of.length; s++) {
    const g = of[s]!;
    if (g >= 0) all[end[g]!++] = selection[s]!;
  }
  return Array.from(start, (at, g) => all.subarray(at, end[g]!));
}
