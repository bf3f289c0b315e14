// The Runs area: every run in view in one virtualised grid (only the rows on screen exist in the DOM),
// sortable by any column and searchable; clicking a row opens its detail panel. Live updates re-render
// the visible rows in place, so the scroll position and the open run survive.
import { codeOf, valueOfCode, type NumberField, type TextField } from '#analytics/columns.ts';
import { tierCode, waveOf } from '#analytics/run-selection.ts';
import { EXPORT_FORMATS, type ExportFormat } from '#analytics/contract.ts';
import { searchRows, verdictKeyAt } from '#analytics/result-filters.ts';
import { agreementOf, configurationsText, difficultyOfRow, OUTCOME_LABELS } from '#analytics/statistics.ts';
import { el, fill, middleCut, textMeasure } from '../widgets/dom.ts';
import { big, count, duration, instant, num, UNKNOWN } from '../widgets/format.ts';
import { VERDICT_COLOURS, VERDICT_LABELS } from '../widgets/palette.ts';
import type { Computed } from '../page/view-model.ts';

const ROW_HEIGHT = 26;
const OVERSCAN = 8;

interface Column {
  key: string;
  title: string;
  /** What the header means, when its title is a symbol. */
  hint?: string;
  width: number;
  numeric?: boolean;
  /** The cell's text; null renders as "unknown", which a column of values of a known form has room for. */
  text(m: Computed, i: number): string | null;
  /** Sort key; NaN sorts last in either direction. */
  sortKey(m: Computed, ranks: Ranks, i: number): number;
  cellClass?(m: Computed, i: number): string;
  /** The cell's tooltip when it is not the text itself (the full task id behind its short label). */
  tooltip?(m: Computed, i: number): string | null;
  /** Cut in the middle where too long, keeping the end: names that differ only in a date suffix read apart. */
  middle?: boolean;
}

type Ranks = Record<TextField, Int32Array>;

const textColumn = (key: TextField, title: string, width: number): Column => ({
  key,
  title,
  width,
  text: (m, i) => m.table.string(key, i),
  sortKey: (m, ranks, i) => {
    const index = m.table.text[key][i]!;
    return index < 0 ? NaN : ranks[key][index]!;
  },
});

const numberColumn = (key: NumberField, title: string, width: number, format: (v: number) => string): Column => ({
  key,
  title,
  width,
  numeric: true,
  text: (m, i) => {
    const v = m.table.number(key, i);
    return v === null ? null : format(v);
  },
  sortKey: (m, _r, i) => m.table.numbers[key][i]!,
});

const GENERATED = codeOf('metricsSource', 'generated');

/** A grid cell's padding, left and right (runs-and-run-detail.css). */
const CELL_PADDING = 12;

/** The narrowest a column may be that shows "unknown" whole (7 letters and the cell's padding). */
const UNKNOWN_WIDTH = 84;

