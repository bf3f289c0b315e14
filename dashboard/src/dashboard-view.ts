// The Dashboard area (docs/contract.md §6): KPI tiles, verdict mix, resolve rate, wall time, tokens per minute, steps
// and budget exhaustion, wall time against completion tokens, model time next to the original fix, the
// per-model table, judge against hidden tests, and the model × issue matrix. Each card is built once and
// refilled in place, so a live update never blanks the page or moves the reader. Every chart has labelled
// axes with units; each card of bars can order its rows by its own figure; each count of the judge ×
// hidden-test table links to exactly those runs.
import {
  calibration,
  computeFigures,
  originalFixComparison,
  rowsByGroup,
  scatterLayers,
  tasksInView,
  type GroupFigures,
  type HiddenColumn,
  type MedianFigure,
  type OriginalFixComparison,
  type RateFigure,
} from '../../shared/cockpit/aggregates.ts';
import { HIDDEN_TEST_STATUSES, VERDICTS, valueOfCode } from '../../shared/cockpit/columns.ts';
import { barList, legend, type BarRow } from './charts/bars.ts';
import { MatrixChart } from './charts/matrix.ts';
import { ScatterChart } from './charts/scatter.ts';
import { linearAxis, logDurationAxis, type Axis } from './charts/ticks.ts';
import { el, fill } from './dom.ts';
import { count, duration, durationTick, hours, num, percent, shortNumber, UNKNOWN } from './format.ts';
import { COST_BASES, renderCost, type CostData } from './cost-card.ts';
import { ciText, intervalText, percentOf } from './intervals.ts';
import {
  HIDDEN_TEST_COLOURS,
  HIDDEN_TEST_LABELS,
  MODEL_COLOUR,
  ORIGINAL_COLOUR,
  VERDICT_COLOURS,
  VERDICT_LABELS,
  VERDICT_ORDER,
  type VerdictKey,
} from './palette.ts';
import { HIDDEN_TEST_COLUMNS, type CockpitFilters, type MatrixColouring } from './url-state.ts';
import type { Computed } from './view-model.ts';

type Outcome = Pick<CockpitFilters, 'verdicts' | 'hiddenTests'>;

/** What the dashboard asks of the page around it. */
export interface DashboardNav {
  openRun(tableRow: number): void;
  /** The Runs area, filtered to these verdicts and hidden-test results on top of the filters in view. */
  openRuns(outcome: Outcome): void;
  /** The address of that view, so a count is a real link (a new tab, a copied link). */
  runsHref(outcome: Outcome): string;
  colourMatrix(by: MatrixColouring): void;
  clearFilters(): void;
}

/** One way a card can order its rows: by a figure (largest first) or a name (A to Z); null values last. */
interface SortChoice<T> {
  label: string;
  value: ((row: T) => number | string | null) | null;
}

interface Card {
  root: HTMLElement;
  body: HTMLElement;
  foot: HTMLElement;
  head: HTMLElement;
  /** The chosen row order, when the card offers a choice. */
  sort: HTMLSelectElement | null;
}

function card(id: string, title: string, explain: string, options: { wide?: boolean; sorts?: string[] } = {}): Card {
  const body = el('div', { class: 'card-body' });
  const foot = el('p', { class: 'card-foot' });
  const sort = options.sorts
    ? el(
        'select',
        { class: 'card-sort', 'aria-label': `Order the rows of "${title}" by` },
        ...options.sorts.map((label, k) => el('option', { value: k }, label)),
      )
    : null;
  const head = el(
    'div',
    { class: 'card-head' },
    el('h2', { id: `${id}-title` }, title),
    sort && el('label', { class: 'card-sort-label' }, 'Order by ', sort),
  );
  const root = el(
    'section',
    { class: `card${options.wide ? ' wide' : ''}`, id, 'aria-labelledby': `${id}-title` },
    head,
    el('p', { class: 'card-explain' }, explain),
    body,
    foot,
  );
  return { root, body, foot, head, sort };
}

const BY_JUDGE = 'judge resolve rate';
const BY_NAME = 'name';

