// The cost card (docs/contract.md §5–§6): judge spend per day against the daily cap (from `/budget`), cost per resolved
// task per group (from `/stats`, which prices runs with the configuration the cockpit never sees), and the
// resolve rate against the cost per resolved task with the Pareto front marked: the groups no other group
// beats on both at once. Unknown stays unknown: a group whose model has no price, or whose tokens are not
// all known, is named as such and left off the chart, never drawn at $0.
import type { BudgetBody, StatsBody, StatsGroup } from '../../shared/cockpit/contract.ts';
import { barList, legend, type BarRow } from './charts/bars.ts';
import { logSplits, linearTicks } from './charts/ticks.ts';
import { el, fill } from './dom.ts';
import { count, percent, UNKNOWN } from './format.ts';
import { ciText, percentOf } from './intervals.ts';
import { MODEL_COLOUR, ORIGINAL_COLOUR } from './palette.ts';

export interface CostData {
  stats: StatsBody | null;
  budget: BudgetBody | null;
  /** Why the figures could not be read, in the API's own sentence. */
  error: string | null;
}

/** Which cost a chart point stands for. */
export type CostBasis = 'total' | 'run' | 'judge';

export const COST_BASES: { basis: CostBasis; label: string }[] = [
  { basis: 'total', label: 'runs + judging' },
  { basis: 'run', label: 'runs (recorded, else estimated from tokens)' },
  { basis: 'judge', label: 'judging' },
];

/** Days of spend listed, newest first. */
const DAYS_LISTED = 14;

const SVG = 'http://www.w3.org/2000/svg';

/** Dollars with the digits that tell small figures apart: $0.0043, $0.0125, $0.13, $10.66, $1,234. */
const usd = (v: number) =>
  v === 0
    ? '$0'
    : v < 0.0001
      ? '<$0.0001'
      : v < 1
        ? `$${cents(v.toPrecision(3))}`
        : v < 100
          ? `$${v.toFixed(2)}`
          : `$${Math.round(v).toLocaleString('en-US')}`;
/** "0.100" → "0.10", "0.00500" → "0.005": three significant digits, never fewer than cents. */
const cents = (digits: string) =>
  digits.replace(/0+$/, '').replace(/\.(\d?)$/, (_, d: string) => `.${d.padEnd(2, '0')}`);
const UNPRICED = 'unknown: the configuration has no price for this model, or a run’s token counts are unknown';

/** The group's cost of this basis, or null when any part of it is unknown. */
export function costOf(g: StatsGroup, basis: CostBasis): number | null {
  if (basis === 'run') return g.runCostUsd;
  if (basis === 'judge') return g.judgeCostUsd;
  return g.runCostUsd === null || g.judgeCostUsd === null ? null : g.runCostUsd + g.judgeCostUsd;
}

/** Cost per resolved task; null when the cost is unknown or nothing was resolved. */
export const perResolved = (g: StatsGroup, basis: CostBasis): number | null => {
  const cost = costOf(g, basis);
  return cost === null || g.resolved === 0 ? null : cost / g.resolved;
};

/**
 * The points no other point beats: none cheaper (or as cheap) with a rate at least as high, one of the two
 * strictly. Returned in order of cost.
 */
export function paretoFront<T>(points: T[], cost: (p: T) => number, rate: (p: T) => number): T[] {
  const sorted = [...points].sort((a, b) => cost(a) - cost(b) || rate(b) - rate(a));
  const front: T[] = [];
  let best = -Infinity;
  for (const p of sorted) {
    if (rate(p) > best) {
      front.push(p);
      best = rate(p);
    }
  }
  return front;
}

export function renderCost(
  body: HTMLElement,
  foot: HTMLElement,
  data: CostData | null,
  basisSelect: HTMLSelectElement,
  label: (g: StatsGroup) => string,
): void {
  if (!data || (!data.stats && !data.error)) {
    fill(body, el('p', { class: 'muted' }, 'Reading the cost figures…'));
    return;
  }
  if (data.error) {
    fill(body, el('p', { class: 'error', role: 'alert' }, `The cost figures could not be read: ${data.error}`));
    return;
  }
  const groups = data.stats!.groups;
  const basis = chosenBasis(basisSelect, groups);
  fill(
    body,
    el('h3', {}, 'Judge spend per day against the cap'),
    spendPerDay(data.budget),
    el('h3', {}, 'Cost per resolved task'),
    costTable(groups, label),
    el('h3', {}, 'Resolve rate against cost per resolved task'),
    paretoChart(groups, basis, label),
  );
  fill(
    foot,
    'Judge cost: what the judge’s calls cost at the configured price of the judge model. Run cost: what the run’s harness recorded, else estimated from its prompt and completion tokens at the configured price of its model. The figures follow the model, tier, wave and harness filters.',
  );
}

