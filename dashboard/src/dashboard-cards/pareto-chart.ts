// Resolve rate against cost, one point per configuration with its 95% interval as a whisker, the Pareto front (the
// configurations no other beats on both) drawn through its points. Each point carries its configuration's
// name beside it where the name fits without covering another; every name is also in its point's tooltip
// and in the table beside the chart, which lists every point as text.
import { paretoFront } from '#analytics/statistics.ts';
import type { Interval } from '#analytics/statistics.ts';
import { legend } from '../widgets/charts/bars.ts';
import { linearTicks, logSplits } from '../widgets/charts/ticks.ts';
import { el, nameText } from '../widgets/dom.ts';
import { count, percent } from '../widgets/format.ts';
import { percentOf } from '../widgets/intervals.ts';
import { MODEL_COLOUR, ORIGINAL_COLOUR } from '../widgets/palette.ts';

export interface ParetoPoint {
  label: string;
  model: string;
  cost: number;
  rate: number;
  n: number;
  ci: Interval | null;
  /** Said beside the cost when it stands for only some runs: "priced 12 of 40". */
  note: string | null;
}

const SVG = 'http://www.w3.org/2000/svg';
const W = 640;
const H = 300;
const PAD = { l: 52, r: 16, t: 14, b: 44 };
/** Label text: 11 px system-ui, about 6.2 px a character; a box that covers no other label or point. */
const CHAR_WIDTH = 6.2;
const LABEL_HEIGHT = 13;

type Box = { x0: number; y0: number; x1: number; y1: number };
const overlaps = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

