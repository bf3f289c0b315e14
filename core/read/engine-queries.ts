// The SQL every engine runs over the run dataset (run-dataset.ts): DuckDB in local mode, Athena in AWS, the same
// text for both (count_if, row_number, no engine's own dialect), so the two paths cannot count differently. Each
// query keeps each run as its last-written part has it, as the table keeps its row, and selects and counts as
// the in-memory path does (shared/analytics: run-selection, outcome, difficulty, agreement, run-counts): the
// page's filters (tier and wave falling back to the task's issue record), the outcome (tests: pass of pass or
// fail; judge: resolved of resolved, partial, wrong and no_change), then the difficulty and agreement filters.
// The engine answers counts per configuration, per configuration and sample kind (how many tasks had n results
// and c resolved), and per configuration and task where a figure pairs or clusters tasks; the figures are then
// worked out by the same functions as the in-memory path's (group-stats.ts, reliability.ts, all-pairs.ts).
// Answer columns are lower-case snake_case, as Athena names them whatever the query's case.
import { BAND_TOLERANCE, type AgreementFilter, type Difficulty, type ResolveOutcome } from '#analytics/statistics.ts';
import { HIDDEN_TEST_STATUSES, METRICS_SOURCES, OUTCOMES, VERDICTS } from '#analytics/columns.ts';
import { GRID_FIELDS, type GridSortKey } from '#analytics/contract.ts';
import { NO_FILTERS, type RunFilters } from '#analytics/run-selection.ts';
import type { ModelPrice } from '#schema/config.ts';
import { exportTypeOf, type ExportField, type ExportType } from '#schema/export-fields.ts';
import type { HiddenColumn } from '#analytics/rate-figures.ts';
import type { ClusterUnit } from '#analytics/reliability.ts';
import type { VerdictKey } from '#analytics/result-filters.ts';
import type { AnalyticsEngine } from '../ports.ts';
import { RUN_PART_FIELDS } from './run-dataset.ts';

