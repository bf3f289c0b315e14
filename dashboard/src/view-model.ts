// Everything the areas render from. What depends only on the data (task facts, task order) is derived
// once per change of runs or issues; what depends on the filters, once per filter change.
import {
  computeFigures,
  groupRuns,
  rowsByGroup,
  selectRuns,
  taskFacts,
  taskOrder,
  type Figures,
  type Group,
  type Grouping,
  type IssueFacts,
  type RunFilters,
  type TaskFacts,
} from '../../shared/read/aggregates.ts';
import type { RunTable } from '../../shared/read/run-table.ts';

export interface DataIndex {
  table: RunTable;
  facts: TaskFacts;
  /** Every task, in matrix order. */
  taskOrder: Int32Array;
}

export interface Computed extends DataIndex {
  selection: Uint32Array;
  grouping: Grouping;
  /** Rows of each group of `grouping`, in selection order. */
  groupRows: Uint32Array[];
  figures: Figures;
  /** Several harness versions in view: groups are then named with theirs. */
  several: boolean;
  /** The group's name on the page: the model, and its harness version when several are in view. */
  label(g: Group): string;
}

export function indexData(table: RunTable, issues: readonly IssueFacts[]): DataIndex {
  const facts = taskFacts(table, issues);
  return { table, facts, taskOrder: taskOrder(table, facts) };
}

export function compute(data: DataIndex, filters: RunFilters): Computed {
  const selection = selectRuns(data.table, filters, data.facts);
  const grouping = groupRuns(data.table, selection);
  const groupRows = rowsByGroup(grouping, selection);
  const figures = computeFigures(data.table, selection, grouping, groupRows);
  const several = figures.harnessVersions.length > 1;
  return { ...data, selection, grouping, groupRows, figures, several, label: (g) => (several ? `${g.model} · ${g.harnessVersion}` : g.model) };
}