/** The chosen cost basis; untouched by the reader, the first one that puts a group on the chart. */
function chosenBasis(select: HTMLSelectElement, groups: StatsGroup[]): CostBasis {
  if (!select.dataset.touched) {
    const first = COST_BASES.find((b) => groups.some((g) => perResolved(g, b.basis) !== null)) ?? COST_BASES[0]!;
    // Set only when it changes: the browser's autofill answers every assignment with a layout of the page.
    if (select.value !== first.basis) select.value = first.basis;
  }
  return select.value as CostBasis;
}

function spendPerDay(budget: BudgetBody | null): HTMLElement {
  if (!budget) return el('p', { class: 'muted' }, 'No budget figures.');
  const days = budget.days.filter((d) => d.calls > 0).reverse();
  const window = budget.days.length;
  if (!days.length)
    return el('p', { class: 'muted', id: 'spend-none' }, `No judge calls in the last ${count(window)} days.`);
  const costs = budget.days.map((d) => d.costUsd);
  const total = costs.some((c) => c === null) ? null : costs.reduce<number>((s, c) => s + c!, 0);
  const calls = budget.days.reduce((s, d) => s + d.calls, 0);
  const rows = days.slice(0, DAYS_LISTED).map((d): BarRow => ({
    label: d.day,
    lanes: [
      {
        segments: [
          {
            from: 0,
            width: d.cap ? Math.min(1, d.calls / d.cap) : 0,
            colour: MODEL_COLOUR,
            title: `${d.day}: ${count(d.calls)} of ${count(d.cap)} judge calls; ${d.costUsd === null ? UNKNOWN : usd(d.costUsd)}`,
          },
        ],
      },
    ],
    value: d.costUsd === null ? UNKNOWN : usd(d.costUsd),
    note: `${count(d.calls)} of ${count(d.cap)} calls (${percent(d.cap ? d.calls / d.cap : null)} of the daily cap)`,
    unknown: d.costUsd === null,
  }));
  return el(
    'div',
    { id: 'spend-per-day' },
    el(
      'p',
      { class: 'spend-total' },
      `Last ${count(window)} days: ${total === null ? 'spend unknown (a day’s spend was not recorded, or a call had no price)' : usd(total)} over ${count(calls)} judge calls.`,
    ),
    barList(rows, {
      title: 'judge calls, share of the daily cap',
      ticks: [0, 0.25, 0.5, 0.75, 1].map((at) => ({ at, label: percent(at) })),
    }),
    days.length > DAYS_LISTED &&
      el('p', { class: 'muted' }, `${count(days.length - DAYS_LISTED)} earlier days with calls not listed.`),
  );
}

