// What the reader is looking at, kept in the URL so a view can be linked: area, filters, the outcome that says
// "resolved", search, sort, the open run, how the matrix is coloured and the two groups compared. Filters are shared by the
// Dashboard, Compare and Runs areas. A compared group is two values of one parameter (`a=model&a=harness`):
// model names may contain any separator one could pick.
import { NO_FILTERS, type RunFilters } from '#analytics/run-selection.ts';
import { type HiddenColumn } from '#analytics/rate-figures.ts';
import { type Group } from '#analytics/run-grouping.ts';
import { TIERS, type Tier } from '#analytics/columns.ts';
import {
  DIFFICULTIES,
  isAgreementFilter,
  isResolveOutcome,
  type AgreementFilter,
  type Difficulty,
  type ResolveOutcome,
} from '#analytics/statistics.ts';
import { HIDDEN_TEST_COLUMNS, VERDICT_ORDER, type VerdictKey } from '#analytics/result-filters.ts';

export { HIDDEN_TEST_COLUMNS };

export type Area = 'dashboard' | 'compare' | 'runs' | 'task' | 'hosts';
export const AREAS: Area[] = ['dashboard', 'compare', 'runs', 'task', 'hosts'];

/** The row filters of docs/contract.md §6 plus the judge verdict and the hidden-test result, which the calibration table links to. */
export interface CockpitFilters extends RunFilters {
  verdicts: VerdictKey[];
  hiddenTests: HiddenColumn[];
  /** Only the runs where the judge and the hidden tests disagree (or agree); null: every run. */
  agreement: AgreementFilter | null;
  /** Only the runs of tasks of these empirical difficulties (on the outcome in view); none: every task. */
  difficulties: Difficulty[];
}

export type MatrixColouring = 'verdict' | 'tests';

export interface ViewState {
  cockpit: string | null;
  area: Area;
  filters: CockpitFilters;
  /** `outcome=tests|judge`; null: the view's default. */
  outcome: ResolveOutcome | null;
  search: string;
  sort: { column: string; descending: boolean };
  run: string | null;
  /** The task of the Task area (`task=`). */
  task: string | null;
  /** null: coloured as the outcome in view counts. */
  matrix: MatrixColouring | null;
  /** The groups of the Compare view; null: not chosen, the view picks two. */
  compare: { a: Group | null; b: Group | null };
  /** Compare shows every pair of the configurations in view (`pairs=all`). */
  allPairs: boolean;
}

export const DEFAULT_SORT = { column: 'finishedAt', descending: true };

const among = <T extends string>(values: string[], allowed: readonly T[]): T[] =>
  values.filter((v): v is T => (allowed as readonly string[]).includes(v));

export function readState(search = location.search): ViewState {
  const p = new URLSearchParams(search);
  const area = p.get('view');
  const sort = p.get('sort');
  const outcome = p.get('outcome');
  const matrix = p.get('matrix');
  const agreement = p.get('agreement');
  return {
    cockpit: p.get('cockpit'),
    area: AREAS.includes(area as Area) ? (area as Area) : 'dashboard',
    filters: {
      models: p.getAll('model'),
      tiers: among<Tier>(p.getAll('tier'), TIERS),
      waves: p.getAll('wave').map(Number).filter(Number.isInteger),
      harnessVersions: p.getAll('harness'),
      repos: p.getAll('repo'),
      verdicts: among(p.getAll('verdict'), VERDICT_ORDER),
      hiddenTests: among(p.getAll('tests'), HIDDEN_TEST_COLUMNS),
      agreement: agreement !== null && isAgreementFilter(agreement) ? agreement : null,
      difficulties: among(p.getAll('difficulty'), DIFFICULTIES),
    },
    outcome: outcome !== null && isResolveOutcome(outcome) ? outcome : null,
    search: p.get('q') ?? '',
    sort: sort ? { column: sort.replace(/^-/, ''), descending: sort.startsWith('-') } : DEFAULT_SORT,
    run: p.get('run'),
    task: p.get('task'),
    matrix: matrix === 'tests' || matrix === 'verdict' ? matrix : null,
    compare: { a: groupOf(p.getAll('a')), b: groupOf(p.getAll('b')) },
    allPairs: p.get('pairs') === 'all',
  };
}

const groupOf = ([model, harnessVersion, ...rest]: string[]): Group | null =>
  model && harnessVersion && !rest.length ? { model, harnessVersion } : null;

export function toSearch(state: ViewState): string {
  const p = new URLSearchParams();
  if (state.cockpit) p.set('cockpit', state.cockpit);
  if (state.area !== 'dashboard') p.set('view', state.area);
  for (const m of state.filters.models) p.append('model', m);
  for (const t of state.filters.tiers) p.append('tier', t);
  for (const w of state.filters.waves) p.append('wave', String(w));
  for (const h of state.filters.harnessVersions) p.append('harness', h);
  for (const r of state.filters.repos) p.append('repo', r);
  for (const v of state.filters.verdicts) p.append('verdict', v);
  for (const t of state.filters.hiddenTests) p.append('tests', t);
  if (state.filters.agreement) p.set('agreement', state.filters.agreement);
  for (const d of state.filters.difficulties) p.append('difficulty', d);
  if (state.outcome) p.set('outcome', state.outcome);
  if (state.search) p.set('q', state.search);
  if (state.sort.column !== DEFAULT_SORT.column || state.sort.descending !== DEFAULT_SORT.descending) {
    p.set('sort', `${state.sort.descending ? '-' : ''}${state.sort.column}`);
  }
  if (state.run) p.set('run', state.run);
  if (state.task) p.set('task', state.task);
  if (state.matrix) p.set('matrix', state.matrix);
  for (const side of ['a', 'b'] as const) {
    const g = state.compare[side];
    if (!g) continue;
    p.append(side, g.model);
    p.append(side, g.harnessVersion);
  }
  if (state.allPairs) p.set('pairs', 'all');
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * Writes the state to the address bar. A new history entry only when the area, the open run, the task or
 * Compare's all pairs changes,
 * and not even then when `replace` says the reader is walking through runs: Back leaves the walk, it does
 * not step back through every row passed on the way.
 */
export function writeState(state: ViewState, previous: ViewState, replace = false): void {
  const url = location.pathname + toSearch(state);
  if (url === location.pathname + location.search) return;
  const moved =
    state.area !== previous.area ||
    state.run !== previous.run ||
    state.task !== previous.task ||
    state.allPairs !== previous.allPairs;
  if (!replace && moved) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

export const filterCount = (f: CockpitFilters) =>
  f.models.length +
  f.tiers.length +
  f.waves.length +
  f.harnessVersions.length +
  f.repos.length +
  f.verdicts.length +
  f.hiddenTests.length +
  (f.agreement ? 1 : 0) +
  f.difficulties.length;
export const noFilters = (): CockpitFilters => ({
  ...structuredClone(NO_FILTERS),
  verdicts: [],
  hiddenTests: [],
  agreement: null,
  difficulties: [],
});