/** The card's rows in the chosen order: the first choice keeps the order given (best judge rate first). */
function ordered<T>(rows: T[], card: Card, choices: SortChoice<T>[]): T[] {
  const value = choices[Number(card.sort?.value ?? 0)]?.value;
  if (!value) return rows;
  const keyed = rows.map((row, k) => ({ row, k, v: value(row) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.k - b.k : a.v === null ? 1 : -1;
    if (typeof a.v === 'string' || typeof b.v === 'string') return String(a.v).localeCompare(String(b.v)) || a.k - b.k;
    return b.v - a.v || a.k - b.k;
  });
  return keyed.map((x) => x.row);
}

/** A card's order choices: the judge's order first (the rows as given), then `by`, then by name. */
const byJudgeThen = <T extends { label: string }>(...by: SortChoice<T>[]): SortChoice<T>[] => [
  { label: BY_JUDGE, value: null },
  ...by,
  { label: BY_NAME, value: (row) => row.label },
];

/** Group figures with the name they carry on the page. */
type Named = GroupFigures & { label: string };

const rate = (r: RateFigure) => r.rate;
const median = (f: MedianFigure) => f.median;

const SORTS = {
  verdicts: byJudgeThen<Named>(
    { label: 'share resolved', value: (g) => (g.runs ? g.verdicts.resolved / g.runs : null) },
    { label: 'share wrong', value: (g) => (g.runs ? g.verdicts.wrong / g.runs : null) },
    { label: 'runs', value: (g) => g.runs },
  ),
  resolve: byJudgeThen<Named>({ label: 'hidden-test pass rate', value: (g) => rate(g.hiddenTests) }),
  wall: byJudgeThen<Named>({ label: 'median wall time', value: (g) => median(g.wallSeconds) }),
  tokens: byJudgeThen<Named>({ label: 'output tokens per minute', value: (g) => median(g.outputTokensPerMinute) }),
  steps: byJudgeThen<Named>(
    { label: 'median steps', value: (g) => median(g.steps) },
    { label: 'budget ran out', value: (g) => rate(g.budgetExhausted) },
  ),
  original: byJudgeThen<OriginalRow>(
    { label: 'fix time ÷ model time', value: (r) => ratioOf(r) },
    { label: 'model wall time', value: (r) => r.modelHours },
    { label: 'original fix time', value: (r) => r.originalHours },
  ),
} satisfies Record<string, SortChoice<Named>[] | SortChoice<OriginalRow>[]>;

type OriginalRow = OriginalFixComparison & { label: string };

const sortLabels = (choices: { label: string }[]) => choices.map((c) => c.label);

/** A column of the per-model table: its text and what it sorts by. */
interface TableColumn {
  title: string;
  numeric: boolean;
  text(g: GroupFigures): string;
  value(g: GroupFigures): number | string | null;
  /** Richer cell content than the text, when there is some (a rate over its n). */
  cell?(g: GroupFigures): Node;
}

const VERDICT_COLUMNS: [VerdictKey, string][] = [
  ['resolved', 'Resolved'],
  ['partial', 'Partial'],
  ['wrong', 'Wrong'],
  ['no_change', 'No change'],
  ['excluded', 'Excluded'],
  ['error', 'Error'],
  ['unjudged', 'Not judged'],
];

const TABLE_COLUMNS: TableColumn[] = [
  { title: 'Model', numeric: false, text: (g) => g.model, value: (g) => g.model },
  { title: 'Harness', numeric: false, text: (g) => g.harnessVersion, value: (g) => g.harnessVersion },
  { title: 'Runs', numeric: true, text: (g) => count(g.runs), value: (g) => g.runs },
  {
    title: 'Resolve rate',
    numeric: true,
    text: (g) => rateText(g.resolve),
    value: (g) => g.resolve.rate,
    cell: (g) => rateCell(g.resolve),
  },
  {
    title: 'First-attempt rate',
    numeric: true,
    text: (g) => `first attempts: ${rateText(g.firstResolve)}`,
    value: (g) => g.firstResolve.rate,
    cell: (g) => rateCell(g.firstResolve),
  },
  { title: 'Re-runs', numeric: true, text: (g) => count(g.reruns), value: (g) => g.reruns },
  ...VERDICT_COLUMNS.map(([v, title]): TableColumn => ({
    title,
    numeric: true,
    text: (g) => count(g.verdicts[v]),
    value: (g) => g.verdicts[v],
  })),
  {
    title: 'Tests pass',
    numeric: true,
    text: (g) => rateText(g.hiddenTests),
    value: (g) => g.hiddenTests.rate,
    cell: (g) => rateCell(g.hiddenTests),
  },
  {
    title: 'Wall time (median)',
    numeric: true,
    text: (g) => medianText(g.wallSeconds, duration),
    value: (g) => g.wallSeconds.median,
  },
  {
    title: 'Steps (median)',
    numeric: true,
    text: (g) => medianText(g.steps, (v) => num(v)),
    value: (g) => g.steps.median,
  },
  {
    title: 'Budget ran out',
    numeric: true,
    text: (g) => rateText(g.budgetExhausted),
    value: (g) => g.budgetExhausted.rate,
    cell: (g) => rateCell(g.budgetExhausted),
  },
  {
    title: 'Output tokens/min (median)',
    numeric: true,
    text: (g) => medianText(g.outputTokensPerMinute, (v) => num(v)),
    value: (g) => g.outputTokensPerMinute.median,
  },
  {
    title: 'Generated',
    numeric: true,
    text: (g) => (g.generated ? `◇ ${count(g.generated)}` : '–'),
    value: (g) => g.generated,
  },
];

export class DashboardView {
  readonly root = el('div', {
    class: 'dashboard',
    id: 'dashboard-area',
    role: 'tabpanel',
    'aria-labelledby': 'tab-dashboard',
  });
  private readonly kpis = el('section', { class: 'kpis', id: 'kpis', 'aria-label': 'Resolve rate per model' });
  private readonly emptyNote = el('div', { class: 'empty-state', id: 'dashboard-empty', role: 'status', hidden: true });
  private readonly caveats = caveats();
  private readonly cards = {
    verdicts: card('chart-verdict-mix', 'Verdict mix', 'Share of runs by verdict, per model.', {
      sorts: sortLabels(SORTS.verdicts),
    }),
    resolve: card(
      'chart-resolve-rate',
      'Resolve rate',
      'Judge: resolved ÷ (resolved + partial + wrong + no change). Hidden tests: pass ÷ (pass + fail). The whisker is the 95% Wilson interval: where the rate could lie given n.',
      { sorts: sortLabels(SORTS.resolve) },
    ),
    wall: card(
      'chart-wall-time',
      'Median wall time',
      'Per run, start to finish. Bar: median; line: middle half of runs.',
      { sorts: sortLabels(SORTS.wall) },
    ),
    tokens: card(
      'chart-tokens-per-minute',
      'Output tokens per minute',
      'Median over runs that measured it. Line: middle half of runs.',
      { sorts: sortLabels(SORTS.tokens) },
    ),
    steps: card(
      'chart-steps',
      'Steps and budget exhaustion',
      'Median steps per run (line: middle half); share of runs that ran out of step or time budget.',
      { sorts: sortLabels(SORTS.steps) },
    ),
    scatter: card(
      'chart-scatter',
      'Wall time against completion tokens',
      'One square per run, coloured by verdict; log axes. Drag to zoom, double-click to reset.',
    ),
    original: card(
      'chart-original-fix',
      'Model time next to the original fix',
      'Resolved runs only: median wall time of the model (●) and median PR-open-to-merge time of the original fix for the same tasks (◆), on one log time axis; the number is how many times longer the fix took.',
      { sorts: sortLabels(SORTS.original) },
    ),
    table: card(
      'table-models',
      'Per model',
      'Every figure of the charts above in one table; click a column heading to sort. Medians leave unknown values out.',
      { wide: true },
    ),
    calibration: card(
      'table-calibration',
      'Judge against hidden tests',
      'Runs by judge verdict (rows) and hidden-test result (columns). Click a count to list those runs.',
    ),
    cost: card(
      'chart-cost',
      'Cost',
      'What judging cost per day against the daily cap, what each group cost per resolved task, and which groups no other group beats on both resolve rate and cost.',
      { wide: true },
    ),
    matrix: card(
      'chart-matrix',
      'Model × issue',
      'One cell per run in task order (wave 1 first). Click a cell, or Tab to the matrix and use the arrow keys and Enter, to open the run.',
      { wide: true },
    ),
  };
  private readonly scatter: ScatterChart;
  private readonly matrix: MatrixChart;
  private readonly matrixLegend = el('div', {});
  private readonly matrixText = el('p', { class: 'sr-only chart-text', id: 'chart-matrix-text' });
  private readonly colourButtons: Record<MatrixColouring, HTMLButtonElement>;
  private colouring: MatrixColouring = 'verdict';
  private tableSort = { column: 3, descending: true };
  /** Each part of the page with how to fill it; `dirty` until it shows the latest figures. */
  private readonly parts: { root: HTMLElement; fill: (m: Computed) => void; dirty: boolean }[];
  private readonly visible = new Set<Element>();
  private latest: Computed | null = null;
  private flushQueued = false;
  private cost: CostData | null = null;
  private readonly costBasis = el(
    'select',
    { class: 'card-sort', id: 'cost-basis', 'aria-label': 'Cost on the chart' },
    ...COST_BASES.map((b) => el('option', { value: b.basis }, b.label)),
  );

  constructor(private readonly nav: DashboardNav) {
    const c = this.cards;
    this.root.append(
      this.kpis,
      this.emptyNote,
      this.caveats,
      el(
        'div',
        { class: 'cards' },
        ...[
          c.verdicts,
          c.resolve,
          c.wall,
          c.tokens,
          c.steps,
          c.original,
          c.scatter,
          c.calibration,
          c.table,
          c.cost,
          c.matrix,
        ].map((k) => k.root),
      ),
    );
    const scatterHost = el('div', { class: 'scatter-host', id: 'scatter-plot' });
    c.scatter.body.append(
      legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))),
      scatterHost,
    );
    this.scatter = new ScatterChart(
      scatterHost,
      c.scatter.root,
      'Scatter plot of wall time against completion tokens, one square per run, coloured by verdict',
    );

    const colourBy = (by: MatrixColouring, label: string) => {
      const b = el(
        'button',
        { type: 'button', class: 'chip-toggle', 'aria-pressed': String(by === 'verdict'), 'data-colour': by },
        label,
      );
      b.addEventListener('click', () => this.nav.colourMatrix(by));
      return b;
    };
    this.colourButtons = { verdict: colourBy('verdict', 'judge verdict'), tests: colourBy('tests', 'hidden tests') };
    c.matrix.head.append(
      el(
        'span',
        { class: 'colour-by', role: 'group', 'aria-label': 'Colour the matrix by' },
        el('span', { class: 'muted' }, 'Colour by'),
        this.colourButtons.verdict,
        this.colourButtons.tests,
      ),
    );
    const matrixHost = el('div', { class: 'matrix-host' });
    c.matrix.body.append(this.matrixLegend, matrixHost, this.matrixText);
    this.matrix = new MatrixChart(matrixHost, c.matrix.root, (i) => this.nav.openRun(i), this.matrixText.id);

    c.cost.head.append(el('label', { class: 'card-sort-label' }, 'Cost on the chart ', this.costBasis));
    this.costBasis.addEventListener('change', () => {
      this.costBasis.dataset.touched = 'true';
      if (this.latest) this.fillPart(this.partOf(c.cost), this.latest);
    });
    const part = (root: HTMLElement, fill: (m: Computed) => void) => ({ root, fill, dirty: true });
    this.parts = [
      part(this.kpis, (m) => this.renderKpis(m)),
      part(c.verdicts.root, (m) => this.renderVerdicts(m)),
      part(c.resolve.root, (m) => this.renderResolve(m)),
      part(c.wall.root, (m) =>
        this.renderMedians(m, c.wall, SORTS.wall, (g) => g.wallSeconds, duration, 'wall time per run', 'duration'),
      ),
      part(c.tokens.root, (m) =>
        this.renderMedians(
          m,
          c.tokens,
          SORTS.tokens,
          (g) => g.outputTokensPerMinute,
          (v) => `${num(v)}/min`,
          'output tokens per minute (tokens/min)',
        ),
      ),
      part(c.steps.root, (m) =>
        this.renderMedians(
          m,
          c.steps,
          SORTS.steps,
          (g) => g.steps,
          (v) => `${num(v)} steps`,
          'model steps per run (steps)',
          'number',
          (g) => `budget ran out in ${rateText(g.budgetExhausted)}`,
        ),
      ),
      part(c.scatter.root, (m) => this.renderScatter(m)),
      part(c.original.root, (m) => this.renderOriginal(m)),
      part(c.table.root, (m) => this.renderTable(m)),
      part(c.calibration.root, (m) => this.renderCalibration(m)),
      part(c.cost.root, (m) => renderCost(c.cost.body, c.cost.foot, this.cost, this.costBasis, (g) => m.label(g))),
      part(c.matrix.root, (m) => this.renderMatrix(m)),
    ];
    // A card's own order changes only that card.
    for (const k of Object.values(this.cards))
      k.sort?.addEventListener('change', () => this.latest && this.fillPart(this.partOf(k), this.latest));
    const observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          if (!e.isIntersecting) {
            this.visible.delete(e.target);
            continue;
          }
          this.visible.add(e.target);
          const p = this.parts.find((x) => x.root === e.target);
          if (p?.dirty && this.latest) this.fillPart(p, this.latest);
        }
      },
      { rootMargin: '200px 0px' },
    );
    for (const p of this.parts) observer.observe(p.root);
  }

  /**
   * Fills what is in view now and the rest one frame later, so a filter change shows on screen without
   * waiting for charts below the fold. `everything` fills all parts at once (first load).
   */
  render(m: Computed, everything = false): void {
    this.latest = m;
    const empty = m.selection.length === 0;
    this.showEmpty(m, empty);
    for (const p of this.parts) {
      p.dirty = true;
      if (everything || this.visible.has(p.root)) this.fillPart(p, m);
    }
    this.markPending();
    if (this.parts.some((p) => p.dirty) && !this.flushQueued) {
      this.flushQueued = true;
      // At the start of the frame after next: the frame showing what is in view gets painted first.
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          this.flushQueued = false;
          for (const p of this.parts) if (p.dirty && this.latest) this.fillPart(p, this.latest);
        }),
      );
    }
  }

  /** New cost figures (they come from the API, not the page's table): refills the cost card alone. */
  setCost(data: CostData): void {
    this.cost = data;
    if (this.latest) this.fillPart(this.partOf(this.cards.cost), this.latest);
  }

  /** Colours the matrix by verdict or by hidden-test result. */
  colourBy(by: MatrixColouring): void {
    if (by === this.colouring) return;
    this.colouring = by;
    for (const [k, b] of Object.entries(this.colourButtons)) b.setAttribute('aria-pressed', String(k === by));
    if (this.latest) this.fillPart(this.partOf(this.cards.matrix), this.latest);
  }

  /** No run in view: one sentence (and the way out) instead of a page of empty charts. */
  private showEmpty(m: Computed, empty: boolean) {
    this.emptyNote.hidden = !empty;
    this.caveats.hidden = empty;
    this.kpis.hidden = empty;
    (this.root.querySelector('.cards') as HTMLElement).hidden = empty;
    if (!empty) return;
    if (!m.table.size) {
      fill(this.emptyNote, el('p', {}, 'No runs in this space yet. They appear here as runner hosts deliver them.'));
      return;
    }
    const clear = el('button', { type: 'button', class: 'link' }, 'Clear the filters');
    clear.addEventListener('click', () => this.nav.clearFilters());
    fill(
      this.emptyNote,
      el(
        'p',
        {},
        `No run of the ${count(m.table.size)} in this space matches the filters. `,
        clear,
        ' to see them all.',
      ),
    );
  }

  private partOf(c: Card) {
    return this.parts.find((p) => p.root === c.root)!;
  }

  private fillPart(p: { fill: (m: Computed) => void; dirty: boolean }, m: Computed) {
    if (m.selection.length) p.fill(m);
    p.dirty = false;
    this.markPending();
  }

  /** How many parts still show older figures: the tests and the benchmark wait for 0. */
  private markPending() {
    document.documentElement.dataset.pendingParts = String(this.parts.filter((p) => p.dirty).length);
  }

  private named(m: Computed): Named[] {
    return m.figures.groups.map((g) => Object.assign(Object.create(g) as GroupFigures, { label: m.label(g) }) as Named);
  }

  private renderVerdicts(m: Computed) {
    const c = this.cards.verdicts;
    const rows = ordered(this.named(m), c, SORTS.verdicts).map(verdictRow);
    fill(
      c.body,
      legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))),
      barList(rows, percentAxis('share of the model’s runs')),
    );
  }

  private renderResolve(m: Computed) {
    const c = this.cards.resolve;
    fill(
      c.body,
      legend([
        { label: 'judge: resolved', colour: VERDICT_COLOURS.resolved },
        { label: 'hidden tests: pass', colour: MODEL_COLOUR },
      ]),
      barList(
        ordered(this.named(m), c, SORTS.resolve).map(resolveRow),
        percentAxis('rate (judge above, hidden tests below)'),
      ),
    );
    fill(c.foot, 'Excluded, error and not-yet-judged runs are outside the denominator and counted beside it.');
  }

  private renderMedians(
    m: Computed,
    c: Card,
    sorts: SortChoice<Named>[],
    figure: (g: GroupFigures) => MedianFigure,
    format: (v: number) => string,
    title: string,
    kind: 'number' | 'duration' = 'number',
    extra?: (g: GroupFigures) => string,
  ) {
    const groups = ordered(this.named(m), c, sorts);
    // Duration ticks carry their own unit (they change unit along the axis); number ticks are kept short
    // and the axis title names the unit.
    const axis = linearAxis(
      Math.max(0, ...groups.map((g) => figure(g).p75 ?? figure(g).median ?? 0)),
      `${title}: median, line = middle half`,
      kind === 'duration' ? durationTick : shortNumber,
      kind,
    );
    fill(c.body, barList(medianRows(groups, figure, format, axis.scale, extra), axis));
  }

  private renderKpis(m: Computed) {
    fill(
      this.kpis,
      ...m.figures.groups.map((g) =>
        el(
          'div',
          { class: 'kpi', title: m.label(g) },
          el(
            'div',
            { class: 'kpi-model' },
            g.generated > 0 &&
              el(
                'span',
                {
                  class: 'generated',
                  title: `${count(g.generated)} of ${count(g.runs)} runs have generated figures (demo data), not measured.`,
                },
                g.generated === g.runs ? '◇ ' : `◇${count(g.generated)}/${count(g.runs)} `,
              ),
            g.model,
          ),
          m.several && el('div', { class: 'kpi-harness' }, `harness ${g.harnessVersion}`),
          el(
            'div',
            {
              class: `kpi-rate${g.resolve.rate === null ? ' unknown' : ''}`,
              title:
                g.resolve.rate === null
                  ? 'No run has a counted verdict yet'
                  : 'Judge resolve rate: resolved ÷ (resolved + partial + wrong + no change)',
            },
            g.resolve.rate === null ? 'no rate yet' : percent(g.resolve.rate),
            el('span', { class: 'kpi-n' }, ` n=${count(g.resolve.n)}`),
          ),
          intervalBar(g.resolve),
          el(
            'div',
            { class: 'kpi-line kpi-ci', title: `Judge resolve rate ${rateText(g.resolve)}` },
            ciText(g.resolve),
          ),
          el('div', { class: 'kpi-line' }, beside(g.resolve)),
          el(
            'div',
            { class: 'kpi-line', title: `Hidden-test pass rate ${rateText(g.hiddenTests)}` },
            `tests pass ${percent(g.hiddenTests.rate)} (n=${count(g.hiddenTests.n)})`,
          ),
        ),
      ),
    );
  }

  private renderScatter(m: Computed) {
    // Layer k holds verdict code k (0: not judged yet); drawn in that order, so decided runs lie on top.
    const layers = scatterLayers(m.table, m.selection, VERDICTS.length + 1, (i) => m.table.codes.verdict[i]!, true);
    const key = (code: number) => valueOfCode('verdict', code) ?? 'unjudged';
    const shown = layers.reduce((n, l) => n + l.x.length, 0);
    const leftOff = layers.reduce((n, l) => n + l.leftOff, 0);
    const byVerdict = layers
      .map((l, code) => l.x.length && `${count(l.x.length)} ${VERDICT_LABELS[key(code)]}`)
      .filter(Boolean);
    this.scatter.update(
      layers.map((l, code) => ({
        label: VERDICT_LABELS[key(code)],
        colour: VERDICT_COLOURS[key(code)],
        x: l.x,
        y: l.y,
      })),
      `${count(shown)} runs plotted (${byVerdict.join(', ') || 'none'}); ${count(leftOff)} left off.`,
    );
    fill(
      this.cards.scatter.foot,
      `${count(shown)} runs plotted; ${count(leftOff)} left off because their wall time or completion tokens are unknown (or zero, which a log axis cannot show).`,
    );
  }

  private renderOriginal(m: Computed) {
    const c = this.cards.original;
    const comparison = originalFixComparison(m.table, m.grouping, m.groupRows, m.facts);
    const byKey = new Map(comparison.map((r) => [`${r.model}\u0000${r.harnessVersion}`, r]));
    const rows: OriginalRow[] = m.figures.groups.map((g) => ({
      ...byKey.get(`${g.model}\u0000${g.harnessVersion}`)!,
      label: m.label(g),
    }));
    const seconds = rows
      .flatMap((r) => [r.modelHours, r.originalHours])
      .filter((v): v is number => v !== null)
      .map((h) => h * 3600);
    const axis = logDurationAxis(seconds, 'median time, log scale (each tick is a round duration)', durationTick);
    fill(
      c.body,
      legend([
        { label: 'model wall time (median)', colour: MODEL_COLOUR, shape: 'dot' },
        { label: 'original fix: PR open → merge (median)', colour: ORIGINAL_COLOUR, shape: 'diamond' },
      ]),
      barList(
        ordered(rows, c, SORTS.original).map((r): BarRow => {
          const dot = (h: number | null, colour: string, what: string, diamond = false) =>
            h === null ? [] : [{ at: axis.scale(h * 3600), colour, title: `${what}: ${hours(h)}`, diamond }];
          const ratio = ratioOf(r);
          return {
            label: r.label,
            lanes: [
              {
                segments: [],
                dots: [
                  ...dot(r.modelHours, MODEL_COLOUR, 'model (median)'),
                  ...dot(r.originalHours, ORIGINAL_COLOUR, 'original fix (median)', true),
                ],
              },
            ],
            value:
              ratio === null ? UNKNOWN : ratio >= 1 ? `fix ${times(ratio)} longer` : `model ${times(1 / ratio)} longer`,
            note: r.pairs
              ? `model ${hours(r.modelHours)} · fix ${hours(r.originalHours)}; ${count(r.pairs)} resolved runs with both times`
              : 'no resolved run with both times',
            unknown: ratio === null,
          };
        }),
        axis,
        'dots',
      ),
    );
    fill(
      c.foot,
      'The original fix time is calendar time, not effort, and its authors had context the issue text does not carry.',
    );
  }

  private renderTable(m: Computed) {
    const c = this.cards.table;
    const { column, descending } = this.tableSort;
    const sortedBy = TABLE_COLUMNS[column]!;
    const groups = column === 3 && descending ? m.figures.groups : sortTable(m.figures.groups, sortedBy, descending);
    const row = (g: GroupFigures, label = g.model, cls = '') =>
      el(
        'tr',
        { class: cls },
        el('th', { scope: 'row', class: 'text pinned', title: label }, label),
        ...TABLE_COLUMNS.slice(1).map((col) =>
          el('td', { class: col.numeric ? 'num' : 'text', title: col.text(g) }, col.cell ? col.cell(g) : col.text(g)),
        ),
      );
    const header = TABLE_COLUMNS.map((col, k) => {
      const button = el('button', { type: 'button', class: 'sort-button' }, col.title);
      button.addEventListener('click', () => {
        this.tableSort = {
          column: k,
          descending: this.tableSort.column === k ? !this.tableSort.descending : col.numeric,
        };
        this.fillPart(this.partOf(c), this.latest ?? m);
      });
      const sort = k === column ? (descending ? 'descending' : 'ascending') : 'none';
      return el(
        'th',
        { scope: 'col', class: `${col.numeric ? 'num' : 'text'}${k === 0 ? ' pinned' : ''}`, 'aria-sort': sort },
        button,
      );
    });
    fill(
      c.body,
      el(
        'div',
        { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Per-model figures (scrolls sideways)' },
        el(
          'table',
          { class: 'figures models' },
          el('thead', {}, el('tr', {}, ...header)),
          el('tbody', {}, ...groups.map((g) => row(g))),
          el('tfoot', {}, ...totalsPerHarness(m).map((g) => row(g, `All models · ${g.harnessVersion}`, 'total'))),
        ),
      ),
    );
    fill(
      c.foot,
      'Totals are per harness version: runs of different harness versions are never pooled. Medians show "unknown" when no run in the group measured the figure.',
    );
  }

  private renderCalibration(m: Computed) {
    const cal = calibration(m.table, m.selection);
    const k = cal.kappa;
    const t = k.table;
    const kappaBox = el(
      'div',
      { class: 'kappa-box', id: 'kappa' },
      el('h3', {}, 'Agreement beyond chance (Cohen’s κ)'),
      el(
        'table',
        { class: 'figures kappa-table', 'aria-label': 'Runs with a counted verdict and a pass or fail hidden test' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { class: 'text' }, 'judge \\ tests'),
            el('th', { scope: 'col', class: 'num' }, 'pass'),
            el('th', { scope: 'col', class: 'num' }, 'fail'),
          ),
        ),
        el(
          'tbody',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'row', class: 'text' }, 'resolved'),
            el('td', { class: 'num' }, count(t.resolvedPass)),
            el('td', { class: 'num' }, count(t.resolvedFail)),
          ),
          el(
            'tr',
            {},
            el('th', { scope: 'row', class: 'text' }, 'not resolved'),
            el('td', { class: 'num' }, count(t.otherPass)),
            el('td', { class: 'num' }, count(t.otherFail)),
          ),
        ),
      ),
      el(
        'p',
        { class: 'kappa-figure', id: 'kappa-figure' },
        k.kappa === null || !k.ci
          ? `κ unknown (${k.n ? 'both said the same thing every time' : 'n=0'})`
          : `κ = ${k.kappa.toFixed(2)} (95% CI ${k.ci[0].toFixed(2)} to ${k.ci[1].toFixed(2)}, n=${count(k.n)})`,
      ),
      el(
        'p',
        { class: 'muted' },
        '“Not resolved” is partial, wrong or no change. κ = 1: they always agree; 0: no better than chance.',
      ),
    );
    const link = (v: VerdictKey, t: HiddenColumn) => {
      const n = cal.counts[v][t];
      if (!n) return el('td', { class: 'num zero' }, '0');
      const outcome = { verdicts: [v], hiddenTests: [t] };
      const a = el(
        'a',
        {
          href: this.nav.runsHref(outcome),
          class: 'cal-link',
          'data-verdict': v,
          'data-tests': t,
          'aria-label': `${count(n)} runs judged ${VERDICT_LABELS[v]} with ${HIDDEN_TEST_LABELS[t]}: list them`,
        },
        count(n),
      );
      a.addEventListener('click', (e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        this.nav.openRuns(outcome);
      });
      return el('td', { class: 'num' }, a);
    };
    fill(
      this.cards.calibration.body,
      el(
        'table',
        { class: 'figures calibration' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { class: 'text' }, 'judge \\ tests'),
            ...HIDDEN_TEST_COLUMNS.map((t) => el('th', { scope: 'col', class: 'num' }, t === 'none' ? 'no result' : t)),
          ),
        ),
        el(
          'tbody',
          {},
          ...VERDICT_ORDER.map((v) =>
            el(
              'tr',
              {},
              el(
                'th',
                { scope: 'row' },
                el('span', { class: 'swatch', style: `background:${VERDICT_COLOURS[v]}` }),
                VERDICT_LABELS[v],
              ),
              ...HIDDEN_TEST_COLUMNS.map((t) => link(v, t)),
            ),
          ),
        ),
      ),
      el(
        'p',
        { class: 'agreement' },
        `Judge and hidden tests agree on ${rateText(cal.agreement)} of runs that have both (resolved ⇔ pass).`,
      ),
    );
    this.cards.calibration.body.append(kappaBox);
    fill(this.cards.calibration.foot, 'The judge is a model; hidden tests are the objective check.');
  }

  private renderMatrix(m: Computed) {
    const columns = tasksInView(m.table, m.selection, m.taskOrder);
    const columnOf = new Int32Array(m.table.dictionaries.taskId.values.length).fill(-1);
    columns.forEach((t, c) => (columnOf[t] = c));
    const order = new Map(m.figures.groups.map((g, r) => [`${g.model}\u0000${g.harnessVersion}`, r]));
    const rowOfGroup = m.grouping.groups.map((g) => order.get(`${g.model}\u0000${g.harnessVersion}`)!);
    const cells = new Int32Array(m.figures.groups.length * columns.length).fill(-1);
    const colours = new Uint8Array(cells.length);
    const byTests = this.colouring === 'tests';
    const codes = byTests ? m.table.codes.hiddenTest : m.table.codes.verdict;
    for (let s = 0; s < m.selection.length; s++) {
      const i = m.selection[s]!;
      const cell = rowOfGroup[m.grouping.of[s]!]! * columns.length + columnOf[m.table.text.taskId[i]!]!;
      cells[cell] = i;
      colours[cell] = codes[i]!;
    }
    const what = byTests ? 'hidden-test result' : 'judge verdict';
    fill(
      this.matrixLegend,
      byTests
        ? legend(HIDDEN_TEST_COLUMNS.map((t) => ({ label: HIDDEN_TEST_LABELS[t], colour: HIDDEN_TEST_COLOURS[t] })))
        : legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))),
    );
    this.matrix.update({
      rowLabels: m.figures.groups.map((g) => m.label(g)),
      columnCount: columns.length,
      columnWave: Float64Array.from(columns, (t) => m.facts.wave[t] ?? NaN),
      cells,
      colours,
      palette: byTests ? TESTS_PALETTE : VERDICT_PALETTE,
      name: `Model × issue matrix coloured by ${what}`,
      describe: (run, column) => {
        const verdict = valueOfCode('verdict', m.table.codes.verdict[run]!);
        const test = valueOfCode('hiddenTest', m.table.codes.hiddenTest[run]!);
        return `${m.table.string('model', run)} · ${m.taskLabels[columns[column]!]} — ${verdict ? VERDICT_LABELS[verdict] : VERDICT_LABELS.unjudged}; hidden tests: ${test ?? 'no result'}`;
      },
    });
    this.matrixText.textContent = `Each row is a model (with its harness version), each column a task in published order, each cell one run coloured by its ${what}. The per-model table above gives each row's counts as text; the cells can be walked with the keyboard.`;
    fill(
      this.cards.matrix.foot,
      `${count(m.figures.groups.length)} rows × ${count(columns.length)} tasks. Grey: that model has no run of the task in view.`,
    );
  }
}

