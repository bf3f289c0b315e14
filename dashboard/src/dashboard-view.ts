// The Dashboard area (SPEC §6): KPI tiles, verdict mix, resolve rate, wall time, tokens per minute, steps
// and budget exhaustion, wall time against completion tokens, model time next to the original fix, the
// per-model table, judge against hidden tests, and the model × issue matrix. Each card is built once and
// refilled in place, so a live update never blanks the page or moves the reader.
import {
  calibration,
  originalFixComparison,
  scatterLayers,
  tasksInView,
  type GroupFigures,
  type MedianFigure,
  type RateFigure,
} from '../../shared/read/aggregates.ts';
import { VERDICTS, valueOfCode } from '../../shared/read/columns.ts';
import { barList, legend, logFraction, type BarRow } from './charts/bars.ts';
import { MatrixChart } from './charts/matrix.ts';
import { ScatterChart } from './charts/scatter.ts';
import { el, fill } from './dom.ts';
import { count, duration, hours, num, percent, UNKNOWN } from './format.ts';
import { MODEL_COLOUR, ORIGINAL_COLOUR, VERDICT_COLOURS, VERDICT_LABELS, VERDICT_ORDER } from './palette.ts';
import type { Computed } from './view-model.ts';

interface Card {
  root: HTMLElement;
  body: HTMLElement;
  foot: HTMLElement;
}

function card(id: string, title: string, explain: string, wide = false): Card {
  const body = el('div', { class: 'card-body' });
  const foot = el('p', { class: 'card-foot' });
  const root = el('section', { class: `card${wide ? ' wide' : ''}`, id, 'aria-label': title }, el('h2', {}, title), el('p', { class: 'card-explain' }, explain), body, foot);
  return { root, body, foot };
}

export class DashboardView {
  readonly root = el('div', { class: 'dashboard', id: 'dashboard-area' });
  private readonly kpis = el('section', { class: 'kpis', id: 'kpis', 'aria-label': 'Resolve rate per model' });
  private readonly cards = {
    verdicts: card('chart-verdict-mix', 'Verdict mix', 'Share of runs by verdict, per model.'),
    resolve: card('chart-resolve-rate', 'Resolve rate', 'Judge: resolved ÷ (resolved + partial + wrong + no change). Hidden tests: pass ÷ (pass + fail).'),
    wall: card('chart-wall-time', 'Median wall time', 'Per run, start to finish. Bar: median; band: middle half of runs.'),
    tokens: card('chart-tokens-per-minute', 'Output tokens per minute', 'Median over runs that measured it. Band: middle half of runs.'),
    steps: card('chart-steps', 'Steps and budget exhaustion', 'Median steps per run (band: middle half); share of runs that ran out of step or time budget.'),
    scatter: card('chart-scatter', 'Wall time against completion tokens', 'One square per run, coloured by verdict; log axes. Drag to zoom, double-click to reset.'),
    original: card('chart-original-fix', 'Model time next to the original fix', 'Resolved runs only: median wall time of the model, and median PR-open-to-merge time of the original fix for the same tasks.'),
    table: card('table-models', 'Per model', 'Every figure of the charts above in one table. Medians leave unknown values out.', true),
    calibration: card('table-calibration', 'Judge against hidden tests', 'Runs by judge verdict (rows) and hidden-test result (columns).'),
    matrix: card('chart-matrix', 'Model × issue', 'One cell per run in task order (wave 1 first), coloured by verdict. Click a cell to open the run.', true),
  };
  private readonly scatter: ScatterChart;
  private readonly matrix: MatrixChart;
  /** Each part of the page with how to fill it; `dirty` until it shows the latest figures. */
  private readonly parts: { root: HTMLElement; fill: (m: Computed) => void; dirty: boolean }[];
  private readonly visible = new Set<Element>();
  private latest: Computed | null = null;
  private flushQueued = false;

