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
  type TaskFacts,
} from '../../shared/cockpit/aggregates.ts';
import { codeOf } from '../../shared/cockpit/columns.ts';
import type { RunTable } from '../../shared/cockpit/run-table.ts';
import type { IssueRecord } from '../../shared/schema/issue.ts';
import { taskLabel } from './format.ts';
import type { CockpitFilters } from './url-state.ts';

export interface DataIndex {
  table: RunTable;
  facts: TaskFacts;
  /** Every task, in matrix order. */
  taskOrder: Int32Array;
  /** A short readable name of each task, by task dictionary index. */
  taskLabels: string[];
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

export function indexData(
  table: RunTable,
  issues: readonly (IssueFacts & Pick<IssueRecord, 'repo' | 'issueNumber'>)[],
): DataIndex {
  const facts = taskFacts(table, issues);
  const issueOf = new Map(issues.map((i) => [i.taskId, i]));
  const taskLabels = table.dictionaries.taskId.values.map((id) => taskLabel(id, issueOf.get(id)));
  return { table, facts, taskOrder: taskOrder(table, facts), taskLabels };
}

export function compute(data: DataIndex, filters: CockpitFilters): Computed {
  const selection = byOutcome(data.table, selectRuns(data.table, filters, data.facts), filters);
  const grouping = groupRuns(data.table, selection);
  const groupRows = rowsByGroup(grouping, selection);
  const figures = computeFigures(data.table, selection, grouping, groupRows);
  const several = figures.harnessVersions.length > 1;
  return {
    ...data,
    selection,
    grouping,
    groupRows,
    figures,
    several,
    label: (g) => (several ? `${g.model} · ${g.harnessVersion}` : g.model),
  };
}

/** The rows of `rows` whose judge verdict and hidden-test result are among those chosen (none chosen: any). */
function byOutcome(table: RunTable, rows: Uint32Array, filters: CockpitFilters): Uint32Array {
  if (!filters.verdicts.length && !filters.hiddenTests.length) return rows;
  const verdicts = new Set(filters.verdicts.map((v) => (v === 'unjudged' ? 0 : codeOf('verdict', v))));
  const tests = new Set(filters.hiddenTests.map((t) => (t === 'none' ? 0 : codeOf('hiddenTest', t))));
  return rows.filter(
    (i) =>
      (!verdicts.size || verdicts.has(table.codes.verdict[i]!)) &&
      (!tests.size || tests.has(table.codes.hiddenTest[i]!)),
  );
}
