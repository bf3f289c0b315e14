// `/stats` and `/pairs` answered by the analytics engine (docs/contract.md §6 "Reading at scale"): for a space
// above the configured run count, the engine counts each configuration and each configuration's tasks over the
// run dataset (engine-queries.ts), and the figures are worked out from those counts by the functions the
// in-memory path uses (group-stats.ts, reliability.ts, all-pairs.ts). No run is held in the function: `/stats` is
// one answer of a row per configuration and sample kind (n, c), plus one per configuration and task where tasks
// are clustered by repository; `/pairs` one row per pair of configurations and paired kind (one per configuration
// and task where tasks are clustered by repository).
import { allPairsOfKinds, MAX_ALL_PAIRS, refusedPairs, type AllPairs } from '#analytics/all-pairs.ts';
import { HIDDEN_TEST_STATUSES, VERDICTS } from '#analytics/columns.ts';
import type { StatsGroup } from '#analytics/contract.ts';
import { emptyVerdictCounts } from '#analytics/rate-figures.ts';
import {
  byFirstTask,
  reliabilityOfKinds,
  reliabilityOfRepos,
  type ClusterUnit,
  type PairedKind,
} from '#analytics/reliability.ts';
import { runCostOfTotals } from '#analytics/run-cost.ts';
import type { Group } from '#analytics/run-grouping.ts';
import type { ResolveOutcome } from '#analytics/statistics.ts';
import type { ModelPrice } from '#schema/config.ts';
import type { AnalyticsEngine, EngineValue } from '../ports.ts';
import {
  anyTestResultSql,
  clusterKindsSql,
  configurationsSql,
  pairKindsSql,
  statisticsSql,
  type EngineView,
} from './engine-queries.ts';
import { statisticsOfGroups, type GroupTally } from './group-stats.ts';

type Row = Record<string, EngineValue>;

const count = (row: Row, column: string) => Number(row[column] ?? 0);
const groupOf = (row: Row): Group => ({ model: String(row['model']), harnessVersion: String(row['harness_version']) });
const keyOf = (group: Group) => JSON.stringify([group.model, group.harnessVersion]);

/** The outcome asked for, else the default of the runs the filters select: tests when any has a pass or fail. */
export async function engineOutcome(
  engine: AnalyticsEngine,
  view: EngineView,
  asked: ResolveOutcome | null,
): Promise<ResolveOutcome> {
  if (asked) return asked;
  const [row] = await engine.rows(anyTestResultSql(engine, view));
  return row && count(row, 'tested') > 0 ? 'tests' : 'judge';
}

function tallyOfRow(row: Row, medianUsd: number | null): GroupTally {
  const verdicts = emptyVerdictCounts();
  for (const v of VERDICTS) verdicts[v] = count(row, `verdict_${v}`);
  verdicts.flagged = count(row, 'flagged');
  const runs = count(row, 'runs');
  verdicts.unjudged = runs - VERDICTS.reduce((sum, v) => sum + verdicts[v], verdicts.flagged);
  const hiddenTests = { pass: 0, fail: 0, error: 0, none: 0 };
  for (const t of HIDDEN_TEST_STATUSES) hiddenTests[t] = count(row, `test_${t}`);
  hiddenTests.none = runs - hiddenTests.pass - hiddenTests.fail - hiddenTests.error;
  const priced = count(row, 'priced');
  return {
    group: groupOf(row),
    counts: {
      runs,
      verdicts,
      hiddenTests,
      agreement: {
        resolvedPass: count(row, 'resolved_pass'),
        resolvedFail: count(row, 'resolved_fail'),
        otherPass: count(row, 'other_pass'),
        otherFail: count(row, 'other_fail'),
      },
      conflicts: count(row, 'conflicts'),
      foreign: count(row, 'foreign_attempts'),
      generated: count(row, 'generated'),
    },
    tasks: count(row, 'tasks_run'),
    // A sum with one unknown part is unknown (cost.ts sumCosts).
    judgeCostUsd: count(row, 'judge_cost_known') === runs ? count(row, 'judge_cost_usd') : null,
    runCost: runCostOfTotals({
      runs,
      priced,
      totalUsd: priced ? count(row, 'run_cost_total') : null,
      medianUsd,
      resolved: count(row, 'priced_resolved'),
    }),
  };
}

/**
 * Rows of a cluster's kinds (clusterKindsSql, pairKindsSql), by `keyOf(row)` and then by cluster: each key's
 * clusters in the order of their smallest task id, each as its kinds.
 */
