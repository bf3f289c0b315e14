// `/stats`, `/compare`, `/pairs` and the exports (docs/contract.md §6, §10): the runs the page's filters select, counted on the
// outcome asked for (else the view's default), with every rule from the one statistics module. A parameter
// that names nothing the API offers is refused with 400 and a sentence listing what it takes.
import { groupRuns } from '#analytics/run-grouping.ts';
import { selectRuns, taskFacts, type RunFilters } from '#analytics/run-selection.ts';
import { allPairs, type AllPairs } from '#analytics/all-pairs.ts';
import { TIERS, type EngineReading, type Tier } from '#analytics/columns.ts';
import { compareGroups } from '#analytics/compare-groups.ts';
import {
  HIDDEN_TEST_COLUMNS,
  isHiddenColumn,
  isVerdictKey,
  resultsNamed,
  searchRows,
  selectByResult,
  taskLabel,
  taskLabels,
  VERDICT_ORDER,
  type VerdictKey,
} from '#analytics/result-filters.ts';
import type { HiddenColumn } from '#analytics/rate-figures.ts';
import {
  GRID_FIELDS,
  GRID_SORT_KEYS,
  isGridSortKey,
  type CompareBody,
  type GridPage,
  type GridRow,
  type PairsBody,
  type StatsBody,
} from '#analytics/contract.ts';
import type { RunTable } from '#analytics/run-table.ts';
import {
  AGREEMENTS,
  DEFAULT_MIN_N,
  defaultOutcome,
  DIFFICULTIES,
  isAgreementFilter,
  isDifficulty,
  isResolveOutcome,
  RESOLVE_OUTCOMES,
  selectByAgreement,
  selectByDifficulty,
  taskDifficulty,
  type AgreementFilter,
  type Difficulty,
  type ResolveOutcome,
} from '#analytics/statistics.ts';
import { CLUSTER_UNITS, isClusterUnit, type ClusterUnit } from '#analytics/reliability.ts';
import { jsonError, type HttpAnswer } from '../http.ts';
import type { AnalyticsEngine } from '../ports.ts';
import { engineOutcome, enginePairs, engineStatistics } from './engine-figures.ts';
import { gridPageSql, taskIdsSql, type EngineExportView, type EngineView } from './engine-queries.ts';
import { groupStatistics } from './group-stats.ts';
import { readManifest } from './snapshot-store.ts';
import type { ReadDeps } from './read-deps.ts';
import { currentIssues, currentRunTable, currentTable } from './read-model.ts';

type FilterKey = 'model' | 'tier' | 'wave' | 'harnessVersion' | 'repo';
const FILTERS = ['model', 'tier', 'wave', 'harnessVersion', 'repo'] as const satisfies readonly FilterKey[];

/**
 * The page's filters from repeated parameters. A value that can name nothing (a tier that does not exist,
 * a wave that is not a number) still filters: it matches no run, so the answer is empty, never everything.
 */
function filtersOf(
  query: URLSearchParams,
  keys: readonly FilterKey[],
): { filters: RunFilters; matchesNothing: boolean } {
  const values = (key: FilterKey) => (keys.includes(key) ? query.getAll(key) : []);
  const tiers = values('tier');
  const waves = values('wave');
  const knownTiers = tiers.filter((t): t is Tier => (TIERS as readonly string[]).includes(t));
  const knownWaves = waves.filter((w) => /^\d+$/.test(w)).map(Number);
  return {
    filters: {
      models: values('model'),
      tiers: knownTiers,
      waves: knownWaves,
      harnessVersions: values('harnessVersion'),
      repos: values('repo'),
    },
    matchesNothing: (tiers.length > 0 && !knownTiers.length) || (waves.length > 0 && !knownWaves.length),
  };
}

export const isAnswer = (x: unknown): x is HttpAnswer => typeof x === 'object' && x !== null && 'status' in x;