export function paretoChart(
  points: ParetoPoint[],
  axis: { title: string; rateTitle: string; money: (v: number) => string },
): HTMLElement {
  const front = paretoFront(
    points,
    (p) => p.cost,
    (p) => p.rate,
  );
  const costs = points.map((p) => p.cost);
  const lo = Math.min(...costs);
  const hi = Math.max(...costs);
  const log = lo > 0 && hi / lo > 10;
  const xTicks = log ? logSplits(lo / 1.2, hi * 1.2) : linearTicks(hi * 1.05);
  const [x0, x1] = log
    ? [Math.min(lo / 1.2, xTicks[0] ?? lo), Math.max(hi * 1.2, xTicks[xTicks.length - 1] ?? hi)]
    : [0, xTicks[xTicks.length - 1] || 1];
  const x = (v: number) =>
    PAD.l + (W - PAD.l - PAD.r) * (log ? Math.log(v / x0) / Math.log(x1 / x0) : (v - x0) / (x1 - x0));
  const y = (r: number) => H - PAD.b - (H - PAD.t - PAD.b) * r;
  const grid = [
    ...[0, 0.25, 0.5, 0.75, 1].flatMap((r) => [
      svg('line', { x1: PAD.l, x2: W - PAD.r, y1: y(r), y2: y(r), class: 'grid' }),
      svg('text', { x: PAD.l - 6, y: y(r) + 4, 'text-anchor': 'end', class: 'tick' }, percent(r)),
    ]),
    ...xTicks.flatMap((t) => [
      svg('line', { x1: x(t), x2: x(t), y1: PAD.t, y2: H - PAD.b, class: 'grid' }),
      svg('text', { x: x(t), y: H - PAD.b + 15, 'text-anchor': 'middle', class: 'tick' }, axis.money(t)),
    ]),
    svg(
      'text',
      { x: (PAD.l + W - PAD.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' },
      `${axis.title}${log ? ', log scale' : ''}`,
    ),
    svg(
      'text',
      {
        x: 12,
        y: (PAD.t + H - PAD.b) / 2,
        'text-anchor': 'middle',
        class: 'axis-title',
        transform: `rotate(-90 12 ${(PAD.t + H - PAD.b) / 2})`,
      },
      axis.rateTitle,
    ),
  ];
  const frontLine = svg('polyline', {
    points: front.map((p) => `${x(p.cost)},${y(p.rate)}`).join(' '),
    class: 'front',
  });
  const describe = (p: ParetoPoint) =>
    `${p.label}: ${percentOf(p)}; ${axis.money(p.cost)}${p.note ? ` (${p.note})` : ''}${front.includes(p) ? '; on the Pareto front' : ''}`;
  const marks = points.map((p) => {
    const onFront = front.includes(p);
    return svg(
      'g',
      { class: onFront ? 'point on-front' : 'point', 'data-model': p.model, 'data-label': p.label },
      svg('title', {}, describe(p)),
      p.ci ? svg('line', { x1: x(p.cost), x2: x(p.cost), y1: y(p.ci[0]), y2: y(p.ci[1]), class: 'whisker' }) : '',
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
    ...labels(points, x, y),
  );
  return el(
    'div',
    { id: 'pareto' },
    legend([
      {
        label: 'on the Pareto front (no configuration is both cheaper and better)',
        colour: MODEL_COLOUR,
        shape: 'dot',
      },
      { label: 'beaten by a front configuration on cost and rate', colour: ORIGINAL_COLOUR, shape: 'dot' },
    ]),
    el('div', { class: 'pareto-figure' }, chart, pointsTable(points, front, axis.money)),
    el(
      'p',
      { class: 'chart-text', id: 'pareto-text' },
      `Pareto front: ${front.map(describe).join('; ')}. Vertical lines: 95% intervals of the rates.`,
    ),
  );
}

/**
 * A name beside each point, placed right or left of it, or above or below it (centred, ending or starting at it),
 * whichever first covers no point, no whisker and no name already placed and stays inside the plot; a name that
 * fits nowhere is left to the tooltip and table.
 */
function labels(points: ParetoPoint[], x: (v: number) => number, y: (r: number) => number): SVGElement[] {
  const dots: Box[] = points.map((p) => ({
    x0: x(p.cost) - 6,
    y0: y(p.rate) - 6,
    x1: x(p.cost) + 6,
    y1: y(p.rate) + 6,
  }));
  // A whisker, its own point's too: a name across an interval's line reads as part of it.
  const whiskers: Box[] = points.flatMap((p) =>
    p.ci ? [{ x0: x(p.cost) - 1, y0: y(p.ci[1]), x1: x(p.cost) + 1, y1: y(p.ci[0]) }] : [],
  );
  const placed: Box[] = [...whiskers];
  // Front and better-rated points first: their names matter most.
  const order = [...points.keys()].sort((a, b) => points[b]!.rate - points[a]!.rate);
  const out: SVGElement[] = [];
  for (const k of order) {
    const p = points[k]!;
    const [cx, cy] = [x(p.cost), y(p.rate)];
    const width = p.label.length * CHAR_WIDTH;
    // Beside the point, then above and below it and its whisker: centred, ending at it, or starting at it.
    const [top, bottom] = [Math.min(cy - 5, p.ci ? y(p.ci[1]) : cy), Math.max(cy + 5, p.ci ? y(p.ci[0]) : cy)];
    const above = { y0: top - 4 - LABEL_HEIGHT, y1: top - 4, ty: top - 7 };
    const below = { y0: bottom + 4, y1: bottom + 4 + LABEL_HEIGHT, ty: bottom + 14 };
    const options: (Box & { anchor: string; tx: number; ty: number })[] = [
      { x0: cx + 8, y0: cy - 7, x1: cx + 8 + width, y1: cy + 6, anchor: 'start', tx: cx + 8, ty: cy + 4 },
      { x0: cx - 8 - width, y0: cy - 7, x1: cx - 8, y1: cy + 6, anchor: 'end', tx: cx - 8, ty: cy + 4 },
      ...[above, below].flatMap((row) => [
        { ...row, x0: cx - width / 2, x1: cx + width / 2, anchor: 'middle', tx: cx },
        { ...row, x0: cx - width, x1: cx, anchor: 'end', tx: cx },
        { ...row, x0: cx, x1: cx + width, anchor: 'start', tx: cx },
      ]),
    ];
    const fits = options.find(
      (o) =>
        o.x0 >= PAD.l &&
        o.x1 <= W - PAD.r &&
        o.y0 >= PAD.t - 4 &&
        o.y1 <= H - PAD.b &&
        !placed.some((b) => overlaps(o, b)) &&
        !dots.some((d, j) => j !== k && overlaps(o, d)),
    );
    if (!fits) continue;
    placed.push(fits);
    out.push(
      svg(
        'text',
        { x: fits.tx, y: fits.ty, 'text-anchor': fits.anchor, class: 'point-label', 'data-label': p.label },
        p.label,
      ),
    );
  }
  return out;
}

/** Every point as text: the chart's accessible twin, and where a name the chart had no room for is read. */
function pointsTable(points: ParetoPoint[], front: ParetoPoint[], money: (v: number) => string): HTMLElement {
  const rows = [...points].sort((a, b) => a.cost - b.cost || b.rate - a.rate);
  return el(
    'table',
    { class: 'figures pareto-table', id: 'pareto-table', 'aria-label': 'Every point of the chart' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['Configuration', 'Rate (95% CI, n)', 'Cost', 'Front'].map((h, k) =>
          el('th', { scope: 'col', class: k ? 'num' : 'text' }, h),
        ),
      ),
    ),
    el(
      'tbody',
      {},
      ...rows.map((p) =>
        el(
          'tr',
          { 'data-label': p.label },
          el('th', { scope: 'row', class: 'text', title: p.label }, nameText(p.label)),
          el(
            'td',
            { class: 'num' },
            `${percent(p.rate)} (${p.ci ? `${percent(p.ci[0])}–${percent(p.ci[1])}, ` : ''}n=${count(p.n)})`,
          ),
          el('td', { class: 'num', title: p.note ?? '' }, `${money(p.cost)}${p.note ? ` (${p.note})` : ''}`),
          el('td', { class: 'num' }, front.includes(p) ? 'front' : ''),
        ),
      ),
    ),
  );
}