  constructor(private readonly openRun: (tableRow: number) => void) {
    const c = this.cards;
    this.root.append(
      this.kpis,
      caveats(),
      el('div', { class: 'cards' }, ...[c.verdicts, c.resolve, c.wall, c.tokens, c.steps, c.original, c.scatter, c.calibration, c.table, c.matrix].map((k) => k.root)),
    );
    const scatterHost = el('div', { class: 'scatter-host' });
    c.scatter.body.append(legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))), scatterHost);
    this.scatter = new ScatterChart(scatterHost, c.scatter.root);
    const matrixHost = el('div', { class: 'matrix-host' });
    c.matrix.body.append(legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))), matrixHost);
    this.matrix = new MatrixChart(matrixHost, c.matrix.root, openRun);

    const part = (root: HTMLElement, fill: (m: Computed) => void) => ({ root, fill, dirty: true });
    this.parts = [
      part(this.kpis, (m) => this.renderKpis(m)),
      part(c.verdicts.root, (m) => this.renderVerdicts(m)),
      part(c.resolve.root, (m) => this.renderResolve(m)),
      part(c.wall.root, (m) => fill(c.wall.body, barList(medianRows(m.figures.groups, m.label, (g) => g.wallSeconds, duration)))),
      part(c.tokens.root, (m) => fill(c.tokens.body, barList(medianRows(m.figures.groups, m.label, (g) => g.outputTokensPerMinute, (v) => `${num(v)}/min`)))),
      part(c.steps.root, (m) =>
        fill(c.steps.body, barList(medianRows(m.figures.groups, m.label, (g) => g.steps, (v) => `${num(v)} steps`, (g) => `budget ran out in ${percent(g.budgetExhausted.rate)} of ${count(g.budgetExhausted.n)}`))),
      ),
      part(c.scatter.root, (m) => this.renderScatter(m)),
      part(c.original.root, (m) => this.renderOriginal(m)),
      part(c.table.root, (m) => this.renderTable(m)),
      part(c.calibration.root, (m) => this.renderCalibration(m)),
      part(c.matrix.root, (m) => this.renderMatrix(m)),
    ];
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

  private fillPart(p: { fill: (m: Computed) => void; dirty: boolean }, m: Computed) {
    p.fill(m);
    p.dirty = false;
    this.markPending();
  }

  /** How many parts still show older figures: the tests and the benchmark wait for 0. */
  private markPending() {
    document.documentElement.dataset.pendingParts = String(this.parts.filter((p) => p.dirty).length);
  }

  private renderVerdicts(m: Computed) {
    fill(this.cards.verdicts.body, legend(VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))), barList(m.figures.groups.map((g) => verdictRow(g, m.label(g)))));
  }

  private renderResolve(m: Computed) {
    const c = this.cards.resolve;
    fill(
      c.body,
      legend([
        { label: 'judge: resolved', colour: VERDICT_COLOURS.resolved },
        { label: 'hidden tests: pass', colour: MODEL_COLOUR },
      ]),
      barList(m.figures.groups.map((g) => resolveRow(g, m.label(g)))),
    );
    fill(c.foot, 'Excluded, error and not-yet-judged runs are outside the denominator and counted beside it.');
  }

  private renderKpis(m: Computed) {
    if (!m.figures.groups.length) {
      fill(this.kpis, el('p', { class: 'empty' }, m.table.size ? 'No run matches the filters.' : 'No runs in this space yet. They appear here as runner hosts deliver them.'));
      return;
    }
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
                { class: 'generated', title: `${count(g.generated)} of ${count(g.runs)} runs have generated figures (demo data), not measured.` },
                g.generated === g.runs ? '◇ ' : `◇${count(g.generated)}/${count(g.runs)} `,
              ),
            g.model,
          ),
          m.several && el('div', { class: 'kpi-harness' }, `harness ${g.harnessVersion}`),
          el(
            'div',
            { class: `kpi-rate${g.resolve.rate === null ? ' unknown' : ''}`, title: g.resolve.rate === null ? 'No run has a counted verdict yet' : 'Judge resolve rate: resolved ÷ (resolved + partial + wrong + no change)' },
            g.resolve.rate === null ? 'no rate yet' : percent(g.resolve.rate),
            el('span', { class: 'kpi-n' }, ` n=${count(g.resolve.n)}`),
          ),
          el('div', { class: 'kpi-line' }, beside(g.resolve)),
          el('div', { class: 'kpi-line' }, `tests pass ${rateText(g.hiddenTests)}`),
        ),
      ),
    );
  }

  private renderScatter(m: Computed) {
    // Layer k holds verdict code k (0: not judged yet); drawn in that order, so decided runs lie on top.
    const layers = scatterLayers(m.table, m.selection, VERDICTS.length + 1, (i) => m.table.codes.verdict[i]!, true);
    const key = (code: number) => valueOfCode('verdict', code) ?? 'unjudged';
    this.scatter.update(layers.map((l, code) => ({ label: VERDICT_LABELS[key(code)], colour: VERDICT_COLOURS[key(code)], x: l.x, y: l.y })));
    const shown = layers.reduce((n, l) => n + l.x.length, 0);
    const leftOff = layers.reduce((n, l) => n + l.leftOff, 0);
    fill(this.cards.scatter.foot, `${count(shown)} runs plotted; ${count(leftOff)} left off because their wall time or completion tokens are unknown (or zero, which a log axis cannot show).`);
  }

  private renderOriginal(m: Computed) {
    const rows = originalFixComparison(m.table, m.grouping, m.groupRows, m.facts);
    const values = rows.flatMap((r) => [r.modelHours, r.originalHours]).filter((v): v is number => v !== null && v > 0);
    const lo = Math.min(...values, 1) / 2;
    const hi = Math.max(...values, 2);
    const byKey = new Map(rows.map((r) => [`${r.model}\u0000${r.harnessVersion}`, r]));
    fill(
      this.cards.original.body,
      legend([
        { label: 'model wall time (median)', colour: MODEL_COLOUR },
        { label: 'original fix: PR open → merge (median)', colour: ORIGINAL_COLOUR },
      ]),
      barList(
        m.figures.groups.map((g): BarRow => {
          const r = byKey.get(`${g.model}\u0000${g.harnessVersion}`)!;
          const lane = (v: number | null, colour: string, what: string) => ({
            segments: v === null ? [] : [{ from: 0, width: logFraction(v, lo, hi), colour, title: `${what}: ${hours(v)}` }],
          });
          return {
            label: m.label(g),
            lanes: [lane(r.modelHours, MODEL_COLOUR, 'model'), lane(r.originalHours, ORIGINAL_COLOUR, 'original fix')],
            value: r.pairs ? `${hours(r.modelHours)} vs ${hours(r.originalHours)}` : UNKNOWN,
            note: `${count(r.pairs)} resolved runs with both times`,
            unknown: !r.pairs,
          };
        }),
        'two-lanes',
      ),
    );
    fill(this.cards.original.foot, 'Log scale. The original fix time is calendar time, not effort, and its authors had context the issue text does not carry.');
  }

  private renderTable(m: Computed) {
    const headers = ['Model', 'Harness', 'Runs', 'Resolve rate', 'Resolved', 'Partial', 'Wrong', 'No change', 'Excluded', 'Error', 'Not judged', 'Tests pass', 'Wall (median)', 'Steps (median)', 'Budget ran out', 'Tokens/min', 'Generated'];
    const numeric = (v: string) => el('td', { class: 'num' }, v);
    const row = (g: GroupFigures, cls = '') =>
      el(
        'tr',
        { class: cls },
        el('td', { class: 'text', title: g.model }, g.model),
        el('td', { class: 'text' }, g.harnessVersion),
        numeric(count(g.runs)),
        numeric(rateText(g.resolve)),
        ...(['resolved', 'partial', 'wrong', 'no_change', 'excluded', 'error', 'unjudged'] as const).map((v) => numeric(count(g.verdicts[v]))),
        numeric(rateText(g.hiddenTests)),
        numeric(medianText(g.wallSeconds, duration)),
        numeric(medianText(g.steps, (v) => num(v))),
        numeric(rateText(g.budgetExhausted)),
        numeric(medianText(g.outputTokensPerMinute, (v) => num(v))),
        numeric(g.generated ? `◇ ${count(g.generated)}` : '–'),
      );
    fill(
      this.cards.table.body,
      el(
        'div',
        { class: 'table-scroll' },
        el(
          'table',
          { class: 'figures' },
          el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h)))),
          el('tbody', {}, ...m.figures.groups.map((g) => row(g))),
          m.figures.groups.length > 1 && el('tfoot', {}, row({ ...m.figures.all, model: 'All runs in view' }, 'total')),
        ),
      ),
    );
    fill(this.cards.table.foot, 'Medians show "unknown" when no run in the group measured the figure; hover a median in the charts for how many did.');
  }

  private renderCalibration(m: Computed) {
    const cal = calibration(m.table, m.selection);
    const columns = ['pass', 'fail', 'error', 'none'] as const;
    fill(
      this.cards.calibration.body,
      el(
        'table',
        { class: 'figures calibration' },
        el('thead', {}, el('tr', {}, el('th', {}, 'judge \\ tests'), ...columns.map((c) => el('th', { scope: 'col' }, c === 'none' ? 'no result' : c)))),
        el(
          'tbody',
          {},
          ...VERDICT_ORDER.map((v) =>
            el('tr', {}, el('th', { scope: 'row' }, el('span', { class: 'swatch', style: `background:${VERDICT_COLOURS[v]}` }), VERDICT_LABELS[v]), ...columns.map((c) => el('td', { class: 'num' }, count(cal.counts[v][c])))),
          ),
        ),
      ),
      el('p', { class: 'agreement' }, `Judge and hidden tests agree on ${rateText(cal.agreement)} of runs that have both (resolved ⇔ pass).`),
    );
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
    for (let s = 0; s < m.selection.length; s++) {
      const i = m.selection[s]!;
      const cell = rowOfGroup[m.grouping.of[s]!]! * columns.length + columnOf[m.table.text.taskId[i]!]!;
      cells[cell] = i;
      colours[cell] = m.table.codes.verdict[i]!;
    }
    const tasks = m.table.dictionaries.taskId.values;
    this.matrix.update({
      rowLabels: m.figures.groups.map((g) => m.label(g)),
      columnCount: columns.length,
      columnWave: Float64Array.from(columns, (t) => m.facts.wave[t] ?? NaN),
      cells,
      colours,
      palette: VERDICT_PALETTE,
      describe: (run, column) => {
        const verdict = valueOfCode('verdict', m.table.codes.verdict[run]!);
        const test = valueOfCode('hiddenTest', m.table.codes.hiddenTest[run]!);
        return `${m.table.string('model', run)} · ${tasks[columns[column]!]} — ${verdict ? VERDICT_LABELS[verdict] : VERDICT_LABELS.unjudged}; hidden tests: ${test ?? 'no result'}`;
      },
    });
    fill(this.cards.matrix.foot, `${count(m.figures.groups.length)} rows × ${count(columns.length)} tasks. Grey: that model has no run of the task in view.`);
  }
}

