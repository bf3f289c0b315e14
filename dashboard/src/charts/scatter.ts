// Wall time against completion tokens, one square per run, coloured by verdict, on log axes (both
// figures span orders of magnitude). uPlot draws axes, grid and drag-to-zoom; the points are painted
// directly on its canvas, which stays fast at 100k runs where a path per point would not.
import uPlot from 'uplot';
import { duration } from '../format.ts';

const compact = new Intl.NumberFormat('en-US', { notation: 'compact' });

export interface ScatterLayer {
  label: string;
  colour: string;
  x: Float64Array;
  y: Float64Array;
}

type Facet = [ArrayLike<number>, ArrayLike<number>];

export class ScatterChart {
  private plot: uPlot | null = null;
  private layers: ScatterLayer[] = [];

  constructor(private readonly host: HTMLElement, private readonly height = 300) {
    new ResizeObserver(() => this.plot?.setSize({ width: this.width(), height: this.height })).observe(host);
  }

  update(layers: ScatterLayer[]): void {
    const data = [null, ...layers.map((l): Facet => [l.x, l.y])] as unknown as uPlot.AlignedData;
    if (this.plot && layers.length === this.layers.length) {
      this.layers = layers;
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.layers = layers;
    this.plot = new uPlot(this.options(), data, this.host);
  }

  private width() {
    return Math.max(240, this.host.clientWidth);
  }

  private options(): uPlot.Options {
    const draw = (u: uPlot, seriesIdx: number) => {
      const [xs, ys] = u.data[seriesIdx] as unknown as Facet;
      const ctx = u.ctx;
      const size = Math.max(2, Math.round(3 * devicePixelRatio));
      ctx.save();
      ctx.beginPath();
      ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
      ctx.clip();
      ctx.globalAlpha = 0.75;
      ctx.fillStyle = this.layers[seriesIdx - 1]!.colour;
      for (let i = 0; i < xs.length; i++) {
        ctx.fillRect(Math.round(u.valToPos(xs[i]!, 'x', true) - size / 2), Math.round(u.valToPos(ys[i]!, 'y', true) - size / 2), size, size);
      }
      ctx.restore();
      return null;
    };
    return {
      mode: 2,
      width: this.width(),
      height: this.height,
      legend: { show: false },
      cursor: { drag: { x: true, y: true, uni: 20 }, points: { show: false } },
      scales: { x: { time: false, distr: 3, log: 10 }, y: { distr: 3, log: 10 } },
      axes: [
        { label: 'completion tokens', splits: logSplits, values: (_u, ticks) => ticks.map((t) => (t === null ? '' : compact.format(t))), size: 40 },
        { label: 'wall time', splits: durationSplits, values: (_u, ticks) => ticks.map((t) => (t === null ? '' : duration(t))), size: 70, gap: 4 },
      ],
      series: [
        {},
        ...this.layers.map(
          (l): uPlot.Series => ({
            label: l.label,
            stroke: l.colour,
            fill: l.colour,
            paths: draw,
            facets: [
              { scale: 'x', auto: true },
              { scale: 'y', auto: true },
            ],
          }),
        ),
      ],
    };
  }
}

/** Ticks at 1, 2 and 5 times each power of ten in range, or only the powers when the range spans many decades. */
function logSplits(_u: uPlot, _axis: number, min: number, max: number): number[] {
  if (!(min > 0) || !(max > min)) return [];
  const decades = Math.log10(max / min);
  const steps = decades > 4 ? [1] : decades > 2 ? [1, 3] : [1, 2, 5];
  const splits: number[] = [];
  for (let p = Math.floor(Math.log10(min)); p <= Math.ceil(Math.log10(max)); p++) {
    for (const s of steps) {
      const v = s * 10 ** p;
      if (v >= min && v <= max) splits.push(v);
    }
  }
  return splits;
}

/** Round durations a person reads at a glance: 10 s, 1 min, 10 min, 1 h, 6 h, 1 d, … */
const DURATION_TICKS = [1, 10, 60, 600, 3600, 6 * 3600, 86_400, 7 * 86_400];

function durationSplits(_u: uPlot, _axis: number, min: number, max: number): number[] {
  return DURATION_TICKS.filter((t) => t >= min && t <= max);
}
