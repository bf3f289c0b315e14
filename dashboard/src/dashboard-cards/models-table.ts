// The per-model table: every figure of the charts in one table, a row per group, sortable by any column (the
// heading is a button; `aria-sort` says how), the model column pinned while the figures scroll sideways, and
// one total row per harness version, never a total that pools harness versions. Its first rate is the resolve
// rate on the outcome in view, named in its heading.
import { computeFigures, type GroupFigures } from '#analytics/group-figures.ts';
import { type MedianFigure } from '#analytics/quantiles.ts';
import { type RateFigure } from '#analytics/rate-figures.ts';
import { rowsByGroup } from '#analytics/run-grouping.ts';
import {
  kappaWithheld,
  tooFewText,
  wilsonInterval,
  type Agreement,
  type OutcomeRate,
  type ResolveOutcome,
} from '#analytics/statistics.ts';
import type { StatsGroup } from '#analytics/contract.ts';
import { rateCell, type Card, type CardCsv } from './card.ts';
import { el, fill, nameText, sidewaysScroll } from '../widgets/dom.ts';
import { count, countMedian, duration, num, UNKNOWN } from '../widgets/format.ts';
import { percentOf } from '../widgets/intervals.ts';
import { rateLabel } from './kpi-tiles.ts';
import type { VerdictKey } from '../widgets/palette.ts';
import type { Computed } from '../page/view-model.ts';

/** A column of the table: its text and what it sorts by. */
interface TableColumn {
  key: string;
  title: string;
  numeric: boolean;
  text(g: GroupFigures): string;
  value(g: GroupFigures): number | string | null;
  /** Richer cell content than the text, when there is some (a rate over its n). */
  cell?(g: GroupFigures): Node;
}

const VERDICT_COLUMNS: [VerdictKey, string][] = [
  ['resolved', 'Judged resolved'],
  ['partial', 'Partial'],
  ['wrong', 'Wrong'],
  ['no_change', 'No change'],
  ['excluded', 'Excluded'],
  ['error', 'Error'],
  ['flagged', 'Flagged'],
  ['unjudged', 'Not judged'],
];

const medianText = (f: MedianFigure, format: (v: number) => string) => (f.median === null ? UNKNOWN : format(f.median));

const rateColumn = (key: string, title: string, figure: (g: GroupFigures) => RateFigure): TableColumn => ({
  key,
  title,
  numeric: true,
  text: (g) => `${title}: ${percentOf(figure(g))}`,
  value: (g) => figure(g).rate,
  cell: (g) => rateCell(figure(g)),
});