/** Verdict colours by verdict code (0: not judged yet). */
const VERDICT_PALETTE = [VERDICT_COLOURS.unjudged, ...VERDICTS.map((v) => VERDICT_COLOURS[v])];
/** Hidden-test colours by hidden-test code (0: no result). */
const TESTS_PALETTE = [HIDDEN_TEST_COLOURS.none, ...HIDDEN_TEST_STATUSES.map((t) => HIDDEN_TEST_COLOURS[t])];

function caveats(): HTMLElement {
  return el(
    'aside',
    { class: 'caveats', 'aria-label': 'Read with care' },
    el('strong', {}, 'Read with care: '),
    el(
      'ul',
      {},
      el('li', {}, 'One run per model and task is noisy: read rates over a wave, not a task.'),
      el('li', {}, 'The judge is a model; hidden tests are the objective check.'),
      el(
        'li',
        {},
        'Original-fix times are calendar time, not effort, and the original authors had context the issue text does not carry.',
      ),
    ),
  );
}

/** One total row per harness version in view, so the footer never pools runs of different harnesses. */
function totalsPerHarness(m: Computed): GroupFigures[] {
  // One group per harness version: the aggregates' own grouping, with the model left out.
  const groupOf = new Int32Array(m.table.dictionaries.harnessVersion.values.length).fill(-1);
  const groups = m.figures.harnessVersions.map((harnessVersion, k) => {
    groupOf[m.table.dictionaries.harnessVersion.indexOf(harnessVersion)] = k;
    return { model: 'All models', harnessVersion };
  });
  const harnessOf = m.table.text.harnessVersion;
  const of = new Int32Array(m.selection.length);
  for (let s = 0; s < of.length; s++) of[s] = groupOf[harnessOf[m.selection[s]!]!]!;
  const grouping = { groups, of };
  const byHarness = new Map(
    computeFigures(m.table, m.selection, grouping, rowsByGroup(grouping, m.selection)).groups.map((g) => [
      g.harnessVersion,
      g,
    ]),
  );
  return m.figures.harnessVersions.map((h) => byHarness.get(h)!);
}

