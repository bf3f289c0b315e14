// Everything the areas render from. What depends only on the data (task facts, task order) is derived once per
// change of runs or issues; the selection and its figures once per filter change; the outcome only orders and
// names them, so switching it reuses the figures already computed (their medians included).
import {
  byRate,
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
import { anyCounted, defaultOutcome, selectByAgreement, type ResolveOutcome } from '../../shared/cockpit/statistics.ts';
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

/** The runs in view and their figures: what a filter change recomputes. */
interface Selected {
  /** Which filters (and data) these are of. */
  key: string;
  /** The runs passing the model, tier, wave and harness filters: the view the default outcome is read from. */
  base: Uint32Array;
  /** `base` narrowed by the verdict, hidden-test and agreement filters. */
  selection: Uint32Array;
  grouping: Grouping;
  /** Rows of each group of `grouping`, in selection order. */
  groupRows: Uint32Array[];
  /** Groups in no particular order. */
  unordered: Figures;
}

export interface Computed extends DataIndex, Omit<Selected, 'unordered'> {
  /** The outcome every "resolved" is counted on: the reader's choice, else the default of the view. */
  outcome: ResolveOutcome;
  /** Whether the reader chose it (the URL says so) rather than the default. */
  outcomeChosen: boolean;
  /** Hidden tests asked for where no run in view has a pass or fail result: nothing to count. */
  noTestResults: boolean;
  /** Groups best first on the outcome. */
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

/**
 * The view for these filters and outcome. `previous` is reused when it was computed for the same data
 * (`dataKey`) and filters: then only the order changes.
 */
export function compute(
  data: DataIndex,
  dataKey: string,
  filters: CockpitFilters,
  chosen: ResolveOutcome | null,
  previous: Computed | null = null,
): Computed {
  const key = `${dataKey}|${JSON.stringify(filters)}`;
  const selected =
    previous && previous.key === key && previous.table === data.table
      ? { ...previous, unordered: previous.figures }
      : select(data, key, filters);
  const outcome = chosen ?? defaultOutcome(data.table, selected.base);
  const figures = { ...selected.unordered, groups: byRate(selected.unordered.groups, outcome) };
  const several = figures.harnessVersions.length > 1;
  return {
    ...data,
    key,
    base: selected.base,
    selection: selected.selection,
    grouping: selected.grouping,
    groupRows: selected.groupRows,
    outcome,
    outcomeChosen: chosen !== null,
    noTestResults: outcome === 'tests' && !anyCounted(data.table, selected.base, 'tests'),
    figures,
    several,
    label: (g) => (several ? `${g.model} · ${g.harnessVersion}` : g.model),
  };
}

function select(data: DataIndex, key: string, filters: CockpitFilters): Selected {
  const base = selectRuns(data.table, filters, data.facts);
  const selection = byResult(data.table, base, filters);
  const grouping = groupRuns(data.table, selection);
  const groupRows = rowsByGroup(grouping, selection);
  return {
    key,
    base,
    selection,
    grouping,
    groupRows,
    unordered: computeFigures(data.table, selection, grouping, groupRows),
  };
}

/**
 * The rows of `rows` whose judge verdict and hidden-test result are among those chosen (none chosen: any),
 * and that agree or disagree as asked.
 */
function byResult(table: RunTable, rows: Uint32Array, filters: CockpitFilters): Uint32Array {
  if (filters.agreement) rows = selectByAgreement(table, rows, filters.agreement);
  if (!filters.verdicts.length && !filters.hiddenTests.length) return rows;
  const verdicts = new Set(filters.verdicts.map((v) => (v === 'unjudged' ? 0 : codeOf('verdict', v))));
  const tests = new Set(filters.hiddenTests.map((t) => (t === 'none' ? 0 : codeOf('hiddenTest', t))));
  return rows.filter(
    (i) =>
      (!verdicts.size || verdicts.has(table.codes.verdict[i]!)) &&
      (!tests.size || tests.has(table.codes.hiddenTest[i]!)),
  );
}
