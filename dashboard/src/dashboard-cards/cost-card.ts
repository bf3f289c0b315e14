// The cost per resolved task card (docs/contract.md §6 "Cost"), from `/stats`, which prices runs with the
// configuration the cockpit never sees: per configuration the priced runs (k of n), their total, median and mean
// cost, the cost per resolved task and the resolved tasks per $10, on the outcome in view; and the resolve
// rate against the mean run cost per task (or the cost per resolved task) with the Pareto front. Unknown
// stays unknown: a configuration with no priced run reads "unknown" and is named beside the chart, never
// drawn at $0; one priced in part says "priced k of n" wherever its figures appear.
import type { StatsBody, StatsGroup } from '#analytics/contract.ts';
import type { Card, CardCsv } from './card.ts';
import { OUTCOME_LABELS } from '#analytics/statistics.ts';
import { el, fill, nameText, sidewaysScroll } from '../widgets/dom.ts';
import { count, num, UNKNOWN, usd } from '../widgets/format.ts';
import { pendingOrFailed, type CostData } from './judge-spend-card.ts';
import { paretoChart, type ParetoPoint } from './pareto-chart.ts';

/** Which cost a point stands for. */
export type CostBasis = 'per-task' | 'per-resolved';

export const COST_BASES: { basis: CostBasis; label: string }[] = [
  { basis: 'per-task', label: 'mean run cost per task' },
  { basis: 'per-resolved', label: 'cost per resolved task' },
];

const UNPRICED =
  'unknown: no run recorded its cost, and the configuration has no price for this model (or its token counts are unknown)';

const pricedNote = (g: StatsGroup) =>
  g.runCost.priced < g.runCost.runs ? `priced ${count(g.runCost.priced)} of ${count(g.runCost.runs)}` : null;

const costOn = (g: StatsGroup, basis: CostBasis) =>
  basis === 'per-task' ? g.runCost.meanUsd : g.runCost.perResolvedUsd;

export function renderCost(
  c: Pick<Card, 'body' | 'foot'>,
  data: CostData | null,
  basisSelect: HTMLSelectElement,
  label: (g: StatsGroup) => string,
): CardCsv | null {
  if (pendingOrFailed(c.body, data)) return null;
  const stats = data!.stats!;
  const basis = basisSelect.value as CostBasis;
  const csv: CardCsv = () => ({
    columns: [
      'configuration',
      'model',
      'harnessVersion',
      'outcome',
      'resolved',
      'n',
      'rate',
      'ciLow',
      'ciHigh',
      'runs',
      'pricedRuns',
      'totalUsd',
      'meanRunUsd',
      'medianRunUsd',
      'pricedResolved',
      'perResolvedUsd',
      'resolvedPer10Usd',
    ],
    rows: stats.groups.map((g) => [
      label(g),
      g.model,
      g.harnessVersion,
      stats.outcome,
      g.resolved,
      g.n,
      g.rate,
      g.ci?.[0] ?? null,
      g.ci?.[1] ?? null,
      g.runCost.runs,
      g.runCost.priced,
      g.runCost.totalUsd,
      g.runCost.meanUsd,
      g.runCost.medianUsd,
      g.runCost.resolved,
      g.runCost.perResolvedUsd,
      g.runCost.resolvedPer10Usd,
    ]),
  });
  fill(
    c.body,
    costTable(stats, label),
    el(
      'h3',
      {},
      `Resolve rate · ${OUTCOME_LABELS[stats.outcome]} against ${COST_BASES.find((b) => b.basis === basis)!.label}`,
    ),
    chartOf(stats, basis, label),
  );
  fill(
    c.foot,
    'Run cost: what the run’s harness recorded, else estimated from its prompt and completion tokens at the configured price of its model; ' +
      'only runs whose cost is known (“priced”) count, and “priced k of n” says when that is not all of them. Cost per resolved task = the ' +
      'priced runs’ cost ÷ how many of those same runs resolved their task. The figures follow the model, tier, wave, harness and repository filters.',
  );
  return csv;
}

