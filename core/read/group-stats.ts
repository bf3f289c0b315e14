// `/stats` computed from a RunTable and a selection of its rows: the same table, filters and groups (one
// model and harness version) the cockpit uses, counted by the cockpit's own pass (countRuns) and rated by
// the same functions, with every figure from the one statistics module. Only the costs are /stats' own:
// they need the configured prices, which the cockpit never sees. `/compare` is
// shared/analytics/compare-groups.ts, which the cockpit's Compare view runs on its own table.
import {
  cohensKappa,
  kappaWithheld,
  outcomeReader,
  outcomeRate,
  rankByRate,
  RESOLVED,
  type ResolveOutcome,
} from '#analytics/statistics.ts';
import { callCostUsd, sumCosts } from '../cost.ts';
import type { ModelPrice } from '#schema/config.ts';
import { hiddenTestRate, resolveRate } from '#analytics/rate-figures.ts';
import { countRuns, type RunCounts } from '#analytics/run-counts.ts';
import { runCostFigure, type RunCostFigure } from '#analytics/run-cost.ts';
import { groupRuns, rowsByGroup, type Group } from '#analytics/run-grouping.ts';
import type { StatsGroup } from '#analytics/contract.ts';
import type { RunTable } from '#analytics/run-table.ts';
import { samplesFigure, type ClusterUnit, type Reliability } from '#analytics/reliability.ts';
import { reliabilityOfCounts, sampleCountsOf } from '#analytics/task-samples.ts';

export type Prices = Record<string, ModelPrice>;

/** The configured price of a model (an own key only: a model named "constructor" has no price). */
export const priceOf = (prices: Prices, model: string): ModelPrice | null =>
  Object.hasOwn(prices, model) ? prices[model]! : null;

/**
 * A run's cost: what its harness recorded, else estimated from its tokens at the configured price (the runner
 * sends no cache figures); null when neither is known.
 */
export const runCostUsd = (
  price: ModelPrice | null,
  run: { costUsd: number | null; promptTokens: number | null; completionTokens: number | null },
): number | null =>
  run.costUsd ??
  callCostUsd(
    { inputTokens: run.promptTokens, outputTokens: run.completionTokens, cacheWriteTokens: 0, cacheReadTokens: 0 },
    price ?? undefined,
  );

const known = (v: number) => (Number.isNaN(v) ? null : v);

/** What a configuration's figures are worked out from: its run counts, the judge's cost and its run cost. */
export interface GroupTally {
  group: Group;
  counts: Pick<RunCounts, 'runs' | 'verdicts' | 'hiddenTests' | 'agreement' | 'conflicts' | 'foreign' | 'generated'>;
  /** The tasks its runs ran. */
  tasks: number;
  judgeCostUsd: number | null;
  runCost: RunCostFigure;
}

export function groupStatistics(
  table: RunTable,
  selection: Uint32Array,
  prices: Prices,
  outcome: ResolveOutcome,
  minN: number,
  cluster: ClusterUnit = 'task',
): StatsGroup[] {
  const grouping = groupRuns(table, selection);
  const rows = rowsByGroup(grouping, selection);
  const counts = sampleCountsOf(table, selection, grouping.groups, outcome);
  const tallies = grouping.groups.map((group, g) =>
    tallyOf(table, group, rows[g]!, priceOf(prices, group.model), outcome),
  );
  return statisticsOfGroups(tallies, reliabilityOfCounts(counts, cluster), outcome, minN);
}

/** Each group's figures from its tally and its repeated samples' (group g's are reliabilities' g), ranked on the outcome and sorted by name. */
export function statisticsOfGroups(
  tallies: readonly GroupTally[],
  reliabilities: readonly Reliability[],
  outcome: ResolveOutcome,
  minN: number,
): StatsGroup[] {
  const stats = tallies.map((tally, g) => statisticsOf(tally, outcome, reliabilities[g]!));
  const byName = (a: Group, b: Group) =>
    a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion);
  const { rankOf } = rankByRate(
    stats,
    (g) => g.rate,
    (g) => g.n,
    minN,
    byName,
  );
  return stats.map((g) => ({ ...g, rank: rankOf.get(g) ?? null })).sort(byName);
}

function tallyOf(
  table: RunTable,
  group: Group,
  rows: Uint32Array,
  price: ModelPrice | null,
  outcome: ResolveOutcome,
): GroupTally {
  const classOf = outcomeReader(table, outcome);
  const judgeCost = table.numbers.judgeCostUsd;
  const prompt = table.numbers.promptTokens;
  const completion = table.numbers.completionTokens;
  const recorded = table.numbers.costUsd;
  return {
    group,
    counts: countRuns(table, rows),
    tasks: new Set(Array.from(rows, (i) => table.text.taskId[i])).size,
    judgeCostUsd: sumCosts(Array.from(rows, (i) => known(judgeCost[i]!))),
    runCost: runCostFigure(
      Float64Array.from(
        rows,
        (i) =>
          runCostUsd(price, {
            costUsd: known(recorded[i]!),
            promptTokens: known(prompt[i]!),
            completionTokens: known(completion[i]!),
          }) ?? NaN,
      ),
      Array.from(rows, (i) => classOf(i) === RESOLVED),
    ),
  };
}

function statisticsOf(
  { group, counts, tasks, judgeCostUsd, runCost }: GroupTally,
  outcome: ResolveOutcome,
  samples: Reliability,
): Omit<StatsGroup, 'rank'> {
  const resolved = outcomeRate(counts, outcome);
  const resolve = resolveRate(counts.verdicts);
  const hidden = hiddenTestRate(counts.hiddenTests);
  const kappa = cohensKappa(counts.agreement);
  const reliability = samplesFigure(samples);
  return {
    model: group.model,
    harnessVersion: group.harnessVersion,
    runs: counts.runs,
    tasks,
    generated: counts.generated,
    n: resolved.n,
    resolved: resolved.hits,
    rate: resolved.rate,
    ci: reliability.ci,
    outside: resolved.outside,
    samples: reliability.figure,
    judge: {
      n: resolve.n,
      resolved: resolve.hits,
      rate: resolve.rate,
      ci: resolve.ci,
      excluded: resolve.excluded,
      error: resolve.error,
      flagged: resolve.flagged,
      notJudged: resolve.unjudged,
    },
    conflicts: counts.conflicts,
    foreign: counts.foreign,
    hidden: { n: hidden.n, pass: hidden.hits, rate: hidden.rate, ci: hidden.ci, error: hidden.errored },
    agreement: {
      n: kappa.n,
      kappa: kappa.kappa,
      ci: kappa.ci,
      table: counts.agreement,
      withheld: kappaWithheld(kappa),
    },
    judgeCostUsd,
    runCost,
  };
}