/** Every value of `name` among `allowed` (none: []), or a 400 naming the allowed values and the wrong ones. */
function someOf<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
  isAllowed: (v: string) => v is T,
  repeatable = true,
): T[] | HttpAnswer {
  const values = query.getAll(name);
  const wrong = !repeatable && values.length > 1 ? values : values.filter((v) => !isAllowed(v));
  if (!wrong.length) return values as T[];
  const several = repeatable ? ' (repeat it for several)' : '';
  const got = wrong.map((v) => `"${v}"`).join(', ');
  return jsonError(400, `bad-${name}`, `${name} must be one of ${allowed.join(', ')}${several}; got ${got}.`);
}

/** One value of `name` among `allowed`, or null when absent; anything else is a 400 naming the allowed values. */
function oneOf<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
  isAllowed: (v: string) => v is T,
): T | null | HttpAnswer {
  const values = someOf(query, name, allowed, isAllowed, false);
  return isAnswer(values) ? values : (values[0] ?? null);
}

/** What a figures route was asked beyond the filters (null, []: not asked), or the 400 that refuses the query. */
interface ViewQuery {
  outcome: ResolveOutcome | null;
  agreement: AgreementFilter | null;
  difficulties: Difficulty[];
  /** What clustered figures cluster by (an export takes no cluster: 'task'). */
  cluster: ClusterUnit;
}

function viewQuery(query: URLSearchParams, takesAgreement: boolean, takesCluster = true): ViewQuery | HttpAnswer {
  const outcome = oneOf(query, 'outcome', RESOLVE_OUTCOMES, isResolveOutcome);
  if (isAnswer(outcome)) return outcome;
  const agreement = takesAgreement ? oneOf(query, 'agreement', AGREEMENTS, isAgreementFilter) : null;
  if (isAnswer(agreement)) return agreement;
  const difficulties = someOf(query, 'difficulty', DIFFICULTIES, isDifficulty);
  if (isAnswer(difficulties)) return difficulties;
  const cluster = takesCluster ? oneOf(query, 'cluster', CLUSTER_UNITS, isClusterUnit) : null;
  if (isAnswer(cluster)) return cluster;
  return { outcome, agreement, difficulties, cluster: cluster ?? 'task' };
}

/** `minN`: a whole number from 1 (absent: the default), or a 400. */
function minNOf(query: URLSearchParams): number | HttpAnswer {
  const raw = query.get('minN');
  if (raw === null) return DEFAULT_MIN_N;
  if (/^[1-9]\d{0,8}$/.test(raw)) return Number(raw);
  return jsonError(400, 'bad-min-n', `minN must be a whole number of runs, 1 or more; got "${raw}".`);
}

/**
 * The runs as `held` has them, the rows passing the filters (tier and wave fall back to the task's issue
 * record), and the outcome: the one asked for, else the default of the rows the filters select. The
 * difficulty filter (each task's difficulty among those rows' configurations, on the outcome) and the
 * agreement filter narrow the rows after that, as the cockpit's do.
 */
async function selected<Held extends { table: RunTable }>(
  deps: ReadDeps,
  space: string,
  query: URLSearchParams,
  keys: readonly FilterKey[],
  asked: ViewQuery,
  held: Promise<Held>,
) {
  const { filters, matchesNothing } = filtersOf(query, keys);
  // Issue records are read only when a tier or wave filter needs them (a 1M-run space has 20k of them).
  const needsFacts = !matchesNothing && (filters.tiers.length > 0 || filters.waves.length > 0);
  const [current, issues] = await Promise.all([held, needsFacts ? currentIssues(deps, space) : null]);
  const selection = matchesNothing
    ? new Uint32Array(0)
    : selectRuns(current.table, filters, issues && taskFacts(current.table, issues));
  const outcome = asked.outcome ?? defaultOutcome(current.table, selection);
  let narrowed = selection;
  if (asked.difficulties.length)
    narrowed = selectByDifficulty(
      current.table,
      narrowed,
      taskDifficulty(current.table, selection, outcome),
      asked.difficulties,
    );
  if (asked.agreement) narrowed = selectByAgreement(current.table, narrowed, asked.agreement);
  return { ...current, selection: narrowed, outcome };
}

/**
 * The engine, when it answers this space: one is wired and the persisted snapshot counts more runs than
 * `engine.aboveRuns`. Its answers are as of that snapshot, whose compaction wrote the dataset's last part.
 */