function sortTable(groups: GroupFigures[], column: TableColumn, descending: boolean): GroupFigures[] {
  const sign = descending ? -1 : 1;
  return [...groups].sort((a, b) => {
    const [x, y] = [column.value(a), column.value(b)];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return sign * (typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x - y);
  });
}

const ratioOf = (r: OriginalFixComparison) => (r.modelHours && r.originalHours ? r.originalHours / r.modelHours : null);

const times = (ratio: number) => `${ratio >= 10 ? num(ratio) : num(ratio, 1)}×`;

const percentAxis = (title: string): Axis => ({
  title,
  ticks: [0, 0.25, 0.5, 0.75, 1].map((at) => ({ at, label: percent(at) })),
});

/** A rate over its interval and n on short lines, so the table fits its card. */
const rateCell = (r: RateFigure) =>
  el(
    'span',
    { class: 'rate-cell' },
    r.n ? percent(r.rate) : UNKNOWN,
    r.ci && el('span', { class: 'rate-ci' }, intervalText(r.ci)),
    el('span', { class: 'rate-n' }, `n=${count(r.n)}`),
  );

/** "44% (95% CI 35%–53%, n=120)". */
const rateText = percentOf;

/** The rate as a dot on a 0–100 % track with its interval as a whisker (a tile's picture of its uncertainty). */
function intervalBar(r: RateFigure): HTMLElement | null {
  if (r.rate === null || !r.ci) return null;
  const at = (v: number) => `${(v * 100).toFixed(2)}%`;
  return el(
    'div',
    {
      class: 'kpi-ci-bar',
      role: 'img',
      'aria-label': `${percent(r.rate)}, ${ciText(r)}, on a scale from 0 to 100%`,
      title: `${ciText(r)}, n=${count(r.n)}`,
    },
    el('span', { class: 'bar-ci', style: `left:${at(r.ci[0])};width:${at(r.ci[1] - r.ci[0])}` }),
    el('span', { class: 'kpi-ci-dot', style: `left:${at(r.rate)}` }),
  );
}

