// The model × issue matrix: a row per (model, harness version), a column per task in published order, a cell per
// run coloured by its verdict, drawn on a canvas (100k cells would be 100k DOM nodes); labels are canvas text and
// the tooltip textContent, so no run string is parsed as HTML. The canvas is as wide as the card and paints the
// columns in view over a scrolling track. One focusable cursor over the canvas (a single Tab stop) walks the cells
// with the arrow keys, Home and End; Enter opens the run; its accessible name says where it is.
import { el } from '../dom.ts';
import { pixelOf } from '../palette.ts';

export interface MatrixModel {
  rowLabels: string[];
  columnCount: number;
  /** Wave of each column (NaN when the task has no record), for the wave bands along the top. */
  columnWave: Float64Array;
  /** Table row index of the run in each cell (row-major), -1 for no run. */
  cells: Int32Array;
  /** Colour index into `palette` of each cell's run. */
  colours: Uint8Array;
  /** 1 where the cell is marked (a dark band across its top: the judge and the tests disagree). */
  marks?: Uint8Array;
  palette: string[];
  /** What the colours show, for the canvas's accessible name. */
  name: string;
  describe(run: number, column: number): string;
}

/** The row names' column: at least this wide, and as wide as the longest name where the cells keep MIN_CELL. */
const MIN_LABEL_WIDTH = 210;
const MIN_CELL = 6;
const HEADER = 18;
const CELL_HEIGHT = 14;
const EMPTY = '#f1f1f1';
/** The band across the top of a marked cell. */
export const MARK_COLOUR = '#1d1f23';
/** The marked band's height, in CSS pixels. */
const MARK_HEIGHT = 3;
const FONT = '12px system-ui, sans-serif';

export class MatrixChart {
  private readonly canvas = el('canvas', { class: 'matrix-canvas', role: 'img' });
  private readonly track = el('div', { class: 'matrix-track' }, this.canvas);
  private readonly scroller = el('div', { class: 'matrix-scroll' }, this.track);
  private readonly tip = el('div', { class: 'matrix-tip', hidden: true });
  private readonly cursor = el('button', { class: 'matrix-cursor', type: 'button' });
  private at = { row: 0, column: 0 };
  private model: MatrixModel | null = null;
  private cellWidth = 4;
  private labelWidth = MIN_LABEL_WIDTH;
  /** Known from the ResizeObserver: reading clientWidth mid-render would force a layout of the whole page. */
  private available = 0;
  private paintQueued = false;
  /** Kept from scroll events: reading scrollLeft mid-render would force a layout of the whole page. */
  private scrollLeft = 0;
  private labels: string[] = [];