export const COLUMNS: Column[] = [
  {
    key: 'metricsSource',
    title: '◇',
    hint: 'Generated figures (demo data): not measured',
    width: 26,
    text: (m, i) => (m.table.codes.metricsSource[i] === GENERATED ? '◇' : ''),
    sortKey: (m, _r, i) => m.table.codes.metricsSource[i] || NaN,
  },
  {
    key: 'verdict',
    title: 'Judge',
    hint: 'The judge’s verdict (the run detail leads with the result on the outcome in view)',
    width: 122,
    text: (m, i) => verdictShown(m, i).label,
    sortKey: (m, _r, i) => m.table.codes.verdict[i] || NaN,
    cellClass: (m, i) => `verdict v-${verdictShown(m, i).key}`,
  },
  { ...textColumn('model', 'Model', 190), middle: true },
  { ...textColumn('harnessVersion', 'Harness', 150), middle: true },
  {
    key: 'sample',
    title: 'Sample',
    hint: 'Which of the task’s repeated runs under this model and harness version',
    width: 70,
    numeric: true,
    text: (m, i) => String(m.table.sampleAt(i)),
    sortKey: (m, _r, i) => m.table.sampleAt(i),
  },
  {
    key: 'taskId',
    title: 'Task',
    width: 210,
    text: (m, i) => m.taskLabels[m.table.text.taskId[i]!] ?? null,
    sortKey: (m, ranks, i) => ranks.taskId[m.table.text.taskId[i]!]!,
    tooltip: (m, i) => m.table.string('taskId', i),
  },
  {
    key: 'tier',
    title: 'Tier',
    width: 76,
    text: (m, i) => valueOfCode('tier', tierCode(m.table, m.facts, i)),
    sortKey: (m, _r, i) => tierCode(m.table, m.facts, i) || NaN,
  },
  {
    key: 'difficulty',
    title: 'Difficulty',
    hint: 'Empirical difficulty: how many of the configurations in view resolved the task',
    width: 84,
    text: (m, i) => difficultyOfRow(m.table, m.difficulty, i),
    sortKey: (m, _r, i) => m.difficulty.band[m.table.text.taskId[i]!] || NaN,
    tooltip: (m, i) => {
      const t = m.table.text.taskId[i]!;
      const share = configurationsText(m.difficulty.resolved[t]!, m.difficulty.n[t]!);
      return `${share} configurations in view resolved this task (${OUTCOME_LABELS[m.outcome]}), each by the share of its samples that did`;
    },
  },
  {
    key: 'wave',
    title: 'Wave',
    width: UNKNOWN_WIDTH,
    numeric: true,
    text: (m, i) => {
      const w = waveOf(m.table, m.facts, i);
      return Number.isNaN(w) ? null : String(w);
    },
    sortKey: (m, _r, i) => waveOf(m.table, m.facts, i),
  },
  {
    key: 'outcome',
    title: 'Run ended',
    hint: 'How the run ended (finished, budget, error): not the outcome rates are counted on',
    width: 92,
    text: (m, i) => valueOfCode('outcome', m.table.codes.outcome[i]!),
    sortKey: (m, _r, i) => m.table.codes.outcome[i]!,
  },
  {
    key: 'hiddenTest',
    title: 'Hidden tests',
    width: 108,
    text: (m, i) => valueOfCode('hiddenTest', m.table.codes.hiddenTest[i]!) ?? 'no result',
    sortKey: (m, _r, i) => m.table.codes.hiddenTest[i] || NaN,
  },
  {
    key: 'agreement',
    title: '≠',
    hint: 'The judge and the hidden tests disagree',
    width: 30,
    text: (m, i) => (agreementOf(m.table, i) === 'disagree' ? '≠' : ''),
    sortKey: (m, _r, i) => {
      const a = agreementOf(m.table, i);
      return a === 'disagree' ? 1 : a === 'agree' ? 0 : NaN;
    },
    cellClass: (m, i) => (agreementOf(m.table, i) === 'disagree' ? 'disagrees' : ''),
  },
  numberColumn('steps', 'Steps', UNKNOWN_WIDTH, (v) => num(v)),
  numberColumn('wallSeconds', 'Wall time', UNKNOWN_WIDTH, duration),
  numberColumn('completionTokens', 'Compl. tokens', 116, big),
  numberColumn('outputTokensPerMinute', 'Tokens/min', 96, (v) => num(v)),
  numberColumn('patchLinesAdded', '+ lines', UNKNOWN_WIDTH, (v) => num(v)),
  numberColumn('patchLinesRemoved', '− lines', UNKNOWN_WIDTH, (v) => num(v)),
  textColumn('host', 'Host', 120),
  numberColumn('finishedAt', 'Finished (UTC)', 176, (v) => instant(new Date(v * 1000).toISOString())),
];

export interface RunsViewEvents {
  search(query: string): void;
  sort(column: string): void;
  open(id: string): void;
  /** The arrow keys moved the open run: the same history entry, not a new one per row. */
  walk(id: string): void;
  /** Clear the filters and the search (the way out of an empty result). */
  clear(): void;
  /** Follows an export link by script when a plain link cannot authenticate (a signed-in cockpit); false: the link works. */
  download(href: string, filename: string): boolean;
}

const EXPORT_TITLES: Record<ExportFormat, string> = { csv: 'CSV (RFC 4180)', json: 'JSON', parquet: 'Parquet' };

export class RunsView {
  readonly root = el('div', { class: 'runs', id: 'runs-area', role: 'tabpanel', 'aria-labelledby': 'tab-runs' });
  readonly searchBox = el('input', {
    type: 'search',
    class: 'search',
    placeholder: 'Search model, task, harness, host, repo, verdict, tests…',
    'aria-label': 'Search runs',
  });
  private readonly summary = el('span', { class: 'runs-count', 'aria-live': 'polite' });
  private readonly header = el('div', { class: 'grid-header', role: 'row' });
  private readonly spacer = el('div', { class: 'grid-spacer' });
  private readonly scroller = el(
    'div',
    {
      class: 'grid-scroll',
      role: 'grid',
      tabindex: 0,
      'aria-label': 'Runs (the arrow keys open the next and previous run)',
    },
    this.header,
    this.spacer,
  );
  private readonly emptyNote = el('div', { class: 'empty-state', id: 'runs-empty', role: 'status', hidden: true });
  private readonly exports = Object.fromEntries(
    EXPORT_FORMATS.map((format) => [
      format,
      el(
        'a',
        {
          class: 'export-link',
          id: `export-${format}`,
          download: '',
          title: `The runs in view, as the grid shows them, as ${EXPORT_TITLES[format]}: the fields the space allows`,
        },
        `Export ${format === 'parquet' ? 'Parquet' : format.toUpperCase()}`,
      ),
    ]),
  ) as Record<ExportFormat, HTMLAnchorElement>;
  readonly detailHost = el('div', { class: 'detail-host' });
  private readonly pool: HTMLElement[] = [];
  private order: Uint32Array = new Uint32Array();
  private ordered: { m: Computed; search: string; column: string; descending: boolean } | null = null;
  private m: Computed | null = null;
  private selectedId: string | null = null;
  private readonly totalWidth = COLUMNS.reduce((w, c) => w + c.width, 0);

