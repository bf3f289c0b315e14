// What the dashboard's cards share: the card frame (title, explanation, body, foot, an optional "Order by", the
// download of its points), how a card orders its rows, and how a rate reads in a cell (rate, interval and n).
import type { RateFigure } from '#analytics/rate-figures.ts';
import type { GroupFigures } from '#analytics/group-figures.ts';
import { csvText, type CsvValue } from '#analytics/csv.ts';
import { OUTCOME_LABELS, type ResolveOutcome } from '#analytics/statistics.ts';
import type { Axis } from '../widgets/charts/ticks.ts';
import { el } from '../widgets/dom.ts';
import { count, percent, UNKNOWN } from '../widgets/format.ts';
import { intervalText } from '../widgets/intervals.ts';

export interface Card {
  root: HTMLElement;
  body: HTMLElement;
  foot: HTMLElement;
  head: HTMLElement;
  /** The chosen row order, when the card offers a choice. */
  sort: HTMLSelectElement | null;
  /** The points the card shows, as its "data (CSV)" download writes them, built on demand; null until drawn. */
  data: (() => CardData) | null;
}

/** A card's points: one row per bar, dot, cell or line it draws, with the figures behind it, unformatted. */
export interface CardData {
  columns: string[];
  rows: CsvValue[][];
}

/** A card's points as its "data (CSV)" download writes them, built only when asked for. */
export type CardCsv = () => CardData;

/**
 * The contract every card of the dashboard follows: data in, element out, its CSV. Its frame (`card()`: title,
 * explanation, body, foot) is built once and placed in the page; `fill` draws the data inside that frame alone and
 * answers the points it drew, which the frame's download offers (null while there is nothing to draw, such as
 * figures still being read: the download is then disabled).
 */
export interface DashboardCard<In> {
  readonly frame: Card;
  fill(data: In): CardCsv | null;
  /** What the drawing depends on, when less than the whole data: not drawn again while every item is the same. */
  dependsOn?(data: In): readonly unknown[];
}

export function card(
  id: string,
  title: string,
  explain: string,
  options: { wide?: boolean; sorts?: string[] } = {},
): Card {
  const body = el('div', { class: 'card-body' });
  const foot = el('p', { class: 'card-foot' });
  const sort = options.sorts
    ? el(
        'select',
        { class: 'card-sort', 'aria-label': `Order the rows of "${title}" by` },
        ...options.sorts.map((label, k) => el('option', { value: k }, label)),
      )
    : null;
  const download = el(
    'button',
    { type: 'button', class: 'card-data link', 'aria-label': `Download the data of "${title}" (CSV)` },
    'data (CSV)',
  );
  const head = el(
    'div',
    { class: 'card-head' },
    el('h2', { id: `${id}-title` }, title),
    sort && el('label', { class: 'card-sort-label' }, 'Order by ', sort),
    download,
  );
  const root = el(
    'section',
    { class: `card${options.wide ? ' wide' : ''}`, id, 'aria-labelledby': `${id}-title` },
    head,
    el('p', { class: 'card-explain' }, explain),
    body,
    foot,
  );
  let data: (() => CardData) | null = null;
  download.disabled = true;
  const made: Card = {
    root,
    body,
    foot,
    head,
    sort,
    get data() {
      return data;
    },
    // Nothing to download until the card has drawn its figures.
    set data(points) {
      data = points;
      download.disabled = points === null;
    },
  };
  download.addEventListener('click', () => {
    const points = made.data?.();
    if (points) saveText(`${id}.csv`, csvText(points.columns, points.rows));
  });
  return made;
}

function saveText(filename: string, text: string): void {
  const href = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = el('a', { href, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** One way a card can order its rows: by a figure (largest first) or a name (A to Z); null values last. */
export interface SortChoice<T> {
  label: string;
  value: ((row: T) => number | string | null) | null;
}

/** The first choice of every card: the rows as given, ranked by the resolve rate on the outcome in view. */
export const rankedOrderLabel = (outcome: ResolveOutcome) => `rank (resolve rate · ${OUTCOME_LABELS[outcome]})`;

/** Names the first choice after the outcome in view; set only when it changes (see cost-card.ts on autofill). */
export function nameRankedOrder(c: Card, outcome: ResolveOutcome): void {
  const first = c.sort?.options[0];
  if (first && first.text !== rankedOrderLabel(outcome)) first.text = rankedOrderLabel(outcome);
}

/** The card's rows in the chosen order: the first choice keeps the order given (ranked first). */
export function ordered<T>(rows: T[], c: Card, choices: SortChoice<T>[]): T[] {
  const value = choices[Number(c.sort?.value ?? 0)]?.value;
  if (!value) return rows;
  const keyed = rows.map((row, k) => ({ row, k, v: value(row) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? a.k - b.k : a.v === null ? 1 : -1;
    if (typeof a.v === 'string' || typeof b.v === 'string') return String(a.v).localeCompare(String(b.v)) || a.k - b.k;
    return b.v - a.v || a.k - b.k;
  });
  return keyed.map((x) => x.row);
}

/** A card's order choices: the ranked order first (the rows as given), then `by`, then by name. */
export const rankedThen = <T extends { label: string }>(...by: SortChoice<T>[]): SortChoice<T>[] => [
  { label: rankedOrderLabel('judge'), value: null },
  ...by,
  { label: 'name', value: (row) => row.label },
];

export const sortLabels = (choices: { label: string }[]) => choices.map((c) => c.label);

/** Group figures with the name they carry on the page. */
export type Named = GroupFigures & { label: string };

export const percentAxis = (title: string): Axis => ({
  title,
  ticks: [0, 0.25, 0.5, 0.75, 1].map((at) => ({ at, label: percent(at) })),
});

/** A rate over its interval and n on short lines, so a table fits its card. */
export const rateCell = (r: RateFigure) =>
  el(
    'span',
    { class: 'rate-cell' },
    r.n ? percent(r.rate) : UNKNOWN,
    r.ci && el('span', { class: 'rate-ci' }, intervalText(r.ci)),
    el('span', { class: 'rate-n' }, `n=${count(r.n)}`),
  );
