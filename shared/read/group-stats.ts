// `/stats` computed from a RunTable and a selection of its rows: the same table, filters and groups (one
// model and harness version) the cockpit uses, with every figure from the one statistics module. `/compare`
// is shared/cockpit/compare-groups.ts, which the cockpit's Compare view runs on its own table.
import { counted } from '../cockpit/compare-groups.ts';
import { cohensKappa, proportion } from '../cockpit/statistics.ts';
import { callCostUsd, sumCosts } from '../cost.ts';
import type { ModelPrice } from '../schema/config.ts';
import { groupRuns, rowsByGroup, type Group } from '../cockpit/aggregates.ts';
import { codeOf } from '../cockpit/columns.ts';
import type { StatsGroup } from '../cockpit/contract.ts';
import type { RunTable } from '../cockpit/run-table.ts';

const RESOLVED = codeOf('verdict', 'resolved');
const EXCLUDED = codeOf('verdict', 'excluded');
const ERROR = codeOf('verdict', 'error');
const PASS = codeOf('hiddenTest', 'pass');
const FAIL = codeOf('hiddenTest', 'fail');
const TEST_ERROR = codeOf('hiddenTest', 'error');

export type Prices = Record<string, ModelPrice>;

/** The configured price of a model (an own key only: a model named "constructor" has no price). */
export const priceOf = (prices: Prices, model: string): ModelPrice | null => (Object.hasOwn(prices, model) ? prices[model]! : null);

/** A run's estimated cost from its tokens (the runner sends no cache figures); null when the model is unpriced or a token count is unknown. */
export const runCostUsd = (price: ModelPrice | null, promptTokens: number | null, completionTokens: number | null): number | null =>
  callCostUsd({ inputTokens: promptTokens, outputTokens: completionTokens, cacheWriteTokens: 0, cacheReadTokens: 0 }, price ?? undefined);

const known = (v: number) => (Number.isNaN(v) ? null : v);

export function groupStatistics(table: RunTable, selection: Uint32Array, prices: Prices): StatsGroup[] {
  const grouping = groupRuns(table, selection);
  const rows = rowsByGroup(grouping, selection);
  const stats = grouping.groups.map((group, g) => statisticsOf(table, group, rows[g]!, priceOf(prices, group.model)));
  return stats.sort((a, b) => a.model.localeCompare(b.model) || a.harnessVersion.localeCompare(b.harnessVersion));
}

function statisticsOf(table: RunTable, group: Group, rows: Uint32Array, price: ModelPrice | null): StatsGroup {
  let n = 0;
  let resolved = 0;
  let excluded = 0;
  let error = 0;
  let notJudged = 0;
  let pass = 0;
  let fail = 0;
  let testError = 0;
  const agreement = { resolvedPass: 0, resolvedFail: 0, otherPass: 0, otherFail: 0 };
  for (const i of rows) {
    const verdict = table.codes.verdict[i]!;
    const test = table.codes.hiddenTest[i]!;
    if (counted(verdict)) n++;
    if (verdict === RESOLVED) resolved++;
    else if (verdict === EXCLUDED) excluded++;
    else if (verdict === ERROR) error++;
    else if (verdict === 0) notJudged++;
    if (test === PASS) pass++;
    else if (test === FAIL) fail++;
    else if (test === TEST_ERROR) testError++;
    if (counted(verdict) && (test === PASS || test === FAIL)) {
      if (verdict === RESOLVED) agreement[test === PASS ? 'resolvedPass' : 'resolvedFail']++;
      else agreement[test === PASS ? 'otherPass' : 'otherFail']++;
    }
  }
  const rate = proportion(resolved, n);
  const hidden = proportion(pass, pass + fail);
  const kappa = cohensKappa(agreement);
  const judgeCost = table.numbers.judgeCostUsd;
  const prompt = table.numbers.promptTokens;
  const completion = table.numbers.completionTokens;
  return {
    model: group.model,
    harnessVersion: group.harnessVersion,
    runs: rows.length,
    n,
    resolved,
    rate: rate.rate,
    ci: rate.ci,
    excluded,
    error,
    notJudged,
    hidden: { n: hidden.n, pass, rate: hidden.rate, ci: hidden.ci, error: testError },
    agreement: { n: kappa.n, kappa: kappa.kappa, ci: kappa.ci, table: agreement },
    judgeCostUsd: sumCosts(Array.from(rows, (i) => known(judgeCost[i]!))),
    runCostUsd: price ? sumCosts(Array.from(rows, (i) => runCostUsd(price, known(prompt[i]!), known(completion[i]!)))) : null,
  };
}