  /** `sizer` is the card: its width is known even while the card's contents are skipped off-screen. */
  constructor(
    host: HTMLElement,
    sizer: HTMLElement,
    private readonly onOpen: (run: number) => void,
    alternative: string,
  ) {
    host.append(this.scroller, this.cursor, this.tip);
    this.canvas.setAttribute('aria-describedby', alternative);
    this.cursor.addEventListener('keydown', (e) => this.key(e));
    this.cursor.addEventListener('click', () => {
      const run = this.runAtCursor();
      if (run !== null) this.onOpen(run);
    });
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => (this.tip.hidden = true));
    this.canvas.addEventListener('click', (e) => {
      const run = this.runAt(e);
      if (run !== null) this.onOpen(run);
    });
    this.scroller.addEventListener('scroll', () => {
      this.scrollLeft = this.scroller.scrollLeft;
      if (this.paintQueued) return;
      this.paintQueued = true;
      requestAnimationFrame(() => {
        this.paintQueued = false;
        if (this.model) this.paint(this.model);
      });
    });
    new ResizeObserver(([entry]) => {
      const width = Math.floor(entry!.contentRect.width);
      if (width === this.available) return;
      this.available = width;
      if (this.model) this.layout(this.model);
    }).observe(sizer);
  }

  update(model: MatrixModel): void {
    this.model = model;
    this.at = {
      row: Math.min(this.at.row, Math.max(0, model.rowLabels.length - 1)),
      column: Math.min(this.at.column, Math.max(0, model.columnCount - 1)),
    };
    if (this.available) this.layout(model);
  }

  private runAtCursor(): number | null {
    if (!this.model || !this.model.columnCount) return null;
    const run = this.model.cells[this.at.row * this.model.columnCount + this.at.column]!;
    return run < 0 ? null : run;
  }

  private key(e: KeyboardEvent) {
    const m = this.model;
    if (!m || !m.columnCount || !m.rowLabels.length) return;
    const { row, column } = this.at;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [row, column - 1],
      ArrowRight: [row, column + 1],
      ArrowUp: [row - 1, column],
      ArrowDown: [row + 1, column],
      Home: [row, 0],
      End: [row, m.columnCount - 1],
      PageUp: [0, column],
      PageDown: [m.rowLabels.length - 1, column],
    };
    const to = moves[e.key];
    if (!to) return;
    e.preventDefault();
    this.at = {
      row: Math.max(0, Math.min(m.rowLabels.length - 1, to[0])),
      column: Math.max(0, Math.min(m.columnCount - 1, to[1])),
    };
    // Keep the cursor's column in view: the scroll event repaints and moves the cursor there.
    const visible = Math.max(
      1,
      Math.floor((this.canvas.width / (devicePixelRatio || 1) - this.labelWidth) / this.cellWidth),
    );
    const first = this.firstColumn;
    if (this.at.column < first) this.scroller.scrollLeft = this.at.column * this.cellWidth;
    else if (this.at.column >= first + visible)
      this.scroller.scrollLeft = (this.at.column - visible + 1) * this.cellWidth;
    this.placeCursor(m);
  }

  /** Lays the cursor over its cell and names it after the cell. */
  private placeCursor(m: MatrixModel) {
    const shown = this.at.column - this.firstColumn;
    this.cursor.style.left = `${this.labelWidth + Math.max(0, shown) * this.cellWidth - 1}px`;
    this.cursor.style.top = `${HEADER + this.at.row * CELL_HEIGHT - 1}px`;
    this.cursor.style.width = `${this.cellWidth + 2}px`;
    this.cursor.style.height = `${CELL_HEIGHT + 1}px`;
    const run = this.runAtCursor();
    const where = `row ${this.at.row + 1} of ${m.rowLabels.length}, task ${this.at.column + 1} of ${m.columnCount}`;
    const what = !m.columnCount
      ? 'no runs in view'
      : run === null
        ? `${m.rowLabels[this.at.row]}: no run of this task`
        : `${m.describe(run, this.at.column)}. Enter opens the run`;
    this.cursor.setAttribute('aria-label', `Model × issue matrix, ${where}: ${what}. Arrow keys move between cells.`);
    this.cursor.dataset.run = run === null ? '' : String(run);
  }

  private layout(m: MatrixModel) {
    const ctx = this.canvas.getContext('2d')!;
    ctx.font = FONT;
    // Whole names where the card has room for them beside cells of MIN_CELL; cut in the middle of the model only
    // when it has not ("claude-3-… · moatless-20240623" at 1,440 px hid which model a row is).
    const longest = Math.max(0, ...m.rowLabels.map((l) => ctx.measureText(l).width));
    this.labelWidth = Math.max(
      MIN_LABEL_WIDTH,
      Math.min(Math.ceil(longest) + 12, this.available - MIN_CELL * m.columnCount - 4),
    );
    this.canvas.dataset.labelWidth = String(this.labelWidth);
    this.cellWidth = Math.max(
      3,
      Math.min(14, Math.floor((this.available - this.labelWidth - 4) / Math.max(1, m.columnCount))),
    );
    const total = this.labelWidth + this.cellWidth * m.columnCount + 2;
    const width = Math.min(total, this.available);
    const height = HEADER + CELL_HEIGHT * m.rowLabels.length + 2;
    const ratio = devicePixelRatio || 1;
    this.track.style.width = `${total}px`;
    this.track.style.height = `${height}px`;
    if (this.canvas.width !== Math.round(width * ratio) || this.canvas.height !== Math.round(height * ratio)) {
      this.canvas.width = Math.round(width * ratio);
      this.canvas.height = Math.round(height * ratio);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
    }
    this.canvas.setAttribute(
      'aria-label',
      `${m.name}: ${m.rowLabels.length} rows (model and harness) by ${m.columnCount} tasks`,
    );
    ctx.font = FONT; // resizing the canvas reset it
    this.labels = m.rowLabels.map((l) => ellipsize(ctx, l, this.labelWidth - 8));
    this.paint(m);
  }

  /** First column in view: the track scrolls, the canvas stays put over it. */
  private get firstColumn(): number {
    return Math.min(Math.floor(this.scrollLeft / this.cellWidth), Math.max(0, (this.model?.columnCount ?? 1) - 1));
  }

  private paint(m: MatrixModel) {
    const ratio = devicePixelRatio || 1;
    const width = this.canvas.width / ratio;
    const height = this.canvas.height / ratio;
    const first = this.firstColumn;
    const visible = Math.min(m.columnCount - first, Math.ceil((width - this.labelWidth) / this.cellWidth) + 1);
    const ctx = this.canvas.getContext('2d')!;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#222';
    this.labels.forEach((label, r) => ctx.fillText(label, 2, HEADER + r * CELL_HEIGHT + CELL_HEIGHT / 2));
    if (visible > 0) this.paintCells(ctx, m, first, visible, width, ratio);
    this.placeCursor(m);

    // Wave bands over the cells: a rule where a wave starts, its name beside it (and at the left edge
    // for the wave already under way).
    ctx.fillStyle = '#555';
    let previous = first > 0 ? m.columnWave[first - 1]! : NaN;
    for (let c = first; c < first + Math.max(0, visible); c++) {
      const wave = m.columnWave[c]!;
      const starts = c === first || !(Object.is(wave, previous) || (Number.isNaN(wave) && Number.isNaN(previous)));
      previous = wave;
      if (!starts) continue;
      const x = this.labelWidth + (c - first) * this.cellWidth;
      ctx.fillText(Number.isNaN(wave) ? 'no task record' : `wave ${wave}`, x + 2, HEADER / 2);
      if (c !== first || first === 0) ctx.fillRect(x, 2, 1, height - 2);
    }
  }

  /**
   * Cells are written as pixels and put on the canvas in one call: a fillRect per cell costs tens of
   * microseconds on a software-rendered canvas.
   */
  private paintCells(
    ctx: CanvasRenderingContext2D,
    m: MatrixModel,
    first: number,
    visible: number,
    width: number,
    ratio: number,
  ) {
    const x0 = Math.round(this.labelWidth * ratio);
    const y0 = Math.round(HEADER * ratio);
    const w = Math.max(1, Math.round((width - this.labelWidth) * ratio));
    const h = Math.max(1, Math.round(CELL_HEIGHT * m.rowLabels.length * ratio));
    const image = ctx.createImageData(w, h);
    const pixels = new Uint32Array(image.data.buffer);
    const palette = m.palette.map((c) => pixelOf(c));
    const empty = pixelOf(EMPTY);
    // A white gap after every cell, so neighbouring cells never merge into one colour.
    const gap = Math.max(1, Math.round(ratio));
    const rowGap = Math.max(1, Math.round(ratio));
    const xs = Array.from({ length: visible + 1 }, (_, k) => Math.min(w, Math.round(k * this.cellWidth * ratio)));
    const mark = pixelOf(MARK_COLOUR);
    const markRows = Math.max(1, Math.round(MARK_HEIGHT * ratio));
    // Each matrix row is one scanline, copied down the row's height; marked cells get a second scanline
    // for the band across their top.
    const line = new Uint32Array(w);
    const marked = new Uint32Array(w);
    for (let r = 0; r < m.rowLabels.length; r++) {
      line.fill(0);
      let anyMark = false;
      for (let k = 0; k < visible; k++) {
        const cell = r * m.columnCount + first + k;
        const run = m.cells[cell]!;
        line.fill(run < 0 ? empty : palette[m.colours[cell]!]!, xs[k]!, xs[k + 1]! - (run < 0 ? 0 : gap));
      }
      marked.set(line);
      for (let k = 0; k < visible; k++) {
        const cell = r * m.columnCount + first + k;
        if (m.cells[cell]! < 0 || !m.marks?.[cell]) continue;
        marked.fill(mark, xs[k]!, xs[k + 1]! - gap);
        anyMark = true;
      }
      const top = Math.round(r * CELL_HEIGHT * ratio);
      const bottom = Math.round((r + 1) * CELL_HEIGHT * ratio) - rowGap;
      for (let y = top; y < bottom; y++) pixels.set(anyMark && y < top + markRows ? marked : line, y * w);
    }
    ctx.putImageData(image, x0, y0);
  }

  private cellAt(e: MouseEvent): { row: number; column: number } | null {
    if (!this.model) return null;
    const box = this.canvas.getBoundingClientRect();
    const x = e.clientX - box.left - this.labelWidth;
    if (x < 0) return null;
    const column = this.firstColumn + Math.floor(x / this.cellWidth);
    const row = Math.floor((e.clientY - box.top - HEADER) / CELL_HEIGHT);
    if (column >= this.model.columnCount || row < 0 || row >= this.model.rowLabels.length) return null;
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
    this.tip.textContent =
      run >= 0 ? this.model.describe(run, cell.column) : `${this.model.rowLabels[cell.row]}: no run of this task`;
    this.tip.hidden = false;
    const host = this.tip.parentElement!.getBoundingClientRect();
    this.tip.style.left = `${Math.min(e.clientX - host.left + 12, host.width - 320)}px`;
    this.tip.style.top = `${e.clientY - host.top + 14}px`;
  }
}

/** Cut to fit, from the model's end: a row's harness version (after the last " · ") is never cut. */
function ellipsize(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  const at = text.lastIndexOf(' · ');
  const [head, tail] = at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at)];
  let lo = 0;
  let hi = head.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${head.slice(0, mid)}…${tail}`).width <= max) lo = mid;
    else hi = mid - 1;
  }
  return `${head.slice(0, lo)}…${tail}`;
}