export async function engineFor(
  deps: ReadDeps,
  space: string,
): Promise<{ engine: AnalyticsEngine; asOf: string; runs: number } | null> {
  if (!deps.engine) return null;
  const manifest = await readManifest(deps.objects, space);
  return manifest && manifest.count > deps.config.engine.aboveRuns
    ? { engine: deps.engine, asOf: manifest.asOf, runs: manifest.count }
    : null;
}

/**
 * Whether the cockpit reads this space through the engine rather than holding its runs: the engine answers it
 * and its snapshot counts more runs than `cockpit.browserRuns`. Null: the page downloads the columns.
 */
export async function pageReadsEngine(
  deps: ReadDeps,
  space: string,
): Promise<{ asOf: string; reading: EngineReading } | null> {
  const engine = await engineFor(deps, space);
  const browserRuns = deps.config.cockpit.browserRuns;
  return engine && engine.runs > browserRuns
    ? { asOf: engine.asOf, reading: { runs: engine.runs, browserRuns } }
    : null;
}

/** What the engine selects for the query: the filters, with the tasks whose issue record has a chosen tier or wave. */
async function engineView(
  deps: ReadDeps,
  space: string,
  query: URLSearchParams,
  keys: readonly FilterKey[],
  asked: ViewQuery,
): Promise<EngineView> {
  const { filters, matchesNothing } = filtersOf(query, keys);
  const needsFacts = !matchesNothing && (filters.tiers.length > 0 || filters.waves.length > 0);
  const issues = needsFacts ? await currentIssues(deps, space) : [];
  return {
    space,
    filters,
    matchesNothing,
    tierTasks: issues.filter((i) => i.tier !== null && filters.tiers.includes(i.tier)).map((i) => i.taskId),
    waveTasks: issues.filter((i) => i.wave !== null && filters.waves.includes(i.wave)).map((i) => i.taskId),
    difficulties: asked.difficulties,
    agreement: asked.agreement,
  };
}

/** `selected` over the run table alone, which the figures routes read (from the persisted columns when cold). */
const selectedRuns = (
  deps: ReadDeps,
  space: string,
  query: URLSearchParams,
  keys: readonly FilterKey[],
  asked: ViewQuery,
) => selected(deps, space, query, keys, asked, currentRunTable(deps, space));

export async function stats(deps: ReadDeps, space: string, query: URLSearchParams): Promise<HttpAnswer> {
  const groupBy = query.get('groupBy');
  if (groupBy !== null && groupBy !== 'model,harnessVersion')
    return jsonError(400, 'bad-group-by', 'groupBy can only be "model,harnessVersion" for now.');
  const asked = viewQuery(query, true);
  if (isAnswer(asked)) return asked;
  const minN = minNOf(query);
  if (isAnswer(minN)) return minN;
  const engine = await engineFor(deps, space);
  if (engine) {
    const view = await engineView(deps, space, query, FILTERS, asked);
    const outcome = await engineOutcome(engine.engine, view, asked.outcome);
    const groups = await engineStatistics(engine.engine, view, outcome, deps.config.prices, minN, asked.cluster);
    return { status: 200, body: { outcome, minN, groups, asOf: engine.asOf } satisfies StatsBody };
  }
  const { table, selection, asOf, outcome } = await selectedRuns(deps, space, query, FILTERS, asked);
  const groups = groupStatistics(table, selection, deps.config.prices, outcome, minN, asked.cluster);
  return { status: 200, body: { outcome, minN, groups, asOf } satisfies StatsBody };
}

export async function compare(deps: ReadDeps, space: string, query: URLSearchParams): Promise<HttpAnswer> {
  const names = ['aModel', 'aHarness', 'bModel', 'bHarness'] as const;
  const missing = names.filter((n) => !query.get(n));
  if (missing.length)
    return jsonError(
      400,
      'missing-group',
      `compare needs aModel, aHarness, bModel and bHarness; missing: ${missing.join(', ')}.`,
    );
  const asked = viewQuery(query, false);
  if (isAnswer(asked)) return asked;
  const [aModel, aHarness, bModel, bHarness] = names.map((n) => query.get(n)!);
  const { table, selection, asOf, outcome } = await selectedRuns(deps, space, query, ['tier', 'wave'], asked);
  const body = compareGroups(
    table,
    selection,
    { model: aModel!, harnessVersion: aHarness! },
    { model: bModel!, harnessVersion: bHarness! },
    outcome,
    asked.cluster,
  );
  return { status: 200, body: { ...body, asOf } satisfies CompareBody };
}