function clustersByKey<K>(
  rows: readonly Row[],
  keyOf: (row: Row) => string,
  kindOf: (row: Row) => K,
): Map<string, K[][]> {
  const byKey = new Map<string, Row[]>();
  for (const row of rows) {
    const key = keyOf(row);
    (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(row);
  }
  const clustered = (of: Row[]) =>
    byFirstTask(of.map((row) => ({ task: String(row['first_task']), key: String(row['cluster']), item: kindOf(row) })));
  return new Map([...byKey].map(([key, of]) => [key, clustered(of)]));
}

/** `/stats`'s groups, by the engine. */
export async function engineStatistics(
  engine: AnalyticsEngine,
  view: EngineView,
  outcome: ResolveOutcome,
  prices: Record<string, ModelPrice>,
  minN: number,
  cluster: ClusterUnit,
): Promise<StatsGroup[]> {
  const [rows, clusterRows] = await Promise.all([
    engine.rows(statisticsSql(engine, view, outcome, prices)),
    cluster === 'task' ? [] : engine.rows(clusterKindsSql(engine, view, outcome)),
  ]);
  // A configuration's figures are on each of its rows, one row per sample kind (tasks without a result are the
  // kind n = 0, which sampleKindsOf leaves out).
  const byGroup = new Map<string, { row: Row; kinds: { n: number; c: number; tasks: number }[] }>();
  for (const row of rows) {
    const key = keyOf(groupOf(row));
    const entry = byGroup.get(key) ?? byGroup.set(key, { row, kinds: [] }).get(key)!;
    entry.kinds.push({ n: count(row, 'n'), c: count(row, 'c'), tasks: count(row, 'tasks') });
  }
  const configurations = [...byGroup.values()];
  const tallies = configurations.map(({ row }) =>
    tallyOfRow(row, row['median'] === null ? null : Number(row['median'])),
  );
  const repos = clustersByKey(
    clusterRows,
    (row) => keyOf(groupOf(row)),
    (row) => ({ n: count(row, 'n'), c: count(row, 'c'), tasks: count(row, 'tasks') }),
  );
  const reliabilities = configurations.map(({ row, kinds }) =>
    cluster === 'task' ? reliabilityOfKinds(kinds) : reliabilityOfRepos(repos.get(keyOf(groupOf(row))) ?? []),
  );
  return statisticsOfGroups(tallies, reliabilities, outcome, minN);
}

/**
 * `/pairs`'s rows, by the engine: more than MAX_ALL_PAIRS configurations are refused before their tasks are
 * counted. Clustered by task, each pair's paired kinds; by repository, each configuration's tasks.
 */
export async function enginePairs(
  engine: AnalyticsEngine,
  view: EngineView,
  outcome: ResolveOutcome,
  cluster: ClusterUnit,
): Promise<AllPairs> {
  const configurations = await engine.rows(configurationsSql(engine, view, outcome));
  const groups = configurations.map(groupOf);
  if (groups.length > MAX_ALL_PAIRS) return refusedPairs(outcome, groups.length);
  const sides = (row: Row) =>
    (['a', 'b'] as const).map((side) => ({
      model: String(row[`${side}_model`]),
      harnessVersion: String(row[`${side}_harness_version`]),
    }));
  const clusters = clustersByKey(
    await engine.rows(pairKindsSql(engine, view, outcome, cluster)),
    (row) => sides(row).map(keyOf).join(''),
    (row): PairedKind => ({
      nA: count(row, 'a_n'),
      cA: count(row, 'a_c'),
      nB: count(row, 'b_n'),
      cB: count(row, 'b_c'),
      tasks: count(row, 'tasks'),
    }),
  );
  const totals = configurations.map((row) => ({ counted: count(row, 'counted'), resolved: count(row, 'resolved') }));
  // The engine pairs a before b in its own order; a pair asked the other way round has its sides swapped.
  const swapped = ({ nA, cA, nB, cB, tasks }: PairedKind) => ({ nA: nB, cA: cB, nB: nA, cB: cA, tasks });
  const clustersOf = (x: number, y: number): PairedKind[][] =>
    clusters.get(keyOf(groups[x]!) + keyOf(groups[y]!)) ??
    (clusters.get(keyOf(groups[y]!) + keyOf(groups[x]!)) ?? []).map((kinds) => kinds.map(swapped));
  return allPairsOfKinds(groups, totals, outcome, cluster, clustersOf);
}