function costTable(groups: StatsGroup[], label: (g: StatsGroup) => string): HTMLElement {
  const money = (v: number | null, why: string) =>
    v === null ? el('td', { class: 'num unknown', title: why }, UNKNOWN) : el('td', { class: 'num' }, usd(v));
  const each = (g: StatsGroup, basis: CostBasis) => {
    const v = perResolved(g, basis);
    if (v !== null) return el('td', { class: 'num' }, usd(v));
    return costOf(g, basis) === null
      ? el('td', { class: 'num unknown', title: UNPRICED }, UNKNOWN)
      : el('td', { class: 'num muted', title: 'No task resolved' }, 'none resolved');
  };
  return el(
    'div',
    { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Cost per group (scrolls sideways)' },
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
            'Group',
            'Resolved',
            'Judge cost',
            'Judge per resolved',
            'Run cost (est.)',
            'Run per resolved',
            'Total per resolved',
          ].map((h, k) => el('th', { scope: 'col', class: k ? 'num' : 'text pinned' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...groups.map((g) =>
          el(
            'tr',
            { 'data-model': g.model },
            el('th', { scope: 'row', class: 'text pinned', title: `${g.model} · ${g.harnessVersion}` }, label(g)),
            el('td', { class: 'num' }, `${count(g.resolved)} of ${count(g.n)}`),
            money(g.judgeCostUsd, 'unknown: the judge model has no price in the configuration'),
            each(g, 'judge'),
            money(g.runCostUsd, UNPRICED),
            each(g, 'run'),
            each(g, 'total'),
          ),
        ),
      ),
    ),
  );
}

/** Resolve rate (with its interval) against cost per resolved task; the Pareto front filled and joined. */
function paretoChart(groups: StatsGroup[], basis: CostBasis, label: (g: StatsGroup) => string): HTMLElement {
  const points = groups.flatMap((g) => {
    const cost = perResolved(g, basis);
    return cost !== null && cost > 0 && g.rate !== null ? [{ g, cost, rate: g.rate }] : [];
  });
  const left = groups.filter((g) => !points.some((p) => p.g === g));
  const unknownNote = left.length
    ? el(
        'p',
        { class: 'muted', id: 'pareto-left-off' },
        `Not on the chart (cost per resolved task unknown, zero or nothing resolved): ${left.map(label).join(', ')}.`,
      )
    : null;
  if (!points.length)
    return el(
      'div',
      { id: 'pareto' },
      el(
        'p',
        { class: 'muted' },
        `No group has a known ${COST_BASES.find((b) => b.basis === basis)!.label} cost per resolved task.`,
      ),
      unknownNote,
    );
  const front = paretoFront(
    points,
    (p) => p.cost,
    (p) => p.rate,
  );
  const W = 640;
  const H = 280;
  const pad = { l: 52, r: 16, t: 12, b: 44 };
  const costs = points.map((p) => p.cost);
  const lo = Math.min(...costs);
  const hi = Math.max(...costs);
  const log = hi / lo > 10;
  const xTicks = log ? logSplits(lo / 1.2, hi * 1.2) : linearTicks(hi * 1.05);
  const [x0, x1] = log
    ? [Math.min(lo / 1.2, xTicks[0] ?? lo), Math.max(hi * 1.2, xTicks[xTicks.length - 1] ?? hi)]
    : [0, xTicks[xTicks.length - 1]!];
  const x = (v: number) =>
    pad.l + (W - pad.l - pad.r) * (log ? Math.log(v / x0) / Math.log(x1 / x0) : (v - x0) / (x1 - x0));
  const y = (r: number) => H - pad.b - (H - pad.t - pad.b) * r;
  const svg = (tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    node.append(...children);
    return node;
  };
  const title = (text: string) => svg('title', {}, text);
  const grid = [
    ...[0, 0.25, 0.5, 0.75, 1].flatMap((r) => [
      svg('line', { x1: pad.l, x2: W - pad.r, y1: y(r), y2: y(r), class: 'grid' }),
      svg('text', { x: pad.l - 6, y: y(r) + 4, 'text-anchor': 'end', class: 'tick' }, percent(r)),
    ]),
    ...xTicks.flatMap((t) => [
      svg('line', { x1: x(t), x2: x(t), y1: pad.t, y2: H - pad.b, class: 'grid' }),
      svg('text', { x: x(t), y: H - pad.b + 15, 'text-anchor': 'middle', class: 'tick' }, usd(t)),
    ]),
    svg(
      'text',
      { x: (pad.l + W - pad.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' },
      `cost per resolved task (${COST_BASES.find((b) => b.basis === basis)!.label}), USD${log ? ', log scale' : ''}`,
    ),
    svg(
      'text',
      {
        x: 12,
        y: (pad.t + H - pad.b) / 2,
        'text-anchor': 'middle',
        class: 'axis-title',
        transform: `rotate(-90 12 ${(pad.t + H - pad.b) / 2})`,
      },
      'resolve rate (judge)',
    ),
  ];
  const frontLine = svg('polyline', {
    points: front.map((p) => `${x(p.cost)},${y(p.rate)}`).join(' '),
    class: 'front',
  });
  const marks = points.map((p) => {
    const onFront = front.includes(p);
    const what = `${label(p.g)}: ${percentOf({ rate: p.rate, n: p.g.n, ci: p.g.ci })}; ${usd(p.cost)} per resolved task${onFront ? '; on the Pareto front' : ''}`;
    return svg(
      'g',
      { class: onFront ? 'point on-front' : 'point', 'data-model': p.g.model },
      title(what),
      p.g.ci ? svg('line', { x1: x(p.cost), x2: x(p.cost), y1: y(p.g.ci[0]), y2: y(p.g.ci[1]), class: 'whisker' }) : '',
      svg('circle', {
        cx: x(p.cost),
        cy: y(p.rate),
        r: 5,
        fill: onFront ? MODEL_COLOUR : '#fff',
        stroke: onFront ? MODEL_COLOUR : ORIGINAL_COLOUR,
      }),
    );
  });
  const chart = svg(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'pareto-svg', role: 'img', 'aria-labelledby': 'pareto-text' },
    ...grid,
    frontLine,
    ...marks,
  );
  return el(
    'div',
    { id: 'pareto' },
    legend([
      { label: 'on the Pareto front (no group is both cheaper and better)', colour: MODEL_COLOUR, shape: 'dot' },
      { label: 'beaten by a front group on cost and rate', colour: ORIGINAL_COLOUR, shape: 'dot' },
    ]),
    chart,
    el(
      'p',
      { class: 'chart-text', id: 'pareto-text' },
      `Pareto front: ${front.map((p) => `${label(p.g)} (${percent(p.rate)}, ${usd(p.cost)} per resolved task, ${ciText({ rate: p.rate, n: p.g.n, ci: p.g.ci })})`).join('; ')}. Vertical lines: 95% intervals of the rates.`,
    ),
    unknownNote,
  );
}