export async function pairs(deps: ReadDeps, space: string, query: URLSearchParams): Promise<HttpAnswer> {
  const asked = viewQuery(query, false);
  if (isAnswer(asked)) return asked;
  const engine = await engineFor(deps, space);
  let found: AllPairs;
  let asOf: string;
  if (engine) {
    const view = await engineView(deps, space, query, FILTERS, asked);
    const outcome = await engineOutcome(engine.engine, view, asked.outcome);
    [found, asOf] = [await enginePairs(engine.engine, view, outcome, asked.cluster), engine.asOf];
  } else {
    const current = await selectedRuns(deps, space, query, FILTERS, asked);
    const { table, selection, outcome } = current;
    [found, asOf] = [
      allPairs(table, selection, groupRuns(table, selection).groups, outcome, asked.cluster),
      current.asOf,
    ];
  }
  if (found.refused !== null) return jsonError(400, 'too-many-configurations', found.refused);
  const { refused: _, ...body } = found;
  return { status: 200, body: { ...body, asOf } satisfies PairsBody };
}

/** Every parameter an export takes: the page's filters, its outcome, and the grid's narrowing. */
const EXPORT_PARAMETERS = new Set([...FILTERS, 'outcome', 'agreement', 'difficulty', 'verdict', 'hiddenTest', 'q']);

/** What an export was asked beyond the filters: the view, the verdicts and test results chosen, the search. */
export interface ExportQuery {
  asked: ViewQuery;
  verdicts: VerdictKey[];
  hiddenTests: HiddenColumn[];
  search: string;
}

/** The export's parameters, or the 400 naming one no export takes, so a misspelt filter never exports everything. */
export function exportQuery(query: URLSearchParams): ExportQuery | HttpAnswer {
  const unknown = [...new Set(query.keys())].filter((k) => !EXPORT_PARAMETERS.has(k));
  if (unknown.length)
    return jsonError(
      400,
      'bad-export-parameter',
      `An export takes ${[...EXPORT_PARAMETERS].join(', ')}; it does not take ${unknown.map((k) => `"${k}"`).join(', ')}.`,
    );
  const asked = viewQuery(query, true, false);
  if (isAnswer(asked)) return asked;
  const verdicts = someOf(query, 'verdict', VERDICT_ORDER, isVerdictKey);
  if (isAnswer(verdicts)) return verdicts;
  const hiddenTests = someOf(query, 'hiddenTest', HIDDEN_TEST_COLUMNS, isHiddenColumn);
  if (isAnswer(hiddenTests)) return hiddenTests;
  return { asked, verdicts, hiddenTests, search: query.get('q') ?? '' };
}

/**
 * The runs the Runs grid shows for the same URL: the filters, outcome, agreement and difficulty of the figures,
 * then the verdicts and hidden-test results chosen and the search words.
 */
export async function exportedRuns(deps: ReadDeps, space: string, query: URLSearchParams, asked: ExportQuery) {
  const [current, issues] = await Promise.all([
    selected(deps, space, query, FILTERS, asked.asked, currentTable(deps, space)),
    asked.search.trim() ? currentIssues(deps, space) : [],
  ]);
  const chosen = selectByResult(current.table, current.selection, asked);
  const rows = searchRows(current.table, chosen, asked.search, taskLabels(current.table, issues));
  return { ...current, selection: rows };
}

/**
 * The export's selection for the engine, when it answers this space (engineFor): the figures' view, the results
 * chosen, and each search word with the verdicts, test results and task labels that contain it.
 */