/** The runs a resolve rate leaves out of its n, named. */
function beside(r: { excluded: number; error: number; flagged: number; unjudged: number }): string {
  const parts = [
    r.flagged && `${count(r.flagged)} flagged`,
    r.excluded && `${count(r.excluded)} excluded`,
    r.error && `${count(r.error)} error`,
    r.unjudged && `${count(r.unjudged)} not judged yet`,
  ].filter(Boolean);
  return parts.length ? `outside n: ${parts.join(' · ')}` : 'outside n: none';
}

const medianText = (f: MedianFigure, format: (v: number) => string) => (f.median === null ? UNKNOWN : format(f.median));

function verdictRow(g: Named): BarRow {
  let from = 0;
  const segments = VERDICT_ORDER.filter((v) => g.verdicts[v] > 0).map((v) => {
    const width = g.verdicts[v] / g.runs;
    const s = {
      from,
      width,
      colour: VERDICT_COLOURS[v],
      title: `${VERDICT_LABELS[v]}: ${count(g.verdicts[v])} of ${count(g.runs)} (${percent(width)})`,
    };
    from += width;
    return s;
  });
  return { label: g.label, lanes: [{ segments }], value: `${count(g.runs)} runs` };
}

function resolveRow(g: Named): BarRow {
  const lane = (r: RateFigure, colour: string, what: string) => {
    const title = `${what}: ${count(r.hits)} of ${count(r.n)}, ${rateText(r)}`;
    return {
      segments: r.rate === null ? [] : [{ from: 0, width: r.rate, colour, title }],
      interval: r.ci ? { from: r.ci[0], to: r.ci[1], title: `${what}: ${ciText(r)} (n=${count(r.n)})` } : undefined,
    };
  };
  const ci = (r: RateFigure) => (r.ci ? intervalText(r.ci) : 'none');
  return {
    label: g.label,
    lanes: [
      lane(g.resolve, VERDICT_COLOURS.resolved, 'judge: resolved'),
      lane(g.hiddenTests, MODEL_COLOUR, 'hidden tests: pass'),
    ],
    value: `${percent(g.resolve.rate)} · ${percent(g.hiddenTests.rate)}`,
    note: `95% CI ${ci(g.resolve)} (n=${count(g.resolve.n)} judged) · ${ci(g.hiddenTests)} (n=${count(g.hiddenTests.n)} tested); ${beside(g.resolve)}`,
    unknown: g.resolve.rate === null,
  };
}

function medianRows(
  groups: Named[],
  figure: (g: GroupFigures) => MedianFigure,
  format: (v: number) => string,
  scale: (v: number) => number,
  extra?: (g: GroupFigures) => string,
): BarRow[] {
  return groups.map((g) => {
    const f = figure(g);
    const known = `${f.known === f.n ? 'all' : count(f.known)} of ${count(f.n)} runs known`;
    return {
      label: g.label,
      lanes: [
        {
          segments:
            f.median === null
              ? []
              : [
                  {
                    from: 0,
                    width: scale(f.median),
                    colour: MODEL_COLOUR,
                    title: `median ${format(f.median)}; ${known}`,
                  },
                ],
          range:
            f.p25 === null || f.p75 === null
              ? undefined
              : { from: scale(f.p25), to: scale(f.p75), title: `middle half: ${format(f.p25)} – ${format(f.p75)}` },
        },
      ],
      value: f.median === null ? UNKNOWN : format(f.median),
      note: extra ? `${extra(g)}; ${known}` : known,
      unknown: f.median === null,
    };
  });
}
