// The figures of one paired comparison in Compare: the paired table with its margins, the difference with its
// interval on a points axis, and each side's rate over the pairs with its Wilson interval (where samples repeat,
// each side's mean share of a task's samples resolved).
import type { Group } from '#analytics/run-grouping.ts';
import type { PairFigures } from '#analytics/compare-groups.ts';
import { proportion, type PairedComparison } from '#analytics/statistics.ts';
import { barList } from '../widgets/charts/bars.ts';
import type { Axis } from '../widgets/charts/ticks.ts';
import { el } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import { intervalText, percentOf } from '../widgets/intervals.ts';
import { MODEL_COLOUR } from '../widgets/palette.ts';

export const groupName = (g: Group) => `${g.model} · ${g.harnessVersion}`;

/**
 * Both / A only / B only / neither, with the margins: each group's resolved count over the pairs. Where samples
 * repeat, the tasks by which side resolved the larger share of its samples instead: no task is simply resolved.
 */
export function pairedTable(a: Group, b: Group, c: PairFigures): HTMLElement {
  const cell = (n: number, what: string, id: string) =>
    el('td', { class: 'num', 'data-cell': id, title: `${count(n)} tasks: ${what}` }, count(n));
  if (c.method === 'task-means') {
    const row = (label: string, n: number, id: string) =>
      el('tr', {}, el('th', { scope: 'row', class: 'text' }, label), cell(n, label, id));
    return el(
      'table',
      {
        class: 'figures paired',
        id: 'compare-table',
        'aria-label': 'Tasks both groups ran, by which resolved the larger share of its samples',
      },
      el(
        'thead',
        {},
        el('tr', {}, el('th', { class: 'text' }, 'Shared tasks'), el('th', { scope: 'col', class: 'num' }, 'tasks')),
      ),
      el(
        'tbody',
        {},
        row('A resolved a larger share of its samples', c.aOnly, 'a-only'),
        row('B resolved a larger share of its samples', c.bOnly, 'b-only'),
        row('the same share, above none', c.bothResolved, 'both'),
        row('neither resolved any sample', c.neither, 'neither'),
      ),
      el(
        'tfoot',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'row', class: 'text' }, 'total'),
          el('td', { class: 'num', 'data-cell': 'pairs' }, count(c.pairs)),
        ),
      ),
    );
  }
  return el(
    'table',
    { class: 'figures paired', id: 'compare-table', 'aria-label': 'Tasks both groups ran, by who resolved them' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { class: 'text' }, 'A \\ B'),
        el('th', { scope: 'col', class: 'num' }, 'B resolved'),
        el('th', { scope: 'col', class: 'num' }, 'B did not'),
        el('th', { scope: 'col', class: 'num' }, 'total'),
      ),
    ),
    el(
      'tbody',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'row', class: 'text' }, 'A resolved'),
        cell(c.bothResolved, 'both resolved', 'both'),
        cell(c.aOnly, `only ${groupName(a)} resolved`, 'a-only'),
        el('td', { class: 'num muted' }, count(c.bothResolved + c.aOnly)),
      ),
      el(
        'tr',
        {},
        el('th', { scope: 'row', class: 'text' }, 'A did not'),
        cell(c.bOnly, `only ${groupName(b)} resolved`, 'b-only'),
        cell(c.neither, 'neither resolved', 'neither'),
        el('td', { class: 'num muted' }, count(c.bOnly + c.neither)),
      ),
    ),
    el(
      'tfoot',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'row', class: 'text' }, 'total'),
        el('td', { class: 'num muted' }, count(c.bothResolved + c.bOnly)),
        el('td', { class: 'num muted' }, count(c.aOnly + c.neither)),
        el('td', { class: 'num', 'data-cell': 'pairs' }, count(c.pairs)),
      ),
    ),
  );
}

/** A − B in points with its interval, on an axis symmetric around no difference. */
export function differenceChart(c: PairedComparison): HTMLElement | null {
  if (c.difference === null || !c.ci) return null;
  const [lo, hi] = c.ci;
  const reach = Math.max(Math.abs(lo), Math.abs(hi), 0.05);
  const top = [0.1, 0.2, 0.25, 0.5, 1].find((t) => t >= reach) ?? 1;
  const scale = (d: number) => (d + top) / (2 * top);
  const points = (d: number) => `${d > 0 ? '+' : d < 0 ? '−' : ''}${Math.round(Math.abs(d) * 100)}`;
  const axis: Axis = {
    title: 'difference of resolve rates, A − B (percentage points); line: 95% interval',
    ticks: [-top, -top / 2, 0, top / 2, top].map((d) => ({ at: scale(d), label: points(d) })),
  };
  return barList(
    [
      {
        label: 'A − B',
        lanes: [
          {
            segments: [],
            dots: [
              { at: scale(c.difference), colour: MODEL_COLOUR, title: `difference ${points(c.difference)} points` },
            ],
            interval: { from: scale(lo), to: scale(hi), title: `95% interval ${intervalText([lo, hi], 'points')}` },
          },
        ],
        value: `${c.difference > 0 ? '+' : c.difference < 0 ? '−' : '±'}${(Math.abs(c.difference) * 100).toFixed(1)} pts`,
      },
    ],
    axis,
    'dots difference',
  );
}

/**
 * Each group's resolve rate over the pairs, with its Wilson interval; where samples repeat, the mean over the pairs
 * of the share of its samples resolved (the interval is the difference's, above).
 */
export function rates(a: Group, b: Group, c: PairFigures): HTMLElement {
  if (c.method === 'task-means') {
    const mean = (g: Group, share: number) =>
      el(
        'li',
        {},
        el('strong', {}, groupName(g)),
        `: ${(share * 100).toFixed(1)}% of a task's samples resolved, on average over ${count(c.pairs)} shared tasks`,
      );
    return el('ul', { class: 'compare-rates' }, mean(a, c.meanA!), mean(b, c.meanB!));
  }
  const line = (g: Group, resolved: number) => {
    const p = proportion(resolved, c.pairs);
    return el(
      'li',
      {},
      el('strong', {}, groupName(g)),
      `: ${count(resolved)} of ${count(c.pairs)} pairs resolved, ${percentOf(p)}`,
    );
  };
  return el('ul', { class: 'compare-rates' }, line(a, c.bothResolved + c.aOnly), line(b, c.bothResolved + c.bOnly));
}
