// The Dashboard area (docs/contract.md §6): KPI tiles, verdict mix, resolve rate, wall time, tokens per minute, steps
// and budget exhaustion, wall time against completion tokens, model time next to the original fix, the
// per-model table, judge against hidden tests, cost, and the model × issue matrix. Every figure that says
// "resolved" is counted on the outcome in view and names it. Each card is built once and refilled in place,
// so a live update never blanks the page or moves the reader; each card lives in its own module.
import { scatterLayers } from '#analytics/scatter-layers.ts';
import { VERDICT_KEYS_BY_CODE, verdictCodeAt } from '#analytics/result-filters.ts';
import { OUTCOME_LABELS } from '#analytics/statistics.ts';
import { renderMedians, renderOriginal, renderResolve, renderVerdicts, resolveCard, SORTS } from './bar-cards.ts';
import { renderBreakdown } from './breakdown-card.ts';
import { renderRepoBreakdown, type RepoNav } from './repo-breakdown-card.ts';
import { renderCalibration, type CalibrationNav } from './calibration-card.ts';
import { card, sortLabels, type Card, type CardCsv, type DashboardCard } from './card.ts';
import { legend } from '../widgets/charts/bars.ts';
import { ScatterChart } from '../widgets/charts/scatter.ts';
import { COST_BASES, renderCost } from './cost-card.ts';
import { renderJudgeSpend, type CostData } from './judge-spend-card.ts';
import { el, fill } from '../widgets/dom.ts';
import { count, countMedian, duration, num } from '../widgets/format.ts';
import { percentOf } from '../widgets/intervals.ts';
import { renderKpis } from './kpi-tiles.ts';
import { colouringOf, MatrixCard } from './matrix-card.ts';
import { DEFAULT_TABLE_SORT, renderModelsTable, type TableSort } from './models-table.ts';
import { ReliabilityCard } from './reliability-card.ts';
import { VERDICT_COLOURS, VERDICT_LABELS, VERDICT_ORDER } from '../widgets/palette.ts';
import type { MatrixColouring } from '../page/url-state.ts';
import type { Computed } from '../page/view-model.ts';

/** What the dashboard asks of the page around it. */
export interface DashboardNav extends CalibrationNav, RepoNav {
  openRun(tableRow: number): void;
  colourMatrix(by: MatrixColouring): void;
  clearFilters(): void;
  /** Counts on the judge instead (the way out of an empty hidden-test view). */
  useJudge(): void;
}

interface Part {
  root: HTMLElement;
  fill: (m: Computed) => void;
  /** Until it shows the latest figures. */
  dirty: boolean;
  /**
   * What the part shows depends on, when that is less than the whole view: the part is not drawn again
   * while every item is the same (the scatter does not change with the outcome, nor the cost cards until
   * their figures arrive).
   */
  key?: (m: Computed) => readonly unknown[];
  drawnFor?: readonly unknown[];
}

