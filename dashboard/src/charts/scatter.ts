// Wall time against completion tokens, one square per run, coloured by verdict, on log axes (both
// figures span orders of magnitude). uPlot draws axes, grid and drag-to-zoom; the points are painted
// directly on its canvas, which stays fast at 100k runs where a path per point would not.
import uPlot from 'uplot';
import { duration } from '../format.ts';
import { pixelOf } from '../palette.ts';

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
  private data: uPlot.AlignedData | null = null;
  /** Known from the ResizeObserver: reading clientWidth mid-render would force a layout of the whole page. */
  private width = 0;

  /** `sizer` is the card: its width is known even while the card's contents are skipped off-screen. */
  constructor(private readonly host: HTMLElement, sizer: HTMLElement, private readonly height = 300) {
    new ResizeObserver(([entry]) => {
      const width = Math.max(240, Math.floor(entry!.contentRect.width));
      if (width === this.width) return;
      this.width = width;
      if (this.plot) this.plot.setSize({ width, height: this.height });
      else if (this.data) this.create();
    }).observe(sizer);
  }

  update(layers: ScatterLayer[]): void {
    this.data = [null, ...layers.map((l): Facet => [l.x, l.y])] as unknown as uPlot.AlignedData;
    const sameSeries = layers.length === this.layers.length;
    this.layers = layers;
    if (this.plot && sameSeries) this.plot.setData(this.data);
    else if (this.width) this.create();
  }

  private create() {
    this.plot?.destroy();
    this.plot = new uPlot(this.options(), this.data!, this.host);
  }

  /**
   * Every point is written as pixels into the plot area and put back in one call, after uPlot has drawn
   * axes and grid: a fillRect per point is tens of microseconds on a software-rendered canvas.
   */
  private paint(u: uPlot) {
    const { left, top, width, height } = u.bbox;
    if (width < 1 || height < 1) return;
    const image = u.ctx.getImageData(left, top, width, height);
    const pixels = new Uint32Array(image.data.buffer);
    const size = Math.max(2, Math.round(3 * devicePixelRatio));
    const half = size >> 1;
    // Both scales are log10: positions straight from the scale limits, rather than a call per value.
    const { min: x0 = 1, max: x1 = 10 } = u.scales.x!;
    const { min: y0 = 1, max: y1 = 10 } = u.scales.y!;
    const [lx0, ly0] = [Math.log10(x0), Math.log10(y0)];
    const sx = width / (Math.log10(x1) - lx0);
    const sy = height / (Math.log10(y1) - ly0);
    this.layers.forEach((layer, k) => {
      const [xs, ys] = u.data[k + 1] as unknown as Facet;
      const colour = pixelOf(layer.colour);
      for (let i = 0; i < xs.length; i++) {
        const x = Math.round((Math.log10(xs[i]!) - lx0) * sx) - half;
        const y = Math.round(height - (Math.log10(ys[i]!) - ly0) * sy) - half;
        // Points zoomed out of view are skipped; the rest are whole squares written pixel by pixel.
        if (x < 0 || y < 0 || x + size > width || y + size > height) continue;
        for (let dy = 0, row = y * width + x; dy < size; dy++, row += width) {
          for (let dx = 0; dx < size; dx++) pixels[row + dx] = colour;
        }
      }
    });
    u.ctx.putImageData(image, left, top);
  }

  private options(): uPlot.Options {
    return {
      mode: 2,
      width: this.width,
      height: this.height,
      legend: { show: false },
      cursor: { drag: { x: true, y: true, uni: 20 }, points: { show: false } },
      scales: { x: { time: false, distr: 3, log: 10 }, y: { distr: 3, log: 10 } },
      axes: [
        { label: 'completion tokens', splits: logSplits, values: (_u, ticks) => ticks.map((t) => (t === null ? '' : compact.format(t))), size: 40 },
        { label: 'wall time', splits: durationSplits, values: (_u, ticks) => ticks.map((t) => (t === null ? '' : duration(t))), size: 70, gap: 4 },
      ],
      hooks: { draw: [(u) => this.paint(u)] },
      series: [
        {},
        ...this.layers.map(
          (l): uPlot.Series => ({
            label: l.label,
            stroke: l.colour,
            fill: l.colour,
            paths: () => null,
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
