// The model × issue matrix card: one row per group in ranked order, one column per task in published order, each
// cell one run coloured by its judge verdict or its hidden-test result. Unless the reader picks a colouring,
// it follows the outcome in view.
import { tasksInView } from '#analytics/task-order.ts';
import { agreementOf, agreementReader, OUTCOME_LABELS, type ResolveOutcome } from '#analytics/statistics.ts';
import { sampleCountsOf } from '#analytics/task-samples.ts';
import { HIDDEN_TEST_STATUSES, valueOfCode } from '#analytics/columns.ts';
import { VERDICT_KEYS_BY_CODE, verdictCodeAt, verdictKeyAt } from '#analytics/result-filters.ts';
import { card, type CardCsv } from './card.ts';
import { legend } from '../widgets/charts/bars.ts';
import { MARK_COLOUR, MatrixChart } from '../widgets/charts/matrix.ts';
import { el, fill } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import {
  HIDDEN_TEST_COLOURS,
  HIDDEN_TEST_LABELS,
  VERDICT_COLOURS,
  VERDICT_LABELS,
  VERDICT_ORDER,
} from '../widgets/palette.ts';
import { HIDDEN_TEST_COLUMNS, type MatrixColouring } from '../page/url-state.ts';
import type { Computed } from '../page/view-model.ts';

/** Verdict colours by shown verdict code (0: not judged yet; the last: flagged). */
const VERDICT_PALETTE = VERDICT_KEYS_BY_CODE.map((v) => VERDICT_COLOURS[v]);
/** Hidden-test colours by hidden-test code (0: no result). */
const TESTS_PALETTE = [HIDDEN_TEST_COLOURS.none, ...HIDDEN_TEST_STATUSES.map((t) => HIDDEN_TEST_COLOURS[t])];

/**
 * The share of a cell's samples resolved, light to dark in five steps (ColorBrewer YlGnBu, which reads in order under
 * the common forms of colour blindness): none, under half, half, over half, every one. The cell's tip says c/n.
 */
const SAMPLE_RAMP = ['#edf8b1', '#7fcdbb', '#41b6c4', '#225ea8', '#081d58'];
const RAMP_LABELS = [
  'no sample resolved',
  'under half resolved',
  'half resolved',
  'over half resolved',
  'every sample resolved',
];
const RAMP_NONE = VERDICT_COLOURS.unjudged;
const rampStep = (c: number, n: number) => (c === 0 ? 0 : c === n ? 4 : 2 * c < n ? 1 : 2 * c === n ? 2 : 3);

/** The index of the cell holding `run` in `column`, found by its row. */
function rowOfCell(cells: Int32Array, run: number, column: number, columns: number): number {
  for (let k = column; k < cells.length; k += columns) if (cells[k] === run) return k;
  return -1;
}

/** The colouring shown: the reader's, else the one that matches the outcome in view. */
export const colouringOf = (m: Computed, chosen: MatrixColouring | null): MatrixColouring =>
  chosen ?? (m.outcome === 'tests' ? 'tests' : 'verdict');

export class MatrixCard {
  readonly card = card(
    'chart-matrix',
    'Model × issue',
    'One cell per configuration and task, tasks in order (by wave where tasks name one), rows in ranked order; ' +
      'where a task was run several times the cell is the share of its samples resolved. Click a cell, or Tab to ' +
      'the matrix and use the arrow keys and Enter, to open the run.',
    { wide: true },
  );
  private readonly chart: MatrixChart;
  private readonly legend = el('div', {});
  private readonly text = el('p', { class: 'sr-only chart-text', id: 'chart-matrix-text' });
  private readonly buttons: Record<MatrixColouring, HTMLButtonElement>;