  constructor(private readonly events: RunsViewEvents) {
    const clear = el('button', { type: 'button', class: 'link' }, 'Clear the filters and the search');
    clear.addEventListener('click', () => this.events.clear());
    this.emptyNote.append(el('p', {}, 'No run matches the filters and the search. ', clear, '.'));
    for (const format of EXPORT_FORMATS) {
      this.exports[format].addEventListener('click', (e) => {
        if (this.events.download(this.exports[format].href, this.exports[format].download || `runs.${format}`))
          e.preventDefault();
      });
    }
    this.root.append(
      el(
        'div',
        { class: 'runs-main' },
        el(
          'div',
          { class: 'runs-toolbar' },
          this.searchBox,
          this.summary,
          el('span', { class: 'exports' }, ...Object.values(this.exports)),
        ),
        this.emptyNote,
        this.scroller,
      ),
      this.detailHost,
    );
    this.header.style.width = this.spacer.style.width = `${this.totalWidth}px`;
    fill(
      this.header,
      ...COLUMNS.map((c) => {
        const button = el(
          'button',
          { type: 'button', class: 'sort-button', title: `${c.hint ?? c.title}: click to sort` },
          c.title,
        );
        button.addEventListener('click', () => this.events.sort(c.key));
        return el(
          'div',
          {
            class: `grid-cell head${c.numeric ? ' num' : ''}`,
            role: 'columnheader',
            style: `width:${c.width}px`,
            'data-column': c.key,
          },
          button,
        );
      }),
    );
    this.searchBox.addEventListener('input', () => this.events.search(this.searchBox.value));
    this.scroller.addEventListener('scroll', () => this.paint());
    new ResizeObserver(() => this.paint()).observe(this.scroller);
    // Up and down walk the open run through the grid, as a reader reads a list.
    this.scroller.addEventListener('keydown', (e) => {
      if ((e.key !== 'ArrowDown' && e.key !== 'ArrowUp') || !this.m || !this.order.length) return;
      e.preventDefault();
      const at = this.selectedId === null ? -1 : this.order.indexOf(this.m.table.indexOfId(this.selectedId));
      const next = Math.max(0, Math.min(this.order.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)));
      this.events.walk(this.m.table.id(this.order[next]!));
    });
    this.spacer.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.grid-row');
      if (row?.dataset.id) this.events.open(row.dataset.id);
    });
  }

  /** Where the export buttons lead (the page's filters in the address), and which of the page's choices an export cannot carry. */
  exportLinks(hrefs: Record<ExportFormat, string>, filename: string): void {
    for (const format of EXPORT_FORMATS) {
      this.exports[format].href = hrefs[format];
      this.exports[format].download = `${filename}.${format}`;
    }
  }

  render(m: Computed, search: string, sort: { column: string; descending: boolean }, selectedId: string | null): void {
    if (this.searchBox.value !== search && document.activeElement !== this.searchBox) this.searchBox.value = search;
    this.m = m;
    this.selectedId = selectedId;
    const o = this.ordered;
    if (!o || o.m !== m || o.search !== search || o.column !== sort.column || o.descending !== sort.descending) {
      this.order = sortRows(m, searchRows(m.table, m.selection, search, m.taskLabels), sort);
      this.ordered = { m, search, ...sort };
    }
    for (const head of this.header.children) {
      const h = head as HTMLElement;
      h.setAttribute(
        'aria-sort',
        h.dataset.column === sort.column ? (sort.descending ? 'descending' : 'ascending') : 'none',
      );
    }
    this.summary.textContent = `${count(this.order.length)} of ${count(m.table.size)} runs`;
    this.emptyNote.hidden = this.order.length > 0;
    this.scroller.hidden = this.order.length === 0;
    this.spacer.style.height = `${this.order.length * ROW_HEIGHT}px`;
    this.paint();
  }

  /** Scrolls the open run into view when it is outside the visible rows. */
  reveal(id: string): void {
    if (!this.m) return;
    const i = this.m.table.indexOfId(id);
    const at = this.order.indexOf(i);
    if (at < 0) return;
    const top = at * ROW_HEIGHT;
    const view = this.scroller.clientHeight - ROW_HEIGHT;
    if (top < this.scroller.scrollTop || top > this.scroller.scrollTop + view - ROW_HEIGHT)
      this.scroller.scrollTop = Math.max(0, top - view / 2);
  }

  private readonly fits = new Map<string, string>();
  private measure: ((text: string) => number) | null = null;

  /** `text` as it fits `width` px in a cell like `cell`: whole, or its start and end around an ellipsis. */
  private fitted(text: string, width: number, cell: HTMLElement): string {
    const key = `${width} ${text}`;
    let fit = this.fits.get(key);
    if (fit === undefined) {
      this.measure ??= textMeasure(getComputedStyle(cell).font);
      fit = middleCut(text, width, this.measure);
      this.fits.set(key, fit);
    }
    return fit;
  }

  private paint() {
    const m = this.m;
    if (!m) return;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const visible = Math.ceil(this.scroller.clientHeight / ROW_HEIGHT) + 2 * OVERSCAN;
    const last = Math.min(this.order.length, first + visible);
    while (this.pool.length < last - first) {
      const row = el(
        'div',
        { class: 'grid-row', role: 'row' },
        ...COLUMNS.map((c) =>
          el('span', {
            class: `grid-cell${c.numeric ? ' num' : ''}`,
            style: `width:${c.width}px`,
            role: 'gridcell',
            'data-column': c.key,
          }),
        ),
      );
      row.style.width = `${this.totalWidth}px`;
      this.pool.push(row);
      this.spacer.append(row);
    }
    this.pool.forEach((row, k) => {
      const at = first + k;
      if (at >= last) {
        row.hidden = true;
        return;
      }
      const i = this.order[at]!;
      const id = m.table.id(i);
      row.hidden = false;
      row.style.transform = `translateY(${at * ROW_HEIGHT}px)`;
      row.dataset.id = id;
      row.classList.toggle('selected', id === this.selectedId);
      row.classList.toggle('disagrees', agreementOf(m.table, i) === 'disagree');
      row.setAttribute('aria-selected', String(id === this.selectedId));
      COLUMNS.forEach((c, ci) => {
        const cell = row.children[ci] as HTMLElement;
        const text = c.text(m, i);
        cell.textContent =
          text !== null && c.middle ? this.fitted(text, c.width - CELL_PADDING, cell) : (text ?? UNKNOWN);
        cell.title =
          text === null ? 'unknown: not measured or not sent' : (c.tooltip?.(m, i) ?? (c.hint && text ? c.hint : text));
        cell.className = `grid-cell${c.numeric ? ' num' : ''}${text === null ? ' unknown' : ''}${c.cellClass ? ` ${c.cellClass(m, i)}` : ''}`;
      });
      const verdict = row.children[1] as HTMLElement;
      verdict.style.setProperty('--chip', verdictShown(m, i).colour);
    });
  }
}