/** The columns with the outcome in view first among the rates, after the rank on it. */
function columnsFor(m: Computed): TableColumn[] {
  const outcome = m.outcome;
  const other: ResolveOutcome = outcome === 'tests' ? 'judge' : 'tests';
  const rank = (g: GroupFigures) => m.rankOf(g);
  // Below the cockpit's minimum n, not merely unranked: a harness version's total is never ranked, yet not too few.
  const tooFew = (g: GroupFigures) => g.outcomes[outcome].rate !== null && g.outcomes[outcome].n < m.minN;
  return [
    { key: 'model', title: 'Model', numeric: false, text: (g) => g.model, value: (g) => g.model },
    { key: 'harness', title: 'Harness', numeric: false, text: (g) => g.harnessVersion, value: (g) => g.harnessVersion },
    {
      key: 'rank',
      title: 'Rank',
      numeric: true,
      text: (g) => (rank(g) === null ? (tooFew(g) ? tooFewText(g.outcomes[outcome].n) : 'no rate') : `#${rank(g)}`),
      // Ascending puts #1 first; unranked rows sort after the ranked either way.
      value: (g) => rank(g),
      cell: (g) => (rank(g) === null ? el('span', { class: 'muted' }, '—') : document.createTextNode(`#${rank(g)}`)),
    },
    { key: 'runs', title: 'Runs', numeric: true, text: (g) => count(g.runs), value: (g) => g.runs },
    {
      ...rateColumn('rate', capitalised(rateLabel(outcome)), (g) => g.outcomes[outcome]),
      cell: (g) =>
        tooFew(g)
          ? el(
              'span',
              { class: 'too-few-cell' },
              rateCell(g.outcomes[outcome]),
              el('span', { class: 'rate-n too-few-note' }, tooFewText(g.outcomes[outcome].n)),
            )
          : rateCell(g.outcomes[outcome]),
    },
    rateColumn('other-rate', capitalised(rateLabel(other)), (g) => g.outcomes[other]),
    rateColumn('first-attempt', 'First-attempt rate · judge', (g) => g.firstResolve),
    {
      key: 'kappa',
      title: 'κ judge vs tests',
      numeric: true,
      text: (g) => kappaTitle(g.kappa),
      value: (g) => (kappaWithheld(g.kappa) ? null : g.kappa.kappa),
      cell: (g) => kappaCell(g.kappa),
    },
    { key: 'reruns', title: 'Re-runs', numeric: true, text: (g) => count(g.reruns), value: (g) => g.reruns },
    ...VERDICT_COLUMNS.map(([v, title]): TableColumn => ({
      key: `verdict-${v}`,
      title,
      numeric: true,
      text: (g) => count(g.verdicts[v]),
      value: (g) => g.verdicts[v],
    })),
    {
      key: 'wall',
      title: 'Wall time (median)',
      numeric: true,
      text: (g) => medianText(g.wallSeconds, duration),
      value: (g) => g.wallSeconds.median,
    },
    {
      key: 'steps',
      title: 'Steps (median)',
      numeric: true,
      text: (g) => medianText(g.steps, countMedian),
      value: (g) => g.steps.median,
    },
    rateColumn('budget', 'Budget ran out', (g) => g.budgetExhausted),
    {
      key: 'tokens',
      title: 'Output tokens/min (median)',
      numeric: true,
      text: (g) => medianText(g.outputTokensPerMinute, (v) => num(v)),
      value: (g) => g.outputTokensPerMinute.median,
    },
    {
      key: 'generated',
      title: 'Generated',
      numeric: true,
      text: (g) => (g.generated ? `◇ ${count(g.generated)}` : '–'),
      value: (g) => g.generated,
    },
  ];
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const kappaTitle = (k: Pick<Agreement, 'n' | 'kappa' | 'ci'>) => {
  const withheld = kappaWithheld(k);
  return withheld
    ? `κ not shown: ${withheld}`
    : `Cohen’s κ ${k.kappa!.toFixed(2)} (95% CI ${k.ci![0].toFixed(2)} to ${k.ci![1].toFixed(2)}, n=${count(k.n)})`;
};

/** κ over its interval and n, or "—" with why there is none. */
function kappaCell(k: Pick<Agreement, 'n' | 'kappa' | 'ci'>): Node {
  const withheld = kappaWithheld(k);
  if (withheld)
    return el('span', { class: 'rate-cell kappa-cell withheld' }, '—', el('span', { class: 'rate-n' }, withheld));
  return el(
    'span',
    { class: 'rate-cell kappa-cell' },
    k.kappa!.toFixed(2),
    el('span', { class: 'rate-ci' }, `${k.ci![0].toFixed(2)} to ${k.ci![1].toFixed(2)}`),
    el('span', { class: 'rate-n' }, `n=${count(k.n)}`),
  );
}

/** The table's sort: a column key and direction; the default is the ranked order of the tiles. */
export interface TableSort {
  column: string;
  descending: boolean;
}

export const DEFAULT_TABLE_SORT: TableSort = { column: 'rate', descending: true };

export function renderModelsTable(
  c: Pick<Card, 'body' | 'foot'>,
  m: Computed,
  sort: TableSort,
  resort: (next: TableSort) => void,
): CardCsv {
  const columns = columnsFor(m);
  const sortedBy = columns.find((col) => col.key === sort.column) ?? columns.find((col) => col.key === 'rate')!;
  const ranked = sortedBy.key === 'rate' && sort.descending;
  const groups = ranked ? m.figures.groups : sortTable(m.figures.groups, sortedBy, sort.descending);
  const csv: CardCsv = () => ({
    columns: columns.map((col) => col.key),
    rows: groups.map((g) => columns.map((col) => col.value(g))),
  });
  const row = (g: GroupFigures, label = g.model, cls = '') =>
    el(
      'tr',
      { class: cls },
      el('th', { scope: 'row', class: 'text pinned', title: label }, nameText(label)),
      ...columns
        .slice(1)
        .map((col) =>
          el(
            'td',
            { class: col.numeric ? 'num' : 'text', title: col.text(g) },
            col.cell ? col.cell(g) : col.numeric ? col.text(g) : nameText(col.text(g)),
          ),
        ),
    );
  const header = columns.map((col, k) => {
    const button = el('button', { type: 'button', class: 'sort-button' }, col.title);
    button.addEventListener('click', () =>
      resort({ column: col.key, descending: sort.column === col.key ? !sort.descending : col.numeric }),
    );
    const state = col === sortedBy ? (sort.descending ? 'descending' : 'ascending') : 'none';
    return el(
      'th',
      {
        scope: 'col',
        class: `${col.numeric ? 'num' : 'text'}${k === 0 ? ' pinned' : ''}`,
        'aria-sort': state,
        'data-column': col.key,
      },
      button,
    );
  });
  fill(
    c.body,
    sidewaysScroll(
      'Per-model figures',
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
  return csv;
}

/** Totals of each selection (they do not change with the outcome or the order): computed once. */
const totalsOf = new WeakMap<Uint32Array, GroupFigures[]>();

/** One total row per harness version in view, so the footer never pools runs of different harnesses. */
function totalsPerHarness(m: Computed): GroupFigures[] {
  let totals = totalsOf.get(m.selection);
  if (!totals) totalsOf.set(m.selection, (totals = harnessTotals(m)));
  return totals;
}

function harnessTotals(m: Computed): GroupFigures[] {
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

/**
 * A configuration's rate on one outcome from `/stats`, with the interval the browser's tiles show: on the outcome
 * asked, `/stats`' own (clustered by task where samples repeat); on the other, Wilson's, which `/stats` lets the
 * page work out only where every task has one sample (none where samples repeat).
 */
export function rateOn(g: StatsGroup, outcome: ResolveOutcome, asked: ResolveOutcome): OutcomeRate {
  // Samples repeat on the other outcome wherever some task ran more than once, whatever the asked one counted.
  const repeated = (g.samples.samplesPerTask?.max ?? 1) > 1 || g.runs > g.tasks;
  const rate = (hits: number, n: number, outside: number): OutcomeRate => ({
    outcome,
    hits,
    n,
    rate: n ? hits / n : null,
    ci: outcome === asked ? g.ci : repeated ? null : wilsonInterval(hits, n),
    outside,
  });
  if (outcome === asked) return rate(g.resolved, g.n, g.outside);
  return outcome === 'judge'
    ? rate(g.judge.resolved, g.judge.n, g.runs - g.judge.n)
    : rate(g.hidden.pass, g.hidden.n, g.runs - g.hidden.n);
}

/**
 * The per-model table of engine mode, from `/stats`: the browser table's columns that `/stats` answers, with the
 * same keys, texts and order; the rest (first-attempt rate, re-runs, partial, wrong and no-change counts, the
 * medians and the budget) need every run and are named in the foot, not drawn.
 */
export function renderEngineModelsTable(
  c: Pick<Card, 'body' | 'foot'>,
  groups: readonly StatsGroup[],
  outcome: ResolveOutcome,
): void {
  const other: ResolveOutcome = outcome === 'tests' ? 'judge' : 'tests';
  const rateOf = (g: StatsGroup, on: ResolveOutcome): RateFigure => rateOn(g, on, outcome);
  const rateText = (title: string, r: RateFigure) => `${title}: ${percentOf(r)}`;
  const verdicts: [string, (g: StatsGroup) => number][] = [
    ['resolved', (g) => g.judge.resolved],
    ['excluded', (g) => g.judge.excluded],
    ['error', (g) => g.judge.error],
    ['flagged', (g) => g.judge.flagged],
    ['unjudged', (g) => g.judge.notJudged],
  ];
  const columns: { key: string; title: string; text(g: StatsGroup): string; cell?(g: StatsGroup): Node }[] = [
    { key: 'harness', title: 'Harness', text: (g) => g.harnessVersion, cell: (g) => nameText(g.harnessVersion) },
    {
      key: 'rank',
      title: 'Rank',
      text: (g) => (g.rank === null ? (g.rate !== null ? tooFewText(g.n) : 'no rate') : `#${g.rank}`),
      cell: (g) => (g.rank === null ? el('span', { class: 'muted' }, '—') : document.createTextNode(`#${g.rank}`)),
    },
    { key: 'runs', title: 'Runs', text: (g) => count(g.runs) },
    {
      key: 'rate',
      title: capitalised(rateLabel(outcome)),
      text: (g) => rateText(capitalised(rateLabel(outcome)), rateOf(g, outcome)),
      cell: (g) => rateCell(rateOf(g, outcome)),
    },
    {
      key: 'other-rate',
      title: capitalised(rateLabel(other)),
      text: (g) => rateText(capitalised(rateLabel(other)), rateOf(g, other)),
      cell: (g) => rateCell(rateOf(g, other)),
    },
    {
      key: 'kappa',
      title: 'κ judge vs tests',
      text: (g) => kappaTitle(g.agreement),
      cell: (g) => kappaCell(g.agreement),
    },
    ...verdicts.map(([v, of]) => ({
      key: `verdict-${v}`,
      title: VERDICT_COLUMNS.find(([key]) => key === v)![1],
      text: (g: StatsGroup) => count(of(g)),
    })),
    { key: 'generated', title: 'Generated', text: (g) => (g.generated ? `◇ ${count(g.generated)}` : '–') },
  ];
  fill(
    c.body,
    sidewaysScroll(
      'Per-model figures',
      el(
        'table',
        { class: 'figures models', id: 'engine-models' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col', class: 'text pinned', 'data-column': 'model' }, 'Model'),
            ...columns.map((col) => el('th', { scope: 'col', class: 'num', 'data-column': col.key }, col.title)),
          ),
        ),
        el(
          'tbody',
          {},
          ...groups.map((g) =>
            el(
              'tr',
              {},
              el('th', { scope: 'row', class: 'text pinned', title: g.model }, nameText(g.model)),
              ...columns.map((col) =>
                el('td', { class: 'num', title: col.text(g) }, col.cell ? col.cell(g) : col.text(g)),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  fill(
    c.foot,
    'Not shown at this size (they need every run in the browser): the first-attempt rate, re-runs, the partial, ' +
      'wrong and no-change counts, the medians of wall time, steps and output tokens per minute, the budget, and ' +
      'the totals per harness version.',
  );
}
