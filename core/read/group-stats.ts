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
  runCostFigure,
  type ResolveOutcome,
} from '#analytics/statistics.ts';
import { callCostUsd, sumCosts } from '../cost.ts';
import type { ModelPrice } from '#schema/config.ts';
import { hiddenTestRate, resolveRate } from '#analytics/rate-figures.ts';
import { countRuns } from '#analytics/run-counts.ts';
import { groupRuns, rowsByGroup, type Group } from '#analytics/run-grouping.ts';
import type { StatsGroup } from '#analytics/contract.ts';
import type { RunTable } from '#analytics/run-table.ts';
import { reliabilityOf, samplesFigure, type ClusterUnit, type TaskSamples } from '#analytics/reliability.ts';
import { sampleCountsOf, samplesOfGroup } from '#analytics/task-samples.ts';

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
  const stats = grouping.groups.map((group, g) =>
    statisticsOf(table, group, rows[g]!, priceOf(prices, group.model), outcome, samplesOfGroup(counts, g), cluster),
  );
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

function statisticsOf(
  table: RunTable,
  group: Group,
  rows: Uint32Array,
  price: ModelPrice | null,
  outcome: ResolveOutcome,
  tasks: readonly TaskSamples[],
  cluster: ClusterUnit,
): Omit<StatsGroup, 'rank'> {
  const counts = countRuns(table, rows);
  const classOf = outcomeReader(table, outcome);
  const resolved = outcomeRate(counts, outcome);
  const resolve = resolveRate(counts.verdicts);
  const hidden = hiddenTestRate(counts.hiddenTests);
  const kappa = cohensKappa(counts.agreement);
  const reliability = samplesFigure(reliabilityOf(tasks, cluster));
  const judgeCost = table.numbers.judgeCostUsd;
  const prompt = table.numbers.promptTokens;
  const completion = table.numbers.completionTokens;
  const recorded = table.numbers.costUsd;
  return {
    model: group.model,
    harnessVersion: group.harnessVersion,
    runs: counts.runs,
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