/** A run's verdict as the grid shows it: a run whose "resolved" was flagged says so, apart from the unjudged. */
export function verdictShown(m: Computed, i: number): { key: string; label: string; colour: string } {
  const key = verdictKeyAt(m.table, i);
  return { key, label: VERDICT_LABELS[key], colour: VERDICT_COLOURS[key] };
}

function sortRows(m: Computed, rows: Uint32Array, sort: { column: string; descending: boolean }): Uint32Array {
  const column = COLUMNS.find((c) => c.key === sort.column) ?? COLUMNS.find((c) => c.key === 'finishedAt')!;
  const ranks = Object.fromEntries(
    (['model', 'taskId', 'harnessVersion', 'host', 'repo'] as const).map((f) => {
      const values = m.table.dictionaries[f].values;
      const order = values.map((_, k) => k).sort((a, b) => values[a]!.localeCompare(values[b]!));
      const rank = new Int32Array(values.length);
      order.forEach((k, r) => (rank[k] = r));
      return [f, rank];
    }),
  ) as Ranks;
  const sign = sort.descending ? -1 : 1;
  const keys = new Float64Array(m.table.size);
  for (const i of rows) {
    const k = column.sortKey(m, ranks, i);
    keys[i] = Number.isNaN(k) ? Infinity : sign * k;
  }
  // Ties keep a stable, predictable order: most recent first.
  return Uint32Array.from(rows).sort(
    (a, b) => keys[a]! - keys[b]! || m.table.numbers.finishedAt[b]! - m.table.numbers.finishedAt[a]! || a - b,
  );
}