const sameItems = (a: readonly unknown[], b: readonly unknown[] | undefined) =>
  !!b && a.length === b.length && a.every((x, k) => x === b[k]);

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
  private readonly cardList = el('div', { class: 'cards' });
  private readonly jumpLinks = el('nav', { class: 'jump-links', id: 'jump-links', 'aria-label': 'Cards on this page' });
  private readonly cards = {
    verdicts: card('chart-verdict-mix', 'Verdict mix', 'Share of runs by judge verdict, per model.', {
      sorts: sortLabels(SORTS.verdicts),
    }),
    resolve: resolveCard(),
    wall: card(
      'chart-wall-time',
      'Median wall time',
      'Per run, its wall time as sent: finish − start, or for an imported run what its harness timed (Harbor: ' +
        'the agent’s span alone). Bar: median; line: middle half of runs.',
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
      'One square per run, coloured by judge verdict; log axes. Drag to zoom, double-click to reset.',
    ),
    original: card(
      'chart-original-fix',
      'Model time next to the original fix',
      'Runs resolved on the outcome in view only: median wall time of the model (●) and median PR-open-to-merge time ' +
        'of the original fix for the same tasks (◆), on one log time axis; the number is how many times longer the fix took.',
      { sorts: sortLabels(SORTS.original) },
    ),
    breakdown: card(
      'table-breakdown',
      'Resolve rate by tier, difficulty and wave',
      'Each configuration’s rate among its runs of the tasks of each tier its senders typed, each empirical difficulty, and each wave.',
      { wide: true },
    ),
    repos: card(
      'table-repos',
      'Resolve rate by repository',
      'Each configuration’s rate among its runs of each repository’s tasks, the repository with the most tasks first.',
      { wide: true },
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
      'Cost per resolved task',
      'What each configuration’s runs cost against what they resolved on the outcome in view, ' +
        'and which configurations no other beats on both resolve rate and cost (the Pareto front).',
      { wide: true },
    ),
    judgeSpend: card(
      'chart-judge-spend',
      'Judge spend',
      'What judging cost per day against the daily cap, and per configuration.',
    ),
  };
  private readonly matrix: MatrixCard;
  private readonly reliability = new ReliabilityCard();
  private readonly scatter: ScatterChart;
  private matrixColouring: MatrixColouring | null = null;
  private tableSort: TableSort = DEFAULT_TABLE_SORT;
  private readonly parts: Part[];
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
    this.matrix = new MatrixCard(
      (i) => this.nav.openRun(i),
      (by) => this.nav.colourMatrix(by),
    );
    this.cardList.append(
      ...[
        c.verdicts,
        c.resolve,
        this.reliability.frame,
        c.wall,
        c.tokens,
        c.steps,
        c.original,
        c.scatter,
        c.calibration,
        c.table,
        c.breakdown,
        c.repos,
        c.cost,
        c.judgeSpend,
        this.matrix.card,
      ].map((k) => k.root),
    );
    this.root.append(this.jumpLinks, this.kpis, this.emptyNote, this.caveats, this.cardList);
    this.fillJumpLinks();
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

    c.cost.head.append(el('label', { class: 'card-sort-label' }, 'Cost on the chart ', this.costBasis));
    this.costBasis.addEventListener('change', () => this.latest && this.fillPart(this.partOf(c.cost), this.latest));
    const cards: DashboardCard<Computed>[] = [
      { frame: c.verdicts, fill: (m) => renderVerdicts(c.verdicts, m) },
      { frame: c.resolve, fill: (m) => renderResolve(c.resolve, m) },
      this.reliability,
      {
        frame: c.wall,
        fill: (m) =>
          renderMedians(c.wall, m, SORTS.wall, (g) => g.wallSeconds, duration, 'wall time per run', 'duration'),
      },
      {
        frame: c.tokens,
        fill: (m) =>
          renderMedians(
            c.tokens,
            m,
            SORTS.tokens,
            (g) => g.outputTokensPerMinute,
            (v) => `${num(v)}/min`,
            'output tokens per minute (tokens/min)',
          ),
      },
      {
        frame: c.steps,
        fill: (m) =>
          renderMedians(
            c.steps,
            m,
            SORTS.steps,
            (g) => g.steps,
            (v) => `${countMedian(v)} steps`,
            'model steps per run (steps)',
            'number',
            // Not "budget ran out in unknown (n=0)" where no run records it (none of the Lite demo's does).
            (g) =>
              g.budgetExhausted.rate === null
                ? 'whether its budget ran out is not recorded'
                : `budget ran out in ${percentOf(g.budgetExhausted)}`,
          ),
      },
      { frame: c.scatter, fill: (m) => this.renderScatter(m), dependsOn: (m) => [m.selection] },
      { frame: c.original, fill: (m) => renderOriginal(c.original, m) },
      {
        frame: c.table,
        fill: (m) =>
          renderModelsTable(c.table, m, this.tableSort, (next) => {
            this.tableSort = next;
            this.fillPart(this.partOf(c.table), this.latest ?? m);
          }),
      },
      { frame: c.breakdown, fill: (m) => renderBreakdown(c.breakdown, m) },
      { frame: c.repos, fill: (m) => renderRepoBreakdown(c.repos, m, this.nav) },
      { frame: c.calibration, fill: (m) => renderCalibration(c.calibration, m, this.nav) },
      {
        frame: c.cost,
        fill: (m) => renderCost(c.cost, this.cost, this.costBasis, (g) => m.label(g)),
        dependsOn: (m) => [this.cost, m.several, this.costBasis.value],
      },
      {
        frame: c.judgeSpend,
        fill: (m) => renderJudgeSpend(c.judgeSpend, this.cost, (g) => m.label(g)),
        dependsOn: (m) => [this.cost, m.several],
      },
      {
        frame: this.matrix.card,
        fill: (m) => this.matrix.render(m, colouringOf(m, this.matrixColouring)),
      },
    ];
    const drawn = (k: DashboardCard<Computed>): Part => ({
      root: k.frame.root,
      fill: (m) => (k.frame.data = k.fill(m)),
      dirty: true,
      key: k.dependsOn,
    });
    this.parts = [{ root: this.kpis, fill: (m) => renderKpis(this.kpis, m), dirty: true }, ...cards.map(drawn)];
    // A card's own order changes only that card.
    for (const k of [...Object.values(this.cards), this.matrix.card])
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
    const empty = this.showEmpty(m);
    for (const p of this.parts) {
      p.dirty = !empty;
      if (!empty && (everything || this.visible.has(p.root))) this.fillPart(p, m);
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

  /** New cost figures (they come from the API, not the page's table): refills the cost cards alone. */
  setCost(data: CostData): void {
    this.cost = data;
    if (!this.latest) return;
    this.fillPart(this.partOf(this.cards.cost), this.latest);
    this.fillPart(this.partOf(this.cards.judgeSpend), this.latest);
  }

  /** Colours the matrix by verdict or by hidden-test result; null follows the outcome in view. */
  colourBy(by: MatrixColouring | null): void {
    if (by === this.matrixColouring) return;
    this.matrixColouring = by;
    if (this.latest) this.fillPart(this.partOf(this.matrix.card), this.latest);
  }

  /**
   * No run in view, or hidden tests asked for where none has a result: one sentence (and the way out)
   * instead of a page of empty charts or zeros. True when the page is empty.
   */
  private showEmpty(m: Computed): boolean {
    const empty = m.selection.length === 0 || m.noTestResults;
    this.emptyNote.hidden = !empty;
    this.caveats.hidden = empty;
    fill(this.caveats.querySelector('.noise')!, noiseCaveat(m));
    this.kpis.hidden = empty;
    this.cardList.hidden = empty;
    this.jumpLinks.hidden = empty;
    if (!empty) return false;
    const button = (text: string, action: () => void) => {
      const b = el('button', { type: 'button', class: 'link' }, text);
      b.addEventListener('click', action);
      return b;
    };
    if (!m.table.size)
      fill(this.emptyNote, el('p', {}, 'No runs in this space yet. They appear here as runner hosts deliver them.'));
    else if (m.noTestResults)
      fill(
        this.emptyNote,
        el(
          'p',
          {},
          `There are no test results in view: none of the ${count(m.base.length)} runs the filters select ` +
            `has a hidden-test result of pass or fail, so nothing can be counted on the ${OUTCOME_LABELS.tests}. `,
          button('Count on the judge', () => this.nav.useJudge()),
          ' or ',
          button('clear the filters', () => this.nav.clearFilters()),
          '.',
        ),
      );
    else
      fill(
        this.emptyNote,
        el(
          'p',
          {},
          `No run of the ${count(m.table.size)} in this space matches the filters. `,
          button('Clear the filters', () => this.nav.clearFilters()),
          ' to see them all.',
        ),
      );
    return true;
  }

  /** A link to each card, in the page's order: it scrolls the card into view and moves the focus there. */
  private fillJumpLinks() {
    const links = [...this.cardList.querySelectorAll<HTMLElement>(':scope > .card')].map((section) => {
      const a = el('a', { href: `#${section.id}` }, section.querySelector('h2')!.textContent);
      a.addEventListener('click', (e) => {
        e.preventDefault();
        if (!section.hasAttribute('tabindex')) section.setAttribute('tabindex', '-1');
        section.scrollIntoView({ block: 'start' });
        section.focus({ preventScroll: true });
      });
      return a;
    });
    fill(this.jumpLinks, el('span', { class: 'muted' }, 'Jump to:'), ...links);
  }

  private partOf(c: Card): Part {
    return this.parts.find((p) => p.root === c.root)!;
  }

  private fillPart(p: Part, m: Computed) {
    const key = p.key?.(m);
    if ((!key || !sameItems(key, p.drawnFor)) && m.selection.length && !m.noTestResults) {
      const start = performance.now();
      p.fill(m);
      p.drawnFor = key;
      // How long the part took to fill (a uPlot chart draws later, and measures its drawing itself): one measure
      // per part, the latest, which the benchmark reads.
      const name = `fill #${p.root.id}`;
      performance.clearMeasures(name);
      performance.measure(name, { start });
    }
    p.dirty = false;
    this.markPending();
  }

  /** How many parts still show older figures: the tests and the benchmark wait for 0. */
  private markPending() {
    document.documentElement.dataset.pendingParts = String(this.parts.filter((p) => p.dirty).length);
  }

  private renderScatter(m: Computed): CardCsv {
    // Layer k holds shown verdict code k (0: not judged yet; the last: flagged); drawn in that order, so decided runs lie on top.
    const layers = scatterLayers(
      m.table,
      m.selection,
      VERDICT_KEYS_BY_CODE.length,
      (i) => verdictCodeAt(m.table, i),
      true,
    );
    const key = (code: number) => VERDICT_KEYS_BY_CODE[code]!;
    const shown = layers.reduce((n, l) => n + l.x.length, 0);
    const leftOff = layers.reduce((n, l) => n + l.leftOff, 0);
    const byVerdict = layers
      .map((l, code) => l.x.length && `${count(l.x.length)} ${VERDICT_LABELS[key(code)]}`)
      .filter(Boolean);
    const { completionTokens, wallSeconds } = m.table.numbers;
    const csv: CardCsv = () => ({
      columns: ['runId', 'model', 'harnessVersion', 'verdict', 'completionTokens', 'wallSeconds'],
      rows: Array.from(
        m.selection.filter((i) => completionTokens[i]! > 0 && wallSeconds[i]! > 0),
        (i) => [
          m.table.id(i),
          m.table.string('model', i),
          m.table.string('harnessVersion', i),
          key(verdictCodeAt(m.table, i)),
          completionTokens[i]!,
          wallSeconds[i]!,
        ],
      ),
    });
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
      `${count(shown)} runs plotted; ${count(leftOff)} left off because their wall ` +
        `time or completion tokens are unknown (or zero, which a log axis cannot show).`,
    );
    return csv;
  }
}

/** Runs of a task several times (sample > 1) are not "one run per model and task", as the Terminal-Bench demo's five trials are not. */
function noiseCaveat(m: Computed): string {
  return m.figures.samplesRepeat
    ? 'Tasks were run several times, and samples of one task are not independent: the intervals beside a rate ' +
        'are clustered by task (Miller 2024), as the Reliability card’s are; a run is not a draw of its own.'
    : 'One run per model and task is noisy: read rates over a wave, not a task.';
}

function caveats(): HTMLElement {
  return el(
    'aside',
    { class: 'caveats', 'aria-label': 'Read with care' },
    el('strong', {}, 'Read with care: '),
    el(
      'ul',
      {},
      el('li', { class: 'noise' }),
      el('li', {}, 'The judge is a model; hidden tests are the objective check.'),
      el(
        'li',
        {},
        'Original-fix times are calendar time, not effort, and the original authors had context the issue text does not carry.',
      ),
    ),
  );
}