  constructor(openRun: (tableRow: number) => void, colourBy: (by: MatrixColouring) => void) {
    const button = (by: MatrixColouring, label: string) => {
      const b = el(
        'button',
        { type: 'button', class: 'chip-toggle', 'aria-pressed': 'false', 'data-colour': by },
        label,
      );
      b.addEventListener('click', () => colourBy(by));
      return b;
    };
    this.buttons = { verdict: button('verdict', 'judge verdict'), tests: button('tests', 'hidden tests') };
    this.card.head.append(
      el(
        'span',
        { class: 'colour-by', role: 'group', 'aria-label': 'Colour the matrix by' },
        el('span', { class: 'muted' }, 'Colour by'),
        this.buttons.verdict,
        this.buttons.tests,
      ),
    );
    const host = el('div', { class: 'matrix-host' });
    this.card.body.append(this.legend, host, this.text);
    this.chart = new MatrixChart(host, this.card.root, openRun, this.text.id);
  }

  /** Each cell's n samples with a result on the outcome and c resolved, and its colour on the ramp (0: none). */
  private sampleCells(
    m: Computed,
    outcome: ResolveOutcome,
    columns: Int32Array,
    rowOfGroup: number[],
    colours: Uint8Array,
  ): { outcome: ResolveOutcome; n: Int32Array; c: Int32Array } {
    const counts = sampleCountsOf(m.table, m.selection, m.grouping.groups, outcome);
    // The counts list tasks in id order, the columns by the table's dictionary: match them by name.
    const names = m.table.dictionaries.taskId.values;
    const position = new Map(counts.tasks.map((task, k) => [task, k]));
    const n = new Int32Array(colours.length);
    const c = new Int32Array(colours.length);
    rowOfGroup.forEach((row, g) =>
      columns.forEach((t, column) => {
        const k = row * columns.length + column;
        const at = position.get(names[t]!)!;
        [n[k], c[k]] = [counts.n[g]![at]!, counts.c[g]![at]!];
        colours[k] = n[k] ? 1 + rampStep(c[k]!, n[k]!) : 0;
      }),
    );
    return { outcome, n, c };
  }