/** What the engine selects: a space's runs, the page's filters, and the narrowing after the outcome. */
export interface EngineView {
  space: string;
  filters: RunFilters;
  /** The tasks whose issue record has a chosen tier or wave: a run lacking its own takes its task's. */
  tierTasks: readonly string[];
  waveTasks: readonly string[];
  /** A filter value that can name nothing (a tier that does not exist): no run passes. */
  matchesNothing: boolean;
  difficulties: readonly Difficulty[];
  agreement: AgreementFilter | null;
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const list = (values: readonly (string | number)[]) =>
  values.map((v) => (typeof v === 'number' ? String(v) : literal(v))).join(', ');
const oneOf = (column: string, values: readonly (string | number)[]) => `${column} IN (${list(values)})`;

const COUNTED_VERDICTS = ['resolved', 'partial', 'wrong', 'no_change'];

/** A run's class on each outcome, as SQL conditions: it has a result (counted), and that result resolved it. */
export const OUTCOME_SQL: Record<ResolveOutcome, { counted: string; resolved: string }> = {
  tests: { counted: oneOf('hiddenTestStatus', ['pass', 'fail']), resolved: `hiddenTestStatus = 'pass'` },
  judge: { counted: oneOf('judgeVerdict', COUNTED_VERDICTS), resolved: `judgeVerdict = 'resolved'` },
};

/**
 * Each run of the space once, as its last-written part has it (run-dataset.ts): the newest sealed rebuild's rows,
 * less the runs written again after it began, and of those the last copy (a window over the deltas written since
 * the rebuild, a day's changes at most, not over every copy). Rows older than that rebuild are superseded, whether
 * or not the compactor has deleted their parts yet, and a rebuild not yet sealed is read by none: the deltas
 * since the sealed one hold every change it would bring but a late-stamped row, and its rows, hours of them while
 * a big space's rebuild spreads over the compactor's runs, would all enter the window. With no sealed rebuild
 * (parts written before rebuilds were sealed), every delta is newer than none and the window covers them all.
 */
export function latestRunsSql(engine: AnalyticsEngine, space: string): string {
  const inSpace = `${engine.runDataset} WHERE space = ${literal(encodeURIComponent(space))}`;
  const fields = RUN_PART_FIELDS.join(', ');
  const rebuilt = `(SELECT coalesce(max(writtenAt), TIMESTAMP '1970-01-01 00:00:00') FROM ${inSpace} AND partKind = 'sealed')`;
  const delta = `(partKind IS NULL OR partKind = 'delta')`;
  const newer = `SELECT ${fields} FROM ${inSpace} AND id IS NOT NULL AND ${delta} AND writtenAt > ${rebuilt}`;
  return `SELECT ${fields} FROM (
     SELECT *, row_number() OVER (PARTITION BY id ORDER BY writtenAt DESC) AS landing FROM (${newer}) AS newer
   ) AS changed WHERE landing = 1
   UNION ALL
   SELECT ${fields} FROM ${inSpace} AND partKind = 'rebuild' AND writtenAt = ${rebuilt}
     AND id NOT IN (SELECT id FROM (${newer}) AS newer)`;
}

/** The runs the page's filters select (before the outcome is known). */
export function filteredSql(engine: AnalyticsEngine, view: EngineView): string {
  const { models, harnessVersions, repos, tiers, waves } = view.filters;
  const where: string[] = [];
  if (view.matchesNothing) where.push('1 = 0');
  if (models.length) where.push(oneOf('model', models));
  if (harnessVersions.length) where.push(oneOf('harnessVersion', harnessVersions));
  if (repos.length) where.push(oneOf('repo', repos));
  const orTask = (column: string, tasks: readonly string[]) =>
    tasks.length ? ` OR (${column} IS NULL AND ${oneOf('taskId', tasks)})` : '';
  if (tiers.length) where.push(`(${oneOf('tier', tiers)}${orTask('tier', view.tierTasks)})`);
  if (waves.length) where.push(`(${oneOf('wave', waves)}${orTask('wave', view.waveTasks)})`);
  return `SELECT * FROM (${latestRunsSql(engine, view.space)}) AS latest${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

/**
 * Whether any selected run has a pass or fail hidden test (the default outcome is then `tests`): 1 or 0. The
 * engine stops at the first such run instead of counting them all.
 */
export const anyTestResultSql = (engine: AnalyticsEngine, view: EngineView): string =>
  `SELECT count(*) AS tested FROM (
     SELECT 1 AS found FROM (${filteredSql(engine, view)}) AS filtered WHERE ${OUTCOME_SQL.tests.counted} LIMIT 1
   ) AS first`;

const agreementSql = (which: AgreementFilter) =>
  `(${OUTCOME_SQL.judge.counted} AND ${OUTCOME_SQL.tests.counted} AND ` +
  `(${OUTCOME_SQL.judge.resolved}) ${which === 'agree' ? '=' : '<>'} (${OUTCOME_SQL.tests.resolved}))`;

/** The runs in view on `outcome`: the filtered runs narrowed by their task's difficulty and by agreement. */
export function selectedSql(engine: AnalyticsEngine, view: EngineView, outcome: ResolveOutcome): string {
  const filtered = filteredSql(engine, view);
  const { counted, resolved } = OUTCOME_SQL[outcome];
  const where: string[] = [];
  if (view.difficulties.length) {
    // Each task's share among the configurations with a result on it, each by the share of its samples that
    // resolved it (difficulty.ts), to the same tolerance.
    const edge = (times: number) => `3 * r >= ${times} * n - ${BAND_TOLERANCE}`;
    const band = `CASE WHEN ${edge(2)} THEN 'easy' WHEN ${edge(1)} THEN 'medium' WHEN r > 0 THEN 'hard' ELSE 'unsolved' END`;
    const configurations =
      `SELECT taskId, CAST(count_if(${resolved}) AS DOUBLE) / count(*) AS share FROM (${filtered}) AS byRun ` +
      `WHERE ${counted} GROUP BY taskId, model, harnessVersion`;
    where.push(
      `taskId IN (SELECT taskId FROM (SELECT taskId, count(*) AS n, sum(share) AS r FROM (${configurations}) ` +
        `AS configurations GROUP BY taskId) AS tasks WHERE ${band} IN (${list(view.difficulties)}))`,
    );
  }
  if (view.agreement) where.push(agreementSql(view.agreement));
  return `SELECT * FROM (${filtered}) AS filtered${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

/** A run's cost in SQL: what its harness recorded, else its tokens at its model's configured price (cost.ts). */
export function runCostSql(prices: Record<string, ModelPrice>): string {
  const priced = Object.entries(prices).map(
    ([model, price]) =>
      `WHEN ${literal(model)} THEN promptTokens * ${price.inputPerMTok} / 1000000 + completionTokens * ${price.outputPerMTok} / 1000000`,
  );
  return priced.length ? `coalesce(costUsd, CASE model ${priced.join(' ')} END)` : 'costUsd';
}

const FLAGGED = `coalesce(judgeState, '') = 'flagged'`;

/** The run fields `/stats`' counts read beyond a run's flag and cost (statisticsSql). */
const STATISTICS_COLUMNS = [
  'model',
  'harnessVersion',
  'taskId',
  'judgeVerdict',
  'hiddenTestStatus',
  'metricsSource',
  'conflictCount',
  'foreignCount',
  'judgeCostUsd',
  'sample',
];

/**
 * `/stats`' counts in one statement, reading the selected runs once (a common table the engine may materialize;
 * DuckDB does): per configuration, the run counts of run-counts.ts, the judge's cost, the run cost's totals and
 * the median of its known run costs (the mean of the middle two of an even count), and how many of its tasks with
 * a result on the outcome had n runs with a result and c resolved (reliability.ts sampleKindsOf: all its figures
 * clustered by task depend on). One row per configuration and sample kind, the configuration's figures repeated
 * on each (at most 21 at 5 samples a task, however many tasks); its tasks without a result are the kind n = 0,
 * so a configuration without a result has that row alone. The tasks run are summed from the kinds. The runs are
 * grouped by configuration and task only where a sample past the first is in view: a run's model, harness version,
 * task and sample are its id, so without one each task has one run, its own kind, and at millions of runs that
 * grouping was most of the statement's time.
 */
export function statisticsSql(
  engine: AnalyticsEngine,
  view: EngineView,
  outcome: ResolveOutcome,
  prices: Record<string, ModelPrice>,
): string {
  // The runs' counts per configuration are summed from classes of runs alike in every field they count by (at
  // most a few hundred a configuration, whatever its runs): one grouping on short keys, not twenty tests a run.
  const runsIf = (condition: string) => `coalesce(sum(CASE WHEN ${condition} THEN runs END), 0)`;
  const verdicts = VERDICTS.map((v) => `${runsIf(`NOT flagged AND judgeVerdict = ${literal(v)}`)} AS verdict_${v}`);
  const tests = HIDDEN_TEST_STATUSES.map((t) => `${runsIf(`hiddenTestStatus = ${literal(t)}`)} AS test_${t}`);
  const table = (verdict: string, test: string) =>
    runsIf(`NOT flagged AND ${verdict} AND hiddenTestStatus = ${literal(test)}`);
  const others = oneOf('judgeVerdict', ['partial', 'wrong', 'no_change']);
  const { counted, resolved } = OUTCOME_SQL[outcome];
  const classKeys = 'model, harnessVersion, judgeVerdict, hiddenTestStatus, flagged, metricsSource';
  const repeated = '(SELECT coalesce(max(sample), 1) > 1 FROM costed)';
  // The columns the counts read and no others: the engine keeps the selected runs once for the three readers
  // below, and every column more is one more copied for each run.
  return `WITH costed AS (
     SELECT ${STATISTICS_COLUMNS.join(', ')}, ${FLAGGED} AS flagged, ${runCostSql(prices)} AS runCost
     FROM (${selectedSql(engine, view, outcome)}) AS selected
   ), classes AS (
     SELECT ${classKeys}, count(*) AS runs,
       sum(CASE WHEN conflictCount > 0 THEN conflictCount END) AS conflicts,
       sum(CASE WHEN foreignCount > 0 THEN foreignCount END) AS foreign_attempts,
       count(judgeCostUsd) AS judge_cost_known, sum(judgeCostUsd) AS judge_cost_usd,
       count(runCost) AS priced, sum(runCost) AS run_cost_total
     FROM costed GROUP BY ${classKeys}
   ), tallies AS (
     SELECT model, harnessVersion AS harness_version, sum(runs) AS runs, ${runsIf('flagged')} AS flagged,
       ${runsIf(`metricsSource = 'generated'`)} AS generated,
       ${[...verdicts, ...tests].join(',\n       ')},
       ${table(`judgeVerdict = 'resolved'`, 'pass')} AS resolved_pass, ${table(`judgeVerdict = 'resolved'`, 'fail')} AS resolved_fail,
       ${table(others, 'pass')} AS other_pass, ${table(others, 'fail')} AS other_fail,
       coalesce(sum(conflicts), 0) AS conflicts, coalesce(sum(foreign_attempts), 0) AS foreign_attempts,
       sum(judge_cost_known) AS judge_cost_known, coalesce(sum(judge_cost_usd), 0) AS judge_cost_usd,
       sum(priced) AS priced, sum(run_cost_total) AS run_cost_total,
       coalesce(sum(CASE WHEN ${resolved} THEN priced END), 0) AS priced_resolved
     FROM classes GROUP BY model, harnessVersion
   ), medians AS (
     SELECT model, harnessVersion, avg(runCost) AS median FROM (
       SELECT model, harnessVersion, runCost,
         row_number() OVER (PARTITION BY model, harnessVersion ORDER BY runCost) AS k,
         count(*) OVER (PARTITION BY model, harnessVersion) AS m
       FROM costed WHERE runCost IS NOT NULL
     ) AS ordered WHERE k = floor((m + 1) / 2.0) OR k = floor((m + 2) / 2.0)
     GROUP BY model, harnessVersion
   ), byTask AS (
     SELECT model, harnessVersion, count_if(${counted}) AS n, count_if(${counted} AND ${resolved}) AS c
     FROM costed WHERE ${repeated} GROUP BY model, harnessVersion, taskId
     UNION ALL
     SELECT model, harnessVersion, CASE WHEN ${counted} THEN 1 ELSE 0 END AS n,
       CASE WHEN ${counted} AND ${resolved} THEN 1 ELSE 0 END AS c
     FROM costed WHERE NOT ${repeated}
   ), kinds AS (
     SELECT model, harnessVersion, n, c, count(*) AS tasks,
       sum(count(*)) OVER (PARTITION BY model, harnessVersion) AS tasks_run
     FROM byTask GROUP BY model, harnessVersion, n, c
   )
   SELECT tallies.*, kinds.tasks_run, medians.median, kinds.n, kinds.c, kinds.tasks FROM tallies
   JOIN kinds ON kinds.model = tallies.model AND kinds.harnessVersion = tallies.harness_version
   LEFT JOIN medians ON medians.model = tallies.model AND medians.harnessVersion = tallies.harness_version`;
}

/** Per configuration and task with a result on the outcome: n runs with a result, c resolved (task-samples.ts). */
export const taskSamplesSql = (engine: AnalyticsEngine, view: EngineView, outcome: ResolveOutcome): string =>
  `SELECT model, harnessVersion AS harness_version, taskId AS task_id, count(*) AS n, count_if(${OUTCOME_SQL[outcome].resolved}) AS c, min(repo) AS repo
   FROM (${selectedSql(engine, view, outcome)}) AS selected
   WHERE ${OUTCOME_SQL[outcome].counted}
   GROUP BY model, harnessVersion, taskId`;

/**
 * The samples of taskSamplesSql, and each task's cluster by repository (reliability.ts clusterKey): its repository
 * (the least its runs name), or the task alone where none names one.
 */
const clusteredSamplesSql = (engine: AnalyticsEngine, view: EngineView, outcome: ResolveOutcome): string =>
  `WITH samples AS (${taskSamplesSql(engine, view, outcome)}),
   clusters AS (SELECT task_id, coalesce('repo ' || min(repo), 'task ' || task_id) AS cluster FROM samples GROUP BY task_id)`;

/**
 * Per configuration, repository cluster and sample kind: how many of the cluster's tasks had n runs with a result
 * and c resolved, and the least of their ids (reliability.ts repoClustersOf: all the figures clustered by
 * repository depend on). Rows grow with the repositories, not the tasks (but for tasks without a repository).
 */
export const clusterKindsSql = (engine: AnalyticsEngine, view: EngineView, outcome: ResolveOutcome): string =>
  `${clusteredSamplesSql(engine, view, outcome)}
   SELECT s.model, s.harness_version, k.cluster, s.n, s.c, count(*) AS tasks, min(s.task_id) AS first_task
   FROM samples AS s JOIN clusters AS k ON k.task_id = s.task_id
   GROUP BY s.model, s.harness_version, k.cluster, s.n, s.c`;

/**
 * Per pair of configurations (a before b by model, then harness version) and paired kind, and by repository
 * cluster with `cluster=repo`: how many tasks both have a result on had n_a runs of a with a result, c_a resolved,
 * and n_b and c_b of b (reliability.ts pairedKindsOf: all a pair's figures depend on), and the least of their ids.
 * Clustered by task, at most 400 rows a pair at 5 samples a task, however many tasks.
 */
export function pairKindsSql(
  engine: AnalyticsEngine,
  view: EngineView,
  outcome: ResolveOutcome,
  cluster: ClusterUnit,
): string {
  const [join, column, grouped] =
    cluster === 'repo' ? ['JOIN clusters AS k ON k.task_id = a.task_id', 'k.cluster', ', k.cluster'] : ['', `''`, ''];
  return `${clusteredSamplesSql(engine, view, outcome)}
   SELECT a.model AS a_model, a.harness_version AS a_harness_version, b.model AS b_model,
     b.harness_version AS b_harness_version, ${column} AS cluster, a.n AS a_n, a.c AS a_c, b.n AS b_n,
     b.c AS b_c, count(*) AS tasks, min(a.task_id) AS first_task
   FROM samples AS a JOIN samples AS b ON a.task_id = b.task_id
     AND (a.model < b.model OR (a.model = b.model AND a.harness_version < b.harness_version)) ${join}
   GROUP BY a.model, a.harness_version, b.model, b.harness_version${grouped}, a.n, a.c, b.n, b.c`;
}

/** The configurations in view, whether or not they have a result, each with its runs with a result and resolved. */
export const configurationsSql = (engine: AnalyticsEngine, view: EngineView, outcome: ResolveOutcome): string =>
  `SELECT model, harnessVersion AS harness_version, count_if(${OUTCOME_SQL[outcome].counted}) AS counted,
     count_if(${OUTCOME_SQL[outcome].counted} AND ${OUTCOME_SQL[outcome].resolved}) AS resolved
   FROM (${selectedSql(engine, view, outcome)}) AS selected GROUP BY model, harnessVersion`;

/** One search word as the engine matches it (result-filters.ts searchRows): in a searched text field, or in the labels worked out beside it. */
export interface EngineSearchWord {
  word: string;
  /** The verdicts and hidden-test results whose names or labels contain the word. */
  verdicts: readonly VerdictKey[];
  hiddenTests: readonly HiddenColumn[];
  /** The tasks whose label contains the word where their id does not. */
  labelledTasks: readonly string[];
}

/** What an export selects beyond the figures' view: the verdicts and test results chosen, and the search words. */
export interface EngineExportView extends EngineView {
  verdicts: readonly VerdictKey[];
  hiddenTests: readonly HiddenColumn[];
  search: readonly EngineSearchWord[];
}

/** Every run of the space: no filter, narrowing, choice or search word. */
export const allRunsView = (space: string): EngineExportView => ({
  space,
  filters: NO_FILTERS,
  tierTasks: [],
  waveTasks: [],
  matchesNothing: false,
  difficulties: [],
  agreement: null,
  verdicts: [],
  hiddenTests: [],
  search: [],
});

const VERDICT_KEY = `CASE WHEN ${FLAGGED} THEN 'flagged' WHEN ${oneOf('judgeVerdict', VERDICTS)} THEN judgeVerdict ELSE 'unjudged' END`;
const HIDDEN_TEST_KEY = `CASE WHEN ${oneOf('hiddenTestStatus', HIDDEN_TEST_STATUSES)} THEN hiddenTestStatus ELSE 'none' END`;
const SEARCHED = ['model', 'taskId', 'harnessVersion', 'host', 'repo'];

function searchWordSql({ word, verdicts, hiddenTests, labelledTasks }: EngineSearchWord): string {
  const anyOf = SEARCHED.map((field) => `strpos(lower(coalesce(${field}, '')), ${literal(word)}) > 0`);
  if (verdicts.length) anyOf.push(`${VERDICT_KEY} IN (${list(verdicts)})`);
  if (hiddenTests.length) anyOf.push(`${HIDDEN_TEST_KEY} IN (${list(hiddenTests)})`);
  if (labelledTasks.length) anyOf.push(oneOf('taskId', labelledTasks));
  return `(${anyOf.join(' OR ')})`;
}

/** The task ids of the runs the figures' view selects (a search matches their labels beside them). */
export const taskIdsSql = (engine: AnalyticsEngine, view: EngineView): string =>
  `SELECT DISTINCT taskId AS task_id FROM (${filteredSql(engine, view)}) AS filtered`;

/** A double printed in an exponent form: DuckDB's (1.5e-05, 1e+21) or Trino's, Java's (1.5E-5, 1.0E7). */
const EXPONENT_FORM = '^(-?)([0-9])(?:[.]([0-9]+))?[eE]([-+]?[0-9]+)$';

/** The parts of a double's text in an exponent form: its sign, its digits without trailing zeros, its exponent. */
interface ExponentParts {
  sign: string;
  digits: string;
  e: string;
}

/**
 * The parts of `text` (a double's `CAST(x AS VARCHAR)`), by functions both engines have alike: an unmatched
 * group is NULL in Trino and '' in DuckDB, hence the coalesce, and DuckDB works out every branch of a CASE,
 * so a plain text's exponent reads as 0.
 */
function exponentPartsSql(text: string): ExponentParts {
  // Only a text in an exponent form is taken apart (a CASE works out a branch only for the rows that take it).
  const part = (group: number) =>
    `CASE WHEN strpos(lower(${text}), 'e') > 0 THEN coalesce(regexp_extract(${text}, '${EXPONENT_FORM}', ${group}), '') ELSE '' END`;
  return {
    sign: part(1),
    digits: `rtrim(${part(2)} || ${part(3)}, '0')`,
    e: `CAST(coalesce(nullif(${part(4)}, ''), '0') AS INTEGER)`,
  };
}

/**
 * A double's text laid out as JavaScript prints the number: plainly from 1e-6 up to 1e21, as 1.5e-7 and 1e+21
 * beyond. DuckDB prints below 1e-4 in its exponent form and Trino below 1e-3 and from 1e7 in Java's, so an
 * exponent form is laid out again from its parts; a plain text is already the shortest digits in both. DuckDB's
 * pads take an INTEGER size, Trino's a BIGINT.
 */
function jsNumberLayoutSql(text: string, { sign, digits, e }: ExponentParts): string {
  const small = `${sign} || '0.' || lpad(${digits}, CAST(length(${digits}) - ${e} - 1 AS INTEGER), '0')`;
  const large =
    `${sign} || CASE WHEN length(${digits}) <= ${e} + 1 THEN rpad(${digits}, CAST(${e} + 1 AS INTEGER), '0') ` +
    `ELSE substr(${digits}, 1, ${e} + 1) || '.' || substr(${digits}, ${e} + 2) END`;
  const exponent =
    `${sign} || substr(${digits}, 1, 1) || CASE WHEN length(${digits}) > 1 THEN '.' || substr(${digits}, 2) ELSE '' END` +
    ` || 'e' || CASE WHEN ${e} < 0 THEN '-' ELSE '+' END || CAST(abs(${e}) AS VARCHAR)`;
  return (
    `CASE WHEN ${text} IS NULL OR strpos(lower(${text}), 'e') = 0 THEN ${text} WHEN ${e} BETWEEN -6 AND -1 THEN ${small} ` +
    `WHEN ${e} BETWEEN 0 AND 20 THEN ${large} ELSE ${exponent} END`
  );
}

/** A double's text as JavaScript prints the number, in one expression (the export lays it out in layers). */
export const jsNumberTextSql = (text: string): string => jsNumberLayoutSql(text, exponentPartsSql(text));

/** A CSV cell's text before its guard: numbers as JavaScript prints them (a double's laid out after), '' and null alike. */
function csvTextSql(value: string, type: ExportType): string {
  const whole = (x: string) => `CAST(CAST(${x} AS BIGINT) AS VARCHAR)`;
  if (type === 'INT64') return whole(value);
  if (type === 'DOUBLE')
    return `CASE WHEN ${value} = floor(${value}) AND abs(${value}) < 1e15 THEN ${whole(value)} ELSE CAST(${value} AS VARCHAR) END`;
  if (type === 'BOOLEAN') return `CAST(${value} AS VARCHAR)`;
  return `nullif(${value}, '')`;
}

/**
 * A cell starting as a formula would is quoted, as csv.ts does. Two lists of under six values: DuckDB answers a
 * list of six or more by a join against it, which, in every cell, held a CSV export past any memory limit. A
 * number's text can start only with its sign, and a boolean's with neither.
 */
function formulaGuardSql(text: string, type: ExportType): string {
  if (type === 'BOOLEAN') return text;
  const start = `substr(${text}, 1, 1)`;
  const formula =
    type === 'INT64' || type === 'DOUBLE'
      ? `${start} = '-'`
      : `${start} IN ('=', '+', '-', '@') OR ${start} IN (chr(9), chr(13))`;
  return `CASE WHEN ${formula} THEN '''' || ${text} ELSE ${text} END`;
}

/** A field's value in the dataset's terms: the run cost and the verdict's source are worked out as exports.ts does. */
function exportValueSql(field: ExportField, prices: Record<string, ModelPrice>): string {
  if (field === 'runCostUsd') return runCostSql(prices);
  if (field === 'verdictSource')
    return `CASE WHEN ${OUTCOME_SQL.tests.counted} THEN 'tests' WHEN judgeVerdict IS NOT NULL THEN 'judge' END`;
  return field;
}

/** A field as Parquet or JSON carries it (§6 "Exports"): Parquet typed, JSON as the row has it. */
function exportColumnSql(field: ExportField, format: 'parquet' | 'json') {
  const value = `"${field}"`;
  const type = exportTypeOf(field);
  if (type === 'INT64') return `CAST(${value} AS BIGINT) AS "${field}"`;
  if (type === 'TIMESTAMP' && format === 'parquet') return `CAST(${value} AS TIMESTAMP) AS "${field}"`;
  return `${value} AS "${field}"`;
}

const partColumns = (field: string): ExponentParts => ({
  sign: `"${field}#sign"`,
  digits: `"${field}#digits"`,
  e: `"${field}#e"`,
});

/** The runs an export or a grid page holds: the figures' selection, then the verdicts, test results and search words chosen. */
function exportSelectionSql(engine: AnalyticsEngine, view: EngineExportView, outcome: ResolveOutcome): string {
  const where: string[] = [];
  if (view.verdicts.length) where.push(`${VERDICT_KEY} IN (${list(view.verdicts)})`);
  if (view.hiddenTests.length) where.push(`${HIDDEN_TEST_KEY} IN (${list(view.hiddenTests)})`);
  where.push(...view.search.map(searchWordSql));
  return `SELECT * FROM (${selectedSql(engine, view, outcome)}) AS selected${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

/** A code's place in its table, as the page's columns number it (columns.ts codeOf); null when unknown. */
const codeOrder = (column: string, values: readonly string[]) =>
  `CASE ${column} ${values.map((v, k) => `WHEN ${literal(v)} THEN ${k + 1}`).join(' ')} END`;

/** What each grid column sorts by, as the grid's own sort keys do (runs-view.ts): null sorts last either way. */
const GRID_ORDER: Record<GridSortKey, string> = {
  metricsSource: codeOrder('metricsSource', METRICS_SOURCES),
  verdict: codeOrder('judgeVerdict', VERDICTS),
  model: 'model',
  harnessVersion: 'harnessVersion',
  // A row landed before samples existed is sample 1.
  sample: 'coalesce(sample, 1)',
  taskId: 'taskId',
  // An unknown outcome is code 0, the lowest, not unknown.
  outcome: `coalesce(${codeOrder('outcome', OUTCOMES)}, 0)`,
  hiddenTest: codeOrder('hiddenTestStatus', HIDDEN_TEST_STATUSES),
  agreement: `CASE WHEN ${agreementSql('disagree')} THEN 1 WHEN ${agreementSql('agree')} THEN 0 END`,
  steps: 'steps',
  wallSeconds: 'wallSeconds',
  completionTokens: 'completionTokens',
  outputTokensPerMinute: 'outputTokensPerMinute',
  patchLinesAdded: 'patchLinesAdded',
  patchLinesRemoved: 'patchLinesRemoved',
  host: 'host',
  finishedAt: 'finishedAt',
};

/**
 * One page of the Runs grid (§6 "Reading at scale"): the export's rows, ordered by the grid's column (unknown
 * last either way), ties the most recent first and then by id, `limit` rows from `offset`, each with the count of
 * rows over all pages. The order is worked out on each run's sort key, time and id alone, then the page's runs
 * read their fields: sorting every field of every run held them all to keep 100. The count is a plain count
 * beside it, where a window over every row held each run's key until the last was read. OFFSET before LIMIT is
 * the order Trino takes and DuckDB accepts; the answer's columns are the fields in lower case, as Athena names
 * them.
 */
export function gridPageSql(
  engine: AnalyticsEngine,
  view: EngineExportView,
  outcome: ResolveOutcome,
  sort: { column: GridSortKey; descending: boolean },
  offset: number,
  limit: number,
): string {
  const direction = sort.descending ? 'DESC' : 'ASC';
  const selection = exportSelectionSql(engine, view, outcome);
  const order = (of: string) => `${of}sortKey ${direction} NULLS LAST, ${of}finishedAt DESC NULLS LAST, ${of}id`;
  return `WITH page AS (
     SELECT id, ${GRID_ORDER[sort.column]} AS sortKey, finishedAt FROM (${selection}) AS grid
     ORDER BY ${order('')} OFFSET ${offset} LIMIT ${limit}
   ), total AS (
     SELECT count(*) AS total_rows FROM (${selection}) AS grid
   )
   SELECT ${GRID_FIELDS.map((f) => `grid.${f} AS ${f.toLowerCase()}`).join(', ')}, total.total_rows
   FROM (${selection}) AS grid JOIN page ON grid.id = page.id CROSS JOIN total
   ORDER BY ${order('page.')}`;
}

/**
 * The rows of an export (§6 "Exports"): the figures' selection, then the verdicts and hidden-test results
 * chosen and every search word, the fields in their order, by run id where the engine sorts exports
 * (`exportsInIdOrder`: Athena), else as the engine reads them (DuckDB streams them). The values are worked out in an inner
 * select, so a long expression (a run's cost at every model's price) is written once; a CSV's cells are then
 * made in layers (text, a double's exponent parts, the laid-out and guarded cell), each step once per cell.
 */
export function exportRowsSql(
  engine: AnalyticsEngine,
  view: EngineExportView,
  outcome: ResolveOutcome,
  fields: readonly ExportField[],
  format: 'parquet' | 'csv' | 'json',
  prices: Record<string, ModelPrice>,
): string {
  const values = fields.map((field) => `${exportValueSql(field, prices)} AS "${field}"`);
  const inner = `SELECT ${values.join(', ')}, id AS export_order
         FROM (${exportSelectionSql(engine, view, outcome)}) AS chosen`;
  const order = engine.exportsInIdOrder ? '\n   ORDER BY export_order' : '';
  if (format !== 'csv')
    return `SELECT ${fields.map((field) => exportColumnSql(field, format)).join(', ')}
   FROM (${inner}) AS exported${order}`;
  const isDouble = (field: ExportField) => exportTypeOf(field) === 'DOUBLE';
  const texts = fields.map((field) => `${csvTextSql(`"${field}"`, exportTypeOf(field))} AS "${field}"`);
  const parts = fields
    .filter(isDouble)
    .flatMap((field) =>
      Object.entries(exponentPartsSql(`"${field}"`)).map(([name, sql]) => `${sql} AS "${field}#${name}"`),
    );
  const cells = fields.map((field) => {
    const type = exportTypeOf(field);
    const text = type === 'DOUBLE' ? jsNumberLayoutSql(`"${field}"`, partColumns(field)) : `"${field}"`;
    return `${formulaGuardSql(text, type)} AS "${field}"`;
  });
  return `SELECT ${cells.join(', ')}
   FROM (SELECT *${parts.length ? `, ${parts.join(', ')}` : ''}
         FROM (SELECT ${texts.join(', ')}, export_order FROM (${inner}) AS exported) AS texts) AS parted${order}`;
}
