// Wall time against completion tokens, one square per run, coloured by verdict, on log axes (both
// figures span orders of magnitude). uPlot draws axes, grid and drag-to-zoom; the points are painted
// directly on its canvas, which stays fast at 100k runs where a path per point would not. A canvas says
// nothing to a screen reader, so the chart is named and described by a text alternative: what is plotted
// and the ticks of both axes as drawn.
import uPlot from 'uplot';
import { el } from '../dom.ts';
import { durationTick } from '../format.ts';
import { pixelOf } from '../palette.ts';
import { durationSplits, logSplits } from './ticks.ts';

const compact = new Intl.NumberFormat('en-US', { notation: 'compact' });

export interface ScatterLayer {
  label: string;
  colour: string;
  x: Float32Array;
  y: Float32Array;
}

type Facet = [ArrayLike<number>, ArrayLike<number>];

export class ScatterChart {
  private plot: uPlot | null = null;
  private layers: ScatterLayer[] = [];
  private data: uPlot.AlignedData | null = null;
  /** Known from the ResizeObserver: reading clientWidth mid-render would force a layout of the whole page. */
  private width = 0;
  /** The text alternative: the summary given with the data, then both axes with the ticks last drawn. */
  readonly alternative: HTMLElement;
  private summary = '';
  private readonly drawnTicks: string[][] = [[], []];

  /** `sizer` is the card: its width is known even while the card's contents are skipped off-screen. */
  constructor(
    private readonly host: HTMLElement,
    sizer: HTMLElement,
    private readonly name: string,
    private readonly height = 300,
  ) {
    this.alternative = el('p', { class: 'sr-only chart-text', id: `${host.id}-text` });
    host.after(this.alternative);
    new ResizeObserver(([entry]) => {
      const width = Math.max(240, Math.floor(entry!.contentRect.width));
      if (width === this.width) return;
      this.width = width;
      if (this.plot) this.plot.setSize({ width, height: this.height });
      else if (this.data) this.create();
    }).observe(sizer);
  }

  update(layers: ScatterLayer[], summary: string): void {
    this.summary = summary;
    this.data = [null, ...layers.map((l): Facet => [l.x, l.y])] as unknown as uPlot.AlignedData;
    const sameSeries = layers.length === this.layers.length;
    this.layers = layers;
    if (this.plot && sameSeries) this.plot.setData(this.data);
    else if (this.width) this.create();
  }

  private create() {
    this.plot?.destroy();
    this.plot = new uPlot(this.options(), this.data!, this.host);
    const canvas = this.host.querySelector('canvas')!;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', this.name);
    canvas.setAttribute('aria-describedby', this.alternative.id);
  }

  private describe() {
    const [x, y] = this.drawnTicks;
    this.alternative.textContent =
      `${this.summary} Horizontal axis: completion tokens per run, log ` +
      `scale, ticks at ${x!.join(', ')}. Vertical axis: wall time per run, log scale, ticks at ${y!.join(', ')}.`;
  }

  /** Labels every tick (and keeps them for the text alternative). */
  private tickValues(axis: number, format: (v: number) => string) {
    return (_u: uPlot, ticks: number[]) => (this.drawnTicks[axis] = ticks.map((t) => (t === null ? '' : format(t))));
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
      // uPlot's own log axes blank every tick that is not a power of ten (1 min, 10 min and 1 h would
      // never show): the splits are chosen here and every one of them is labelled.
      axes: [
        {
          label: 'completion tokens per run (log scale)',
          splits: (_u, _a, min, max) => logSplits(min, max),
          filter: (_u, splits) => splits,
          values: this.tickValues(0, (t) => compact.format(t)),
          size: 40,
        },
        {
          label: 'wall time per run (log scale)',
          splits: (_u, _a, min, max) => durationSplits(min, max),
          filter: (_u, splits) => splits,
          values: this.tickValues(1, durationTick),
          size: 70,
          gap: 4,
        },
      ],
      hooks: { draw: [(u) => this.paint(u), () => this.describe()] },
      series: [
        {},
        ...this.layers.map((l): uPlot.Series => ({
          label: l.label,
          stroke: l.colour,
          fill: l.colour,
          paths: () => null,
          facets: [
            { scale: 'x', auto: true },
            { scale: 'y', auto: true },
          ],
        })),
      ],
    };
  }
}