/** Verdict colours by verdict code (0: not judged yet). */
const VERDICT_PALETTE = [VERDICT_COLOURS.unjudged, ...VERDICTS.map((v) => VERDICT_COLOURS[v])];

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
      el('li', {}, 'Original-fix times are calendar time, not effort, and the original authors had context the issue text does not carry.'),
    ),
  );
}

const rateText = (r: RateFigure) => (r.n ? `${percent(r.rate)} (n=${count(r.n)})` : 'unknown (n=0)');

/** The runs a resolve rate leaves out of its n, named. */
function beside(r: { excluded: number; error: number; unjudged: number }): string {
  const parts = [r.excluded && `${count(r.excluded)} excluded`, r.error && `${count(r.error)} error`, r.unjudged && `${count(r.unjudged)} not judged yet`].filter(Boolean);
  return parts.length ? `outside n: ${parts.join(' · ')}` : 'outside n: none';
}

const medianText = (f: MedianFigure, format: (v: number) => string) => (f.median === null ? UNKNOWN : format(f.median));

function verdictRow(g: GroupFigures, label: string): BarRow {
  let from = 0;
  const segments = VERDICT_ORDER.filter((v) => g.verdicts[v] > 0).map((v) => {
    const width = g.verdicts[v] / g.runs;
    const s = { from, width, colour: VERDICT_COLOURS[v], title: `${VERDICT_LABELS[v]}: ${count(g.verdicts[v])} of ${count(g.runs)} (${percent(width)})` };
    from += width;
    return s;
  });
  return { label, lanes: [{ segments }], value: `${count(g.runs)} runs` };
}

