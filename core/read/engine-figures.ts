// `/stats` and `/pairs` answered by the analytics engine (docs/contract.md §6 "Reading at scale"): for a space
// above the configured run count, the engine counts each configuration and each configuration's tasks over the
// run dataset (engine-queries.ts), and the figures are worked out from those counts by the functions the
// in-memory path uses (group-stats.ts, reliability.ts, all-pairs.ts). No run is held in the function: `/stats` is
// one answer of a row per configuration and sample kind (n, c), plus one per configuration and task where tasks
// are clustered by repository; `/pairs` one row per pair of configurations and paired kind (one per configuration
// and task where tasks are clustered by repository).
import { allPairsOf, allPairsOfKinds, MAX_ALL_PAIRS, refusedPairs, type AllPairs } from '#analytics/all-pairs.ts';
import { HIDDEN_TEST_STATUSES, VERDICTS } from '#analytics/columns.ts';
import type { StatsGroup } from '#analytics/contract.ts';
import { emptyVerdictCounts } from '#analytics/rate-figures.ts';
import { reliabilityOfKinds, type ClusterUnit, type PairedKind } from '#analytics/reliability.ts';
import { runCostOfTotals } from '#analytics/run-cost.ts';
import type { Group } from '#analytics/run-grouping.ts';
import type { ResolveOutcome } from '#analytics/statistics.ts';
import { compareTaskIds, reliabilityOfCounts, type SampleCounts } from '#analytics/task-samples.ts';
import type { ModelPrice } from '#schema/config.ts';
import type { AnalyticsEngine, EngineValue } from '../ports.ts';
import {
  anyTestResultSql,
  configurationsSql,
  pairKindsSql,
  statisticsSql,
  taskSamplesSql,
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

/** The groups' samples of each task, tasks in task id order as sampleCountsOf lays them out. */
function sampleCountsOfRows(rows: readonly Row[], groups: readonly Group[]): SampleCounts {
  const repoOf = new Map<string, string | null>();
  for (const row of rows) {
    const [task, repo] = [String(row['task_id']), row['repo'] === null ? null : String(row['repo'])];
    const known = repoOf.get(task);
    if (known === undefined || (repo !== null && (known === null || repo < known))) repoOf.set(task, repo);
  }
  const tasks = [...repoOf.keys()].sort(compareTaskIds);
  const indexOf = new Map(tasks.map((task, t) => [task, t]));
  // By model, then harness: no key string made per row.
  const groupIndex = new Map<string, Map<string, number>>();
  groups.forEach(({ model, harnessVersion }, g) =>
    (groupIndex.get(model) ?? groupIndex.set(model, new Map()).get(model)!).set(harnessVersion, g),
  );
  const n = groups.map(() => new Int32Array(tasks.length));
  const c = groups.map(() => new Int32Array(tasks.length));
  for (const row of rows) {
    const g = groupIndex.get(String(row['model']))?.get(String(row['harness_version']));
    if (g === undefined) continue;
    const t = indexOf.get(String(row['task_id']))!;
    n[g]![t] = count(row, 'n');
    c[g]![t] = count(row, 'c');
  }
  return { tasks, repos: tasks.map((task) => repoOf.get(task)!), n, c };
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
  const [rows, taskRows] = await Promise.all([
    engine.rows(statisticsSql(engine, view, outcome, prices)),
    cluster === 'task' ? [] : engine.rows(taskSamplesSql(engine, view, outcome)),
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
  const reliabilities =
    cluster === 'task'
      ? configurations.map(({ kinds }) => reliabilityOfKinds(kinds))
      : reliabilityOfCounts(
          sampleCountsOfRows(
            taskRows,
            tallies.map((t) => t.group),
          ),
          cluster,
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
  if (cluster === 'repo') {
    const counts = sampleCountsOfRows(await engine.rows(taskSamplesSql(engine, view, outcome)), groups);
    return allPairsOf(counts, groups, outcome, cluster);
  }
  const kinds = new Map<string, PairedKind[]>();
  for (const row of await engine.rows(pairKindsSql(engine, view, outcome))) {
    const [a, b] = (['a', 'b'] as const).map((side) => ({
      model: String(row[`${side}_model`]),
      harnessVersion: String(row[`${side}_harness_version`]),
    }));
    const key = keyOf(a!) + keyOf(b!);
    const kind = { nA: count(row, 'a_n'), cA: count(row, 'a_c'), nB: count(row, 'b_n'), cB: count(row, 'b_c') };
    (kinds.get(key) ?? kinds.set(key, []).get(key)!).push({ ...kind, tasks: count(row, 'tasks') });
  }
  const totals = configurations.map((row) => ({ counted: count(row, 'counted'), resolved: count(row, 'resolved') }));
  // The engine pairs a before b in its own order; a pair asked the other way round has its sides swapped.
  const kindsOf = (x: number, y: number): PairedKind[] =>
    kinds.get(keyOf(groups[x]!) + keyOf(groups[y]!)) ??
    (kinds.get(keyOf(groups[y]!) + keyOf(groups[x]!)) ?? []).map(({ nA, cA, nB, cB, tasks }) => ({
      nA: nB,
      cA: cB,
      nB: nA,
      cB: cA,
      tasks,
    }));
  return allPairsOfKinds(groups, totals, outcome, kindsOf);
}
