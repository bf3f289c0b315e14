// The Reliability card (docs/contract.md §6 "Repeated samples"; docs/cockpit.md "How reliable is this agent?"): per
// configuration, on the outcome in view, pass@k (at least one of k samples resolves a task) and pass^k (all k do)
// for k from 1 to the smallest sample count of its tasks, each averaged over tasks with its bootstrap interval
// shaded; beside them the mean over all samples with its task-clustered interval and how consistent each task was.
// The figures are shared/analytics/reliability.ts's, the ones `/stats` answers with.
import { OUTCOME_LABELS, type Interval, type ResolveOutcome } from '#analytics/statistics.ts';
import type { Reliability } from '#analytics/reliability.ts';
import { reliabilityOfGroups } from '#analytics/task-samples.ts';
import { legend } from '../widgets/charts/bars.ts';
import { CurveChart, type Curve } from '../widgets/charts/curves.ts';
import { el, fill, nameText } from '../widgets/dom.ts';
import { count, percent } from '../widgets/format.ts';
import { intervalText } from '../widgets/intervals.ts';
import { CONFIGURATION_COLOURS } from '../widgets/palette.ts';
import type { Computed } from '../page/view-model.ts';
import { card, type CardCsv, type DashboardCard } from './card.ts';

export class ReliabilityCard implements DashboardCard<Computed> {
  readonly frame = card(
    'chart-reliability',
    'Reliability',
    'How often a configuration resolves a task when it tries k times: pass@k, at least once in k samples; pass^k, ' +
      'every time in k samples. Each is averaged over tasks; the shaded band is its 95% bootstrap interval over tasks.',
    { wide: true },
  );
  private readonly note = el('p', { class: 'reliability-note', id: 'reliability-note' });
  private readonly legend = el('div', {});
  private readonly passAt: CurveChart;
  private readonly passHat: CurveChart;
  private readonly tables = el('div', { class: 'reliability-tables' });

  constructor() {
    const atHost = el('div', { class: 'curve-host', id: 'reliability-pass-at' });
    const hatHost = el('div', { class: 'curve-host', id: 'reliability-pass-hat' });
    this.frame.body.append(
      this.note,
      this.legend,
      el(
        'div',
        { class: 'curve-pair' },
        el('figure', {}, el('figcaption', {}, 'pass@k: resolved at least once in k samples'), atHost),
        el('figure', {}, el('figcaption', {}, 'pass^k: resolved every time in k samples'), hatHost),
      ),
      this.tables,
    );
    const axes = (figure: string, mark: string) => ({
      x: 'k, samples of a task',
      y: figure,
      pointName: (k: number) => `${mark}${k}`,
    });
    this.passAt = new CurveChart(atHost, this.frame.root, 'pass@k per configuration', axes('pass@k', 'pass@'));
    this.passHat = new CurveChart(hatHost, this.frame.root, 'pass^k per configuration', axes('pass^k', 'pass^'));
  }

  fill(m: Computed): CardCsv {
    const groups = m.figures.groups;
    const figures = reliabilityOfGroups(m.table, m.selection, groups, m.outcome);
    return this.fillFigures(
      groups.map((g, k) => ({ label: m.label(g), ...g, figure: figures[k]! })),
      m.outcome,
    );
  }

