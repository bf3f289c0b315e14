// The model × issue matrix: one row per (model, harness version), one column per task in published
// order, one cell per run coloured by its verdict. Drawn on a canvas (100k cells would be 100k DOM nodes);
// labels are canvas text, the tooltip is textContent, so no run string is ever parsed as HTML.
import { el } from '../dom.ts';

export interface MatrixModel {
  rowLabels: string[];
  columnCount: number;
  /** Wave of each column (NaN when the task has no record), for the wave bands along the top. */
  columnWave: Float64Array;
  /** Table row index of the run in each cell (row-major), -1 for no run. */
  cells: Int32Array;
  colourOf(run: number): string;
  describe(run: number, column: number): string;
}

const LABEL_WIDTH = 210;
const HEADER = 18;
const CELL_HEIGHT = 14;

export class MatrixChart {
  private readonly canvas = el('canvas', { class: 'matrix-canvas', role: 'img' });
  private readonly tip = el('div', { class: 'matrix-tip', hidden: true });
  private readonly scroller = el('div', { class: 'matrix-scroll' }, this.canvas);
  private model: MatrixModel | null = null;
  private cellWidth = 4;

  constructor(host: HTMLElement, private readonly onOpen: (run: number) => void) {
    host.append(this.scroller, this.tip);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => (this.tip.hidden = true));
    this.canvas.addEventListener('click', (e) => {
      const run = this.runAt(e);
      if (run !== null) this.onOpen(run);
    });
    new ResizeObserver(() => this.model && this.draw(this.model)).observe(host);
  }

  update(model: MatrixModel): void {
    this.model = model;
    this.draw(model);
  }

  private draw(m: MatrixModel) {
    const available = this.scroller.clientWidth - LABEL_WIDTH - 4;
    this.cellWidth = Math.max(3, Math.min(14, Math.floor(available / Math.max(1, m.columnCount))));
    const width = LABEL_WIDTH + this.cellWidth * m.columnCount + 2;
    const height = HEADER + CELL_HEIGHT * m.rowLabels.length + 2;
    const ratio = devicePixelRatio || 1;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.canvas.setAttribute('aria-label', `Verdict of each run: ${m.rowLabels.length} models by ${m.columnCount} tasks`);
    const ctx = this.canvas.getContext('2d')!;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';

    // Wave bands: a label where each wave starts and a faint rule between waves.
    ctx.fillStyle = '#555';
    let previous = NaN;
    for (let c = 0; c < m.columnCount; c++) {
      const wave = m.columnWave[c]!;
      if (Object.is(wave, previous) || (Number.isNaN(wave) && Number.isNaN(previous))) continue;
      const x = LABEL_WIDTH + c * this.cellWidth;
      ctx.fillText(Number.isNaN(wave) ? 'no task record' : `wave ${wave}`, x + 2, HEADER / 2);
      ctx.fillRect(x, 2, 1, height - 2);
      previous = wave;
    }

    const gap = this.cellWidth >= 5 ? 1 : 0;
    for (let r = 0; r < m.rowLabels.length; r++) {
      const y = HEADER + r * CELL_HEIGHT;
      ctx.fillStyle = '#222';
      ctx.fillText(ellipsize(ctx, m.rowLabels[r]!, LABEL_WIDTH - 8), 2, y + CELL_HEIGHT / 2);
      ctx.fillStyle = '#f1f1f1';
      ctx.fillRect(LABEL_WIDTH, y, this.cellWidth * m.columnCount, CELL_HEIGHT - 1);
      const base = r * m.columnCount;
      for (let c = 0; c < m.columnCount; c++) {
        const run = m.cells[base + c]!;
        if (run < 0) continue;
        ctx.fillStyle = m.colourOf(run);
        ctx.fillRect(LABEL_WIDTH + c * this.cellWidth, y, this.cellWidth - gap, CELL_HEIGHT - 1);
      }
    }
  }

  private cellAt(e: MouseEvent): { row: number; column: number } | null {
    if (!this.model) return null;
    const box = this.canvas.getBoundingClientRect();
    const column = Math.floor((e.clientX - box.left - LABEL_WIDTH) / this.cellWidth);
    const row = Math.floor((e.clientY - box.top - HEADER) / CELL_HEIGHT);
    if (column < 0 || column >= this.model.columnCount || row < 0 || row >= this.model.rowLabels.length) return null;
    return { row, column };
  }

  private runAt(e: MouseEvent): number | null {
    const cell = this.cellAt(e);
    if (!cell || !this.model) return null;
    const run = this.model.cells[cell.row * this.model.columnCount + cell.column]!;
    return run < 0 ? null : run;
  }

  private hover(e: MouseEvent) {
    const cell = this.cellAt(e);
    if (!cell || !this.model) {
      this.tip.hidden = true;
      this.canvas.style.cursor = '';
      return;
    }
    const run = this.model.cells[cell.row * this.model.columnCount + cell.column]!;
    this.canvas.style.cursor = run >= 0 ? 'pointer' : '';
    this.tip.textContent = run >= 0 ? this.model.describe(run, cell.column) : `${this.model.rowLabels[cell.row]}: no run of this task`;
    this.tip.hidden = false;
    const host = this.tip.parentElement!.getBoundingClientRect();
    this.tip.style.left = `${Math.min(e.clientX - host.left + 12, host.width - 320)}px`;
    this.tip.style.top = `${e.clientY - host.top + 14}px`;
  }
}

function ellipsize(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, mid) + '…').width <= max) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + '…';
}
