// Curves of a figure against a small whole number (pass@k against k), one per configuration, each point with its
// 95% interval shaded as a band around the curve. uPlot draws axes, lines, points and bands. Colour is never the
// only cue: each curve's name is written beside its last point where it covers no other name, the point under the
// pointer is named in a tip, and the text alternative names every point.
import uPlot from 'uplot';
import type { Interval } from '#analytics/statistics.ts';
import { el } from '../dom.ts';
import { percent } from '../format.ts';

export interface CurvePoint {
  x: number;
  y: number;
  ci: Interval | null;
}

export interface Curve {
  label: string;
  colour: string;
  points: CurvePoint[];
}

const LABEL_FONT = '12px system-ui, sans-serif';
const LABEL_HEIGHT = 14;
/** The least room right of the plot for the curves' names, and the most, as a share of the chart's width. */
const MIN_NAME_ROOM = 60;
const MAX_NAME_SHARE = 0.45;

/** A curve's name in lines: "model" then "· harness" under it, so it needs the width of its longer part only. */
const nameLines = (label: string): string[] => {
  const at = label.lastIndexOf(' · ');
  return at < 0 ? [label] : [label.slice(0, at), label.slice(at + 1)];
};

/** `text` cut with "…" to fit `max` on `ctx`. */
function fitted(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  let keep = text.length;
  while (keep > 1 && ctx.measureText(`${text.slice(0, keep)}…`).width > max) keep--;
  return `${text.slice(0, keep)}…`;
}

/** '#RRGGBB' at the given opacity, for a band under its curve. */
const translucent = (hex: string, alpha: number) => {
  const v = Number.parseInt(hex.slice(1), 16);
  return `rgba(${v >> 16}, ${(v >> 8) & 0xff}, ${v & 0xff}, ${alpha})`;
};

export class CurveChart {
  private plot: uPlot | null = null;
  private curves: Curve[] = [];
  private xs: number[] = [];
  private width = 0;
  private drawStart = 0;
  private readonly tip = el('div', { class: 'curve-tip', hidden: true });
  /** The text alternative: every point with its name, figure and interval. */
  readonly alternative: HTMLElement;

  /** `sizer` is the card: its width is known even while the card's contents are skipped off-screen. */
  constructor(
    private readonly host: HTMLElement,
    sizer: HTMLElement,
    private readonly name: string,
    private readonly axes: { x: string; y: string; pointName: (x: number) => string },
    private readonly height = 260,
  ) {
    this.alternative = el('p', { class: 'sr-only chart-text', id: `${host.id}-text` });
    host.after(this.alternative);
    host.append(this.tip);
    new ResizeObserver(([entry]) => {
      // Two charts side by side in a wide card, one above the other in a narrow one.
      const width = Math.max(240, Math.floor(entry!.contentRect.width / (entry!.contentRect.width > 760 ? 2 : 1)) - 24);
      if (width === this.width) return;
      this.width = width;
      // Made anew, not resized: the room for the names is a share of the width.
      if (this.curves.length) this.create();
    }).observe(sizer);
  }

  update(curves: Curve[]): void {
    this.curves = curves;
    const last = Math.max(1, ...curves.flatMap((c) => c.points.map((p) => p.x)));
    this.xs = Array.from({ length: last }, (_, k) => k + 1);
    this.alternative.textContent =
      `${this.name}. Horizontal axis: ${this.axes.x}; vertical axis: ${this.axes.y}, 0% to 100%. ` +
      curves.map((c) => c.points.map((p) => `${this.pointText(c, p)}.`).join(' ')).join(' ');
    if (this.width) this.create();
  }

  private pointText(c: Curve, p: CurvePoint) {
    const ci = p.ci ? ` (95% CI ${percent(p.ci[0])}–${percent(p.ci[1])})` : '';
    return `${c.label} · ${this.axes.pointName(p.x)} ${percent(p.y)}${ci}`;
  }

  private data(): uPlot.AlignedData {
    const at = (c: Curve, pick: (p: CurvePoint) => number | null) =>
      this.xs.map((x) => {
        const p = c.points.find((q) => q.x === x);
        return p ? pick(p) : null;
      });
    return [
      this.xs,
      ...this.curves.flatMap((c) => [
        at(c, (p) => p.y),
        at(c, (p) => p.ci?.[0] ?? null),
        at(c, (p) => p.ci?.[1] ?? null),
      ]),
    ] as uPlot.AlignedData;
  }

  private create() {
    this.plot?.destroy();
    this.plot = new uPlot(this.options(), this.data(), this.host);
    const canvas = this.host.querySelector('canvas')!;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', this.name);
    canvas.setAttribute('aria-describedby', this.alternative.id);
  }

