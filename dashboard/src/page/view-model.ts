// Everything the areas render from. What depends only on the data (task facts, task order) is derived once per
// change of runs or issues; the selection and its figures once per filter change; the outcome ranks and names
// them, so switching it reuses the figures already computed (their medians included) unless a difficulty
// filter, which is read on the outcome, changes the runs in view.
import { selectRuns, taskFacts, type IssueFacts, type TaskFacts } from '#analytics/run-selection.ts';
import { groupRuns, rowsByGroup, type Group, type Grouping } from '#analytics/run-grouping.ts';
import { computeFigures, type Figures, type GroupFigures } from '#analytics/group-figures.ts';
import { taskOrder } from '#analytics/task-order.ts';
import { selectByResult, taskLabels } from '#analytics/result-filters.ts';
import type { RunTable } from '#analytics/run-table.ts';
import {
  anyCounted,
  defaultOutcome,
  rankByRate,
  selectByAgreement,
  selectByDifficulty,
  taskDifficulty,
  type ResolveOutcome,
  type TaskDifficulty,
} from '#analytics/statistics.ts';
import type { IssueRecord } from '#schema/issue.ts';
import type { CockpitFilters } from './url-state.ts';
import type { CampaignDeclaration, CockpitEntry } from '#analytics/contract.ts';

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
  /** `base` narrowed by the verdict, hidden-test, agreement and difficulty filters. */
  selection: Uint32Array;
  grouping: Grouping;
  /** Rows of each group of `grouping`, in selection order. */
  groupRows: Uint32Array[];
  /** Groups in no particular order. */
  unordered: Figures;
}

export interface Computed extends DataIndex, Omit<Selected, 'unordered'> {
  /** Which model, tier, wave and harness filters (and data) `base` is of. */
  baseKey: string;
  /** The runs passing the model, tier, wave and harness filters: the view the default outcome is read from. */
  base: Uint32Array;
  /** The outcome every "resolved" is counted on: the reader's choice, else the default of the view. */
  outcome: ResolveOutcome;
  /** Whether the reader chose it (the URL says so) rather than the default. */
  outcomeChosen: boolean;
  /** Hidden tests asked for where no run in view has a pass or fail result: nothing to count. */
  noTestResults: boolean;
  /** Each task's empirical difficulty among the configurations of `base`, on the outcome. */
  difficulty: TaskDifficulty;
  /** Groups ranked on the outcome: best first, those below minN after them. */
  figures: Figures;
  /** A group's rank, null when its n is below minN or it has no rate. */
  rankOf(g: GroupFigures): number | null;
  /** Below this n on the outcome a group is not ranked (the cockpit's `minN`). */
  minN: number;
  /** The task population the campaign is a sample of, when the cockpit declares it. */
  campaign: CampaignDeclaration | null;
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
  return { table, facts, taskOrder: taskOrder(table, facts), taskLabels: taskLabels(table, issues) };
}

/**
 * The view for these filters and outcome. What `previous` computed for the same data (`dataKey`) and
 * filters is reused: switching the outcome without a difficulty filter only ranks the figures again.
 */
export function compute(
  data: DataIndex,
  dataKey: string,
  filters: CockpitFilters,
  chosen: ResolveOutcome | null,
  { minN, campaign }: Pick<CockpitEntry, 'minN' | 'campaign'>,
  previous: Computed | null = null,
): Computed {
  const same = previous?.table === data.table ? previous : null;
  const baseKey = `${dataKey}|${JSON.stringify([filters.models, filters.tiers, filters.waves, filters.harnessVersions, filters.repos])}`;
  const base = same?.baseKey === baseKey ? same.base : selectRuns(data.table, filters, data.facts);
  const outcome = chosen ?? defaultOutcome(data.table, base);
  const difficulty =
    same?.baseKey === baseKey && same.outcome === outcome ? same.difficulty : taskDifficulty(data.table, base, outcome);
  const key = `${baseKey}|${JSON.stringify(filters)}|${filters.difficulties.length ? outcome : ''}`;
  const selected =
    same?.key === key ? { ...same, unordered: same.figures } : select(data, key, base, filters, difficulty);
  const { ordered, rankOf } = rankByRate(
    selected.unordered.groups,
    (g) => g.outcomes[outcome].rate,
    (g) => g.outcomes[outcome].n,
    minN,
    (a, b) => a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion),
  );
  const figures = { ...selected.unordered, groups: ordered };
  const several = figures.harnessVersions.length > 1;
  return {
    ...data,
    key,
    baseKey,
    base,
    selection: selected.selection,
    grouping: selected.grouping,
    groupRows: selected.groupRows,
    outcome,
    outcomeChosen: chosen !== null,
    noTestResults: outcome === 'tests' && !anyCounted(data.table, base, 'tests'),
    difficulty,
    figures,
    rankOf: (g) => rankOf.get(g) ?? null,
    minN,
    campaign: campaign ?? null,
    several,
    label: (g) => (several ? `${g.model} · ${g.harnessVersion}` : g.model),
  };
}

/** How many tasks the rows touch. */
export const tasksIn = (m: Pick<Computed, 'table'>, rows: Uint32Array): number =>
  new Set(Array.from(rows, (i) => m.table.text.taskId[i])).size;

function select(
  data: DataIndex,
  key: string,
  base: Uint32Array,
  filters: CockpitFilters,
  difficulty: TaskDifficulty,
): Selected {
  const narrowed = filters.difficulties.length
    ? selectByDifficulty(data.table, base, difficulty, filters.difficulties)
    : base;
  const agreeing = filters.agreement ? selectByAgreement(data.table, narrowed, filters.agreement) : narrowed;
  const selection = selectByResult(data.table, agreeing, filters);
  const grouping = groupRuns(data.table, selection);
  const groupRows = rowsByGroup(grouping, selection);
  return {
    key,
    selection,
    grouping,
    groupRows,
    unordered: computeFigures(data.table, selection, grouping, groupRows),
  };
}