function chartOf(stats: StatsBody, basis: CostBasis, label: (g: StatsGroup) => string): HTMLElement {
  const points: ParetoPoint[] = [];
  const left: string[] = [];
  for (const g of stats.groups) {
    const cost = costOn(g, basis);
    if (cost === null || g.rate === null) {
      const why = g.runCost.priced === 0 ? 'no priced run' : g.rate === null ? 'no rate' : 'nothing priced resolved';
      left.push(`${label(g)} (${why})`);
      continue;
    }
    points.push({ label: label(g), model: g.model, cost, rate: g.rate, n: g.n, ci: g.ci, note: pricedNote(g) });
  }
  const unknownNote =
    left.length > 0 && el('p', { class: 'muted', id: 'pareto-left-off' }, `Not on the chart: ${left.join(', ')}.`);
  if (!points.length)
    return el(
      'div',
      { id: 'pareto' },
      el(
        'p',
        { class: 'muted' },
        'No configuration has a known run cost: the configuration prices none of their models.',
      ),
      unknownNote,
    );
  const chart = paretoChart(points, {
    title: `${COST_BASES.find((b) => b.basis === basis)!.label}, USD`,
    rateTitle: `resolve rate · ${OUTCOME_LABELS[stats.outcome]}`,
    money: usd,
  });
  if (unknownNote) chart.append(unknownNote);
  return chart;
}

function costTable(stats: StatsBody, label: (g: StatsGroup) => string): HTMLElement {
  const outcome = OUTCOME_LABELS[stats.outcome];
  const unknown = (why = UNPRICED) => el('td', { class: 'num unknown', title: why }, UNKNOWN);
  const money = (v: number | null, g: StatsGroup, why?: string) =>
    v === null ? unknown(why) : el('td', { class: 'num', title: pricedNote(g) ?? '' }, usd(v));
  return sidewaysScroll(
    'Run cost per configuration',
    el(
      'table',
      { class: 'figures cost-table', id: 'cost-table' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...[
            'Configuration',
            'Priced runs',
            'Run cost (total)',
            'Median run cost',
            'Mean per task',
            `Priced runs resolved · ${outcome}`,
            `Cost per resolved task · ${outcome}`,
            'Resolved per $10',
          ].map((h, k) => el('th', { scope: 'col', class: k ? 'num' : 'text pinned' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...stats.groups.map((g) => {
          const r = g.runCost;
          const none = r.priced === 0;
          return el(
            'tr',
            { 'data-model': g.model, 'data-harness': g.harnessVersion },
            el(
              'th',
              { scope: 'row', class: 'text pinned', title: `${g.model} · ${g.harnessVersion}` },
              nameText(label(g)),
            ),
            el(
              'td',
              { class: `num${r.priced < r.runs ? ' partial' : ''}`, 'data-cell': 'priced' },
              none
                ? 'none'
                : r.priced === r.runs
                  ? `all ${count(r.runs)}`
                  : `priced ${count(r.priced)} of ${count(r.runs)}`,
            ),
            money(r.totalUsd, g),
            money(r.medianUsd, g),
            money(r.meanUsd, g),
            none
              ? el('td', { class: 'num muted', title: UNPRICED }, 'no priced run')
              : el('td', { class: 'num' }, `${count(r.resolved)} of ${count(r.priced)}`),
            none
              ? unknown()
              : r.perResolvedUsd === null
                ? el('td', { class: 'num muted', title: 'No priced run resolved its task' }, 'none resolved')
                : money(r.perResolvedUsd, g),
            none
              ? unknown()
              : r.resolvedPer10Usd === null
                ? el('td', { class: 'num muted', title: 'The priced runs cost nothing' }, 'free')
                : el('td', { class: 'num', title: pricedNote(g) ?? '' }, num(r.resolvedPer10Usd, 1)),
          );
        }),
      ),
    ),
  );
}