export async function engineExportView(deps: ReadDeps, space: string, query: URLSearchParams, asked: ExportQuery) {
  const engine = await engineFor(deps, space);
  if (!engine) return null;
  const view = await engineView(deps, space, query, FILTERS, asked.asked);
  const outcome = await engineOutcome(engine.engine, view, asked.asked.outcome);
  const words = asked.search.toLowerCase().split(/\s+/).filter(Boolean);
  const labels = words.length ? await taskLabelsOf(deps, space, engine.engine, view) : [];
  const exportView: EngineExportView = {
    ...view,
    verdicts: asked.verdicts,
    hiddenTests: asked.hiddenTests,
    search: words.map((word) => ({
      word,
      ...resultsNamed(word),
      labelledTasks: labels
        .filter((t) => t.label.includes(word) && !t.id.toLowerCase().includes(word))
        .map((t) => t.id),
    })),
  };
  return { ...engine, view: exportView, outcome };
}

/** The label of each task in view, lower case, as the grid searches it. */
async function taskLabelsOf(deps: ReadDeps, space: string, engine: AnalyticsEngine, view: EngineView) {
  const [rows, issues] = await Promise.all([engine.rows(taskIdsSql(engine, view)), currentIssues(deps, space)]);
  const issueOf = new Map(issues.map((i) => [i.taskId, i]));
  return rows.map((row) => {
    const id = String(row['task_id']);
    return { id, label: taskLabel(id, issueOf.get(id)).toLowerCase() };
  });
}

export const DEFAULT_GRID_PAGE = 100;
export const MAX_GRID_PAGE = 500;

/** A grid cursor: where the next page starts, for the sort it was made for (opaque to the page). */
const gridCursor = (offset: number, sort: string) =>
  Buffer.from(JSON.stringify({ offset, sort })).toString('base64url');

function offsetOf(cursor: string | null, sort: string): number | null {
  if (cursor === null) return 0;
  try {
    const read = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset?: unknown; sort?: unknown };
    return Number.isInteger(read.offset) && (read.offset as number) >= 0 && read.sort === sort
      ? (read.offset as number)
      : null;
  } catch {
    return null;
  }
}

/**
 * `GET …/grid`: one page of the Runs grid of a space the engine answers, under the export's selection, sorted by
 * one of the grid's columns. A space the engine does not answer is held by the cockpit, which sorts it itself.
 */
export async function grid(deps: ReadDeps, space: string, query: URLSearchParams): Promise<HttpAnswer> {
  const sort = query.get('sort') ?? '-finishedAt';
  const column = sort.replace(/^-/, '');
  if (!isGridSortKey(column))
    return jsonError(
      400,
      'bad-sort',
      `sort must be one of ${GRID_SORT_KEYS.join(', ')}, with - for descending; got "${sort}".`,
    );
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? DEFAULT_GRID_PAGE : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GRID_PAGE)
    return jsonError(400, 'bad-limit', `limit must be a whole number from 1 to ${MAX_GRID_PAGE}.`);
  const offset = offsetOf(query.get('cursor'), sort);
  if (offset === null)
    return jsonError(
      400,
      'bad-cursor',
      'cursor is not one this route gave for this sort; ask for the first page again.',
    );
  const selection = new URLSearchParams([...query].filter(([key]) => !['sort', 'limit', 'cursor'].includes(key)));
  const asked = exportQuery(selection);
  if (isAnswer(asked)) return asked;
  const found = await engineExportView(deps, space, selection, asked);
  if (!found)
    return jsonError(
      409,
      'grid-in-browser',
      `The engine does not answer space "${space}": the cockpit holds its runs and sorts them itself.`,
    );
  const rows = await found.engine.rows(
    gridPageSql(found.engine, found.view, found.outcome, { column, descending: sort.startsWith('-') }, offset, limit),
  );
  const total = rows.length ? Number(rows[0]!['total_rows']) : 0;
  const runs = rows.map(
    (row) =>
      Object.fromEntries(
        GRID_FIELDS.map((field) => [field, (row[field.toLowerCase()] ?? null) as string | number | null]),
      ) as GridRow,
  );
  const next = offset + runs.length;
  return {
    status: 200,
    body: {
      runs,
      total,
      cursor: runs.length === limit && next < total ? gridCursor(next, sort) : null,
      outcome: found.outcome,
      asOf: found.asOf,
    } satisfies GridPage,
  };
}
