// Model time next to the original fix's PR-open-to-merge time, on the runs resolved on the chosen outcome.
import { outcomeReader, RESOLVED, type ResolveOutcome } from './statistics.ts';
import type { RunTable } from './run-table.ts';
import { gatherRoom, medianOfKnown } from './quantiles.ts';
import type { Group, Grouping } from './run-grouping.ts';
import type { TaskFacts } from './run-selection.ts';

export interface OriginalFixComparison extends Group {
  /** Pairs: runs resolved on the outcome whose task has a known PR-open-to-merge time and whose wall time is known. */
  pairs: number;
  modelHours: number | null;
  originalHours: number | null;
}

export function originalFixComparison(
  table: RunTable,
  grouping: Grouping,
  rowsOfGroups: Uint32Array[],
  facts: TaskFacts,
  outcome: ResolveOutcome = 'judge',
): OriginalFixComparison[] {
  const { wallSeconds } = table.numbers;
  const { taskId } = table.text;
  const classOf = outcomeReader(table, outcome);
  return rowsOfGroups.map((rows, g) => {
    // A group's pairs side by side in the gathering buffer: model hours from the start, the original's from the middle.
    const pairs = gatherRoom(2 * rows.length);
    let n = 0;
    for (let r = 0; r < rows.length; r++) {
      const i = rows[r]!;
      if (classOf(i) !== RESOLVED) continue;
      const wall = wallSeconds[i]!;
      const pr = facts.prToMergeHours[taskId[i]!] ?? NaN;
      if (Number.isNaN(wall) || Number.isNaN(pr)) continue;
      pairs[n] = wall / 3600;
      pairs[rows.length + n++] = pr;
    }
    const modelHours = medianOfKnown(pairs.subarray(0, n));
    const originalHours = medianOfKnown(pairs.subarray(rows.length, rows.length + n));
    return { ...grouping.groups[g]!, pairs: n, modelHours, originalHours };
  });
}