function resolveRow(g: GroupFigures, label: string): BarRow {
  const lane = (r: RateFigure, colour: string, what: string) => ({
    segments: r.rate === null ? [] : [{ from: 0, width: r.rate, colour, title: `${what}: ${r.hits} of ${r.n} (${percent(r.rate)})` }],
  });
  return {
    label,
    lanes: [lane(g.resolve, VERDICT_COLOURS.resolved, 'judge: resolved'), lane(g.hiddenTests, MODEL_COLOUR, 'hidden tests: pass')],
    value: `${percent(g.resolve.rate)} · ${percent(g.hiddenTests.rate)}`,
    note: `n=${count(g.resolve.n)} judged, ${count(g.hiddenTests.n)} tested; ${beside(g.resolve)}`,
    unknown: g.resolve.rate === null,
  };
}

function medianRows(
  groups: GroupFigures[],
  label: (g: GroupFigures) => string,
  figure: (g: GroupFigures) => MedianFigure,
  format: (v: number) => string,
  extra?: (g: GroupFigures) => string,
): BarRow[] {
  const max = Math.max(...groups.map((g) => figure(g).p75 ?? 0), Number.MIN_VALUE);
  return groups.map((g) => {
    const f = figure(g);
    const known = `${f.known === f.n ? 'all' : count(f.known)} of ${count(f.n)} runs known`;
    return {
      label: label(g),
      lanes: [
        {
          segments: f.median === null ? [] : [{ from: 0, width: f.median / max, colour: MODEL_COLOUR, title: `median ${format(f.median)}; ${known}` }],
          range: f.p25 === null || f.p75 === null ? undefined : { from: f.p25 / max, to: f.p75 / max, title: `middle half: ${format(f.p25)} – ${format(f.p75)}` },
        },
      ],
      value: f.median === null ? UNKNOWN : format(f.median),
      note: extra ? `${extra(g)}; ${known}` : known,
      unknown: f.median === null,
    };
  });
}