  render(m: Computed, colouring: MatrixColouring): CardCsv {
    for (const [k, b] of Object.entries(this.buttons)) b.setAttribute('aria-pressed', String(k === colouring));
    const columns = tasksInView(m.table, m.selection, m.taskOrder);
    const columnOf = new Int32Array(m.table.dictionaries.taskId.values.length).fill(-1);
    columns.forEach((t, c) => (columnOf[t] = c));
    const order = new Map(m.figures.groups.map((g, r) => [`${g.model}\u0000${g.harnessVersion}`, r]));
    const rowOfGroup = m.grouping.groups.map((g) => order.get(`${g.model}\u0000${g.harnessVersion}`)!);
    const cells = new Int32Array(m.figures.groups.length * columns.length).fill(-1);
    const colours = new Uint8Array(cells.length);
    const marks = new Uint8Array(cells.length);
    const byTests = colouring === 'tests';
    const codeOf = byTests ? (i: number) => m.table.codes.hiddenTest[i]! : (i: number) => verdictCodeAt(m.table, i);
    const agreement = agreementReader(m.table);
    let repeated = false;
    for (let s = 0; s < m.selection.length; s++) {
      const i = m.selection[s]!;
      const g = m.grouping.of[s]!;
      const cell = rowOfGroup[g]! * columns.length + columnOf[m.table.text.taskId[i]!]!;
      // A cell of several samples opens its first.
      if (cells[cell]! >= 0) {
        repeated = true;
        if (m.table.sampleAt(cells[cell]!) < m.table.sampleAt(i)) {
          if (agreement(i) === 'disagree') marks[cell] = 1;
          continue;
        }
      }
      cells[cell] = i;
      colours[cell] = codeOf(i);
      if (agreement(i) === 'disagree') marks[cell] = 1;
    }
    // Where samples repeat, a cell is its c of n samples resolved, on a ramp, rather than one run's colour.
    const samples = repeated ? this.sampleCells(m, byTests ? 'tests' : 'judge', columns, rowOfGroup, colours) : null;
    const labels = m.figures.groups.map((g) => m.label(g));
    const csv: CardCsv = () => ({
      columns: [
        'configuration',
        'task',
        'taskId',
        'runId',
        'judgeVerdict',
        'hiddenTests',
        'disagree',
        ...(samples ? ['samples', 'resolvedSamples'] : []),
      ],
      rows: [...cells.keys()]
        .filter((k) => cells[k]! >= 0)
        .map((k) => {
          const run = cells[k]!;
          const task = columns[k % columns.length]!;
          return [
            labels[Math.floor(k / columns.length)]!,
            m.taskLabels[task]!,
            m.table.dictionaries.taskId.values[task]!,
            m.table.id(run),
            verdictKeyAt(m.table, run),
            valueOfCode('hiddenTest', m.table.codes.hiddenTest[run]!) ?? 'none',
            marks[k] === 1,
            ...(samples ? [samples.n[k]!, samples.c[k]!] : []),
          ];
        }),
    });
    const what = samples
      ? `samples resolved on the ${OUTCOME_LABELS[samples.outcome]}`
      : byTests
        ? 'hidden-test result'
        : 'judge verdict';
    fill(
      this.legend,
      legend([
        ...(samples
          ? [
              { label: 'no sample with a result', colour: RAMP_NONE },
              ...SAMPLE_RAMP.map((colour, step) => ({ label: RAMP_LABELS[step]!, colour })),
            ]
          : byTests
            ? HIDDEN_TEST_COLUMNS.map((t) => ({ label: HIDDEN_TEST_LABELS[t], colour: HIDDEN_TEST_COLOURS[t] }))
            : VERDICT_ORDER.map((v) => ({ label: VERDICT_LABELS[v], colour: VERDICT_COLOURS[v] }))),
        { label: 'dark band on top: judge and tests disagree', colour: MARK_COLOUR },
      ]),
    );
    this.chart.update({
      rowLabels: labels,
      columnCount: columns.length,
      columnWave: Float64Array.from(columns, (t) => m.facts.wave[t] ?? NaN),
      cells,
      colours,
      marks,
      palette: samples ? [RAMP_NONE, ...SAMPLE_RAMP] : byTests ? TESTS_PALETTE : VERDICT_PALETTE,
      name: `Model × issue matrix coloured by ${what}`,
      describe: (run, column) => {
        const where = `${m.table.string('model', run)} · ${m.taskLabels[columns[column]!]} — `;
        const disagree = agreementOf(m.table, run) === 'disagree' ? '; the judge and the tests disagree' : '';
        if (samples) {
          const k = rowOfCell(cells, run, column, columns.length);
          return `${where}${samples.c[k]!}/${samples.n[k]!} samples resolved on the ${OUTCOME_LABELS[samples.outcome]}${disagree}`;
        }
        const verdict = verdictKeyAt(m.table, run);
        const test = valueOfCode('hiddenTest', m.table.codes.hiddenTest[run]!);
        return `${where}${VERDICT_LABELS[verdict]}; hidden tests: ${test ?? 'no result'}${disagree}`;
      },
    });
    this.text.textContent =
      `Each row is a model (with its harness version), each column a task in published order, each cell ` +
      `${samples ? `the task's samples, coloured by the share of them resolved (c of n)` : `one run coloured by its ${what}`}; ` +
      `a dark band across a cell's top marks a run where the judge and the hidden tests disagree. ` +
      `The per-model table above gives each row's counts as text; the cells can be walked with the keyboard.`;
    fill(
      this.card.foot,
      `${count(m.figures.groups.length)} rows × ${count(columns.length)} tasks. Grey: that model has no run of the task in view.` +
        (samples ? ` Samples repeat: a cell is c/n samples resolved; a click opens its first sample.` : ''),
    );
    return csv;
  }
}
