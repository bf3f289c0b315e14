// Everything the areas render from, computed once per change of data or filters.
import { computeFigures, groupRuns, selectRuns, taskFacts, type Figures, type Group, type Grouping, type IssueFacts, type RunFilters, type TaskFacts } from '../../shared/read/aggregates.ts';
import type { RunTable } from '../../shared/read/run-table.ts';

export interface Computed {
  table: RunTable;
  facts: TaskFacts;
  selection: Uint32Array;
  grouping: Grouping;
  figures: Figures;
  /** Several harness versions in view: groups are then named with theirs. */
  several: boolean;
  /** The group's name on the page: the model, and its harness version when several are in view. */
  label(g: Group): string;
}

export function compute(table: RunTable, issues: readonly IssueFacts[], filters: RunFilters): Computed {
  const facts = taskFacts(table, issues);
  const selection = selectRuns(table, filters, facts);
  const grouping = groupRuns(table, selection);
  const figures = computeFigures(table, selection, grouping);
  const several = figures.harnessVersions.length > 1;
  return { table, facts, selection, grouping, figures, several, label: (g) => (several ? `${g.model} · ${g.harnessVersion}` : g.model) };
}