  /** Draws each configuration's figures, in the order given: the runs' in the browser, `/stats`' in engine mode. */
  fillFigures(
    configurations: { label: string; model: string; harnessVersion: string; figure: Reliability }[],
    outcomeInView: ResolveOutcome,
  ): CardCsv {
    const m = { outcome: outcomeInView };
    const rows = configurations.map(({ label, model, harnessVersion, figure }, k) => ({
      label,
      model,
      harnessVersion,
      colour: CONFIGURATION_COLOURS[k % CONFIGURATION_COLOURS.length]!,
      figure,
    }));
    const repeated = rows.some(({ figure: f }) => (f.samplesPerTask?.max ?? 0) > 1);
    const outcome = OUTCOME_LABELS[m.outcome];
    fill(
      this.note,
      repeated
        ? `Counted on the ${outcome}. k runs to the smallest number of samples any of a configuration’s tasks has.`
        : `Every task in view has one sample on the ${outcome}: pass@k and pass^k need repeated samples of a task ` +
            `(runs with sample > 1), so only k = 1, the resolve rate, is shown, with its Wilson interval.`,
    );
    fill(this.legend, legend(rows.map((r) => ({ label: r.label, colour: r.colour }))));
    const curve = (r: (typeof rows)[number], pick: 'passAt' | 'passHat'): Curve => ({
      label: r.label,
      colour: r.colour,
      points: r.figure.curve.map((p) => ({
        x: p.k,
        y: p[pick],
        ci: pick === 'passAt' ? p.passAtCi : p.passHatCi,
      })),
    });
    this.passAt.update(rows.map((r) => curve(r, 'passAt')));
    this.passHat.update(rows.map((r) => curve(r, 'passHat')));
    fill(this.tables, summaryTable(rows), pointsTable(rows));
    const warned = rows.filter((r) => r.figure.warning);
    fill(
      this.frame.foot,
      'pass@k is the unbiased estimator of Chen et al. (2021) from each task’s n samples and c resolved; pass^k is ' +
        'C(c, k)/C(n, k) (Yao et al. 2024). The mean over all samples carries a standard error clustered by task ' +
        '(Miller 2024), since samples of one task are not independent; pass@k and pass^k carry percentile bootstrap ' +
        'intervals over tasks, so at k = 1, where both equal that mean, their interval may differ from its by a point. ',
      warned.length ? `${warned.map((r) => `${r.label}: ${r.figure.warning}`).join('; ')}.` : '',
    );
    return () => ({
      columns: [
        'configuration',
        'model',
        'harnessVersion',
        'outcome',
        'k',
        'passAtK',
        'passAtKLow',
        'passAtKHigh',
        'passHatK',
        'passHatKLow',
        'passHatKHigh',
        'tasks',
      ],
      rows: rows.flatMap((r) =>
        r.figure.curve.map((p) => [
          r.label,
          r.model,
          r.harnessVersion,
          m.outcome,
          p.k,
          p.passAt,
          p.passAtCi[0],
          p.passAtCi[1],
          p.passHat,
          p.passHatCi[0],
          p.passHatCi[1],
          p.tasks,
        ]),
      ),
    });
  }
}

interface Row {
  label: string;
  colour: string;
  figure: Reliability;
}

const head = (...titles: string[]) =>
  el('thead', {}, el('tr', {}, ...titles.map((h, k) => el('th', { scope: 'col', class: k ? 'num' : 'text' }, h))));

const nameCell = (r: Row) =>
  el(
    'th',
    { scope: 'row', class: 'text', title: r.label },
    el('span', { class: 'swatch', style: `background:${r.colour}` }),
    nameText(r.label),
  );

/** Per configuration: tasks, samples per task, the mean over all samples with its clustered interval, consistency. */
function summaryTable(rows: Row[]): HTMLElement {
  return el(
    'table',
    { class: 'figures', id: 'reliability-table', 'aria-label': 'Samples and consistency per configuration' },
    head(
      'Configuration',
      'Tasks',
      'Samples per task',
      'Mean over samples (95% CI)',
      'Every / some / no sample resolved',
    ),
    el(
      'tbody',
      {},
      ...rows.map((r) => {
        const f = r.figure;
        const spread = f.samplesPerTask;
        return el(
          'tr',
          { 'data-label': r.label },
          nameCell(r),
          el('td', { class: 'num' }, count(f.tasks)),
          el(
            'td',
            { class: 'num' },
            !spread
              ? '–'
              : spread.min === spread.max
                ? count(spread.min)
                : `${count(spread.min)}–${count(spread.max)} (median ${spread.median})`,
          ),
          el(
            'td',
            { class: 'num' },
            f.rate === null
              ? '–'
              : `${percent(f.rate)} (${f.ci ? intervalText(f.ci) : 'no interval'}; ${count(f.resolved)} of ${count(f.samples)}` +
                  `${f.interval === 'clustered' ? ', clustered by task' : ''})`,
          ),
          el(
            'td',
            { class: 'num' },
            `${count(f.consistency.all)} / ${count(f.consistency.some)} / ${count(f.consistency.none)}`,
          ),
        );
      }),
    ),
  );
}

/** Every point of both charts, with its name: the charts' accessible twin. */
function pointsTable(rows: Row[]): HTMLElement {
  const figure = (v: number, ci: Interval) => `${percent(v)} (${intervalText(ci)})`;
  return el(
    'table',
    { class: 'figures', id: 'reliability-points', 'aria-label': 'Every point of the charts' },
    head('Configuration', 'k', 'pass@k (95% CI)', 'pass^k (95% CI)', 'Tasks'),
    el(
      'tbody',
      {},
      ...rows.flatMap((r) =>
        r.figure.curve.map((p) =>
          el(
            'tr',
            { 'data-label': r.label, 'data-k': p.k },
            nameCell(r),
            el('td', { class: 'num' }, p.k),
            el('td', { class: 'num' }, figure(p.passAt, p.passAtCi)),
            el('td', { class: 'num' }, figure(p.passHat, p.passHatCi)),
            el('td', { class: 'num' }, count(p.tasks)),
          ),
        ),
      ),
    ),
  );
}