  /** Each curve's name beside its last point, unless it would cover a name already written (the tip and text name it). */
  private names(u: uPlot) {
    const ctx = u.ctx;
    const ratio = devicePixelRatio || 1;
    ctx.save();
    ctx.font = LABEL_FONT.replace('12px', `${12 * ratio}px`);
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    // Top, left and height of each name written.
    const placed: [number, number, number][] = [];
    for (const c of this.curves) {
      const last = c.points.at(-1);
      if (!last) continue;
      const x = u.valToPos(last.x, 'x', true) + 8 * ratio;
      const lines = nameLines(c.label).map((l) => fitted(ctx, l, u.ctx.canvas.width - x - 2 * ratio));
      const y = u.valToPos(last.y, 'y', true) - ((lines.length - 1) * LABEL_HEIGHT * ratio) / 2;
      const top = y - (LABEL_HEIGHT * ratio) / 2;
      const tall = lines.length * LABEL_HEIGHT * ratio;
      const width = Math.max(...lines.map((l) => ctx.measureText(l).width));
      if (placed.some(([py, px, ph]) => top < py + ph && py < top + tall && Math.abs(px - x) < width)) continue;
      placed.push([top, x, tall]);
      ctx.fillStyle = c.colour;
      lines.forEach((l, k) => ctx.fillText(l, x, y + k * LABEL_HEIGHT * ratio));
    }
    ctx.restore();
  }

  /** The latest drawing's time, as `draw #<host id>` (the benchmark reads it). */
  private measureDraw() {
    const name = `draw #${this.host.id}`;
    performance.clearMeasures(name);
    performance.measure(name, { start: this.drawStart });
  }

  /** Names the point nearest the pointer, in the column of k under it. */
  private point(u: uPlot) {
    const idx = u.cursor.idx;
    const top = u.cursor.top;
    if (idx === null || idx === undefined || top === undefined || top < 0) {
      this.tip.hidden = true;
      return;
    }
    const x = this.xs[idx]!;
    const y = u.posToVal(top, 'y');
    let best: { c: Curve; p: CurvePoint } | null = null;
    for (const c of this.curves) {
      const p = c.points.find((q) => q.x === x);
      if (p && (!best || Math.abs(p.y - y) < Math.abs(best.p.y - y))) best = { c, p };
    }
    if (!best) {
      this.tip.hidden = true;
      return;
    }
    this.tip.textContent = this.pointText(best.c, best.p);
    this.tip.hidden = false;
    this.tip.style.left = `${Math.min(u.valToPos(x, 'x') + u.bbox.left / (devicePixelRatio || 1) + 12, this.width - 220)}px`;
    this.tip.style.top = `${u.valToPos(best.p.y, 'y') + 8}px`;
  }

  /** As wide as the longest line of a name, within MIN_NAME_ROOM and MAX_NAME_SHARE of the chart. */
  private nameRoom(): number {
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = LABEL_FONT;
    const longest = Math.max(0, ...this.curves.flatMap((c) => nameLines(c.label).map((l) => ctx.measureText(l).width)));
    return Math.round(Math.min(Math.max(MIN_NAME_ROOM, longest + 12), this.width * MAX_NAME_SHARE));
  }

  private options(): uPlot.Options {
    const last = this.xs.length;
    return {
      width: this.width,
      height: this.height,
      legend: { show: false },
      padding: [12, this.nameRoom(), 0, 0],
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, range: [0.75, last + 0.25] }, y: { range: [0, 1] } },
      axes: [
        {
          label: this.axes.x,
          splits: () => this.xs,
          values: (_u, ticks) => ticks.map((t) => String(t)),
          size: 36,
        },
        {
          label: this.axes.y,
          splits: () => [0, 0.25, 0.5, 0.75, 1],
          values: (_u, ticks) => ticks.map((t) => percent(t)),
          size: 48,
        },
      ],
      series: [
        {},
        ...this.curves.flatMap((c): uPlot.Series[] => [
          {
            label: c.label,
            stroke: c.colour,
            width: 2,
            points: { show: true, size: 7, fill: c.colour, stroke: c.colour },
          },
          { label: `${c.label} low`, stroke: 'transparent', width: 0, points: { show: false } },
          { label: `${c.label} high`, stroke: 'transparent', width: 0, points: { show: false } },
        ]),
      ],
      bands: this.curves.map((c, k) => ({
        series: [3 * k + 3, 3 * k + 2] as [number, number],
        fill: translucent(c.colour, 0.12),
      })),
      hooks: {
        drawClear: [() => (this.drawStart = performance.now())],
        draw: [(u) => this.names(u), () => this.measureDraw()],
        setCursor: [(u) => this.point(u)],
      },
    };
  }
}
