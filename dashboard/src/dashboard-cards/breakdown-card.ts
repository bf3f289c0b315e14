// Resolve rate by tier, empirical difficulty and wave: per configuration (in ranked order), the rate on the outcome
// in view among its runs of the tasks of each tier its senders typed, of each empirical difficulty (how many
// of the configurations in view resolved the task), and of each wave; every cell with its n and interval.
// The senders' tiers and the empirical difficulty stand side by side: neither replaces the other.
import type { Card, CardCsv } from './card.ts';
import { tierCode, waveOf } from '#analytics/run-selection.ts';
import { breakdown } from '#analytics/breakdown.ts';
import { TIERS } from '#analytics/columns.ts';
import { DIFFICULTIES, OUTCOME_LABELS, type Proportion } from '#analytics/statistics.ts';
import { el, fill, nameText, sidewaysScroll } from '../widgets/dom.ts';
import { count, percent } from '../widgets/format.ts';
import { percentOf } from '../widgets/intervals.ts';
import type { Computed } from '../page/view-model.ts';

interface Part {
  title: string;
  keys: string[];
  keyOf: (i: number) => number;
}

function parts(m: Computed): Part[] {
  // Waves are whole numbers: each wave's column is found through a slot per wave number.
  const wave = (i: number) => waveOf(m.table, m.facts, i);
  let seen = new Uint8Array(64);
  for (let s = 0; s < m.selection.length; s++) {
    const w = wave(m.selection[s]!);
    if (!Number.isInteger(w) || w < 0) continue;
    if (w >= seen.length) {
      const grown = new Uint8Array(Math.max(w + 1, seen.length * 2));
      grown.set(seen);
      seen = grown;
    }
    seen[w] = 1;
  }
  const slot = new Int32Array(seen.length).fill(-1);
  const waves: number[] = [];
  seen.forEach((on, w) => on && (slot[w] = waves.push(w) - 1));
  const tier = (i: number) => tierCode(m.table, m.facts, i) - 1;
  const tiered = m.selection.some((i) => tier(i) >= 0);
  return [
    { title: 'Tier (senders’)', keys: tiered ? [...TIERS] : [], keyOf: tier },
    {
      title: 'Difficulty (empirical)',
      keys: [...DIFFICULTIES],
      keyOf: (i) => m.difficulty.band[m.table.text.taskId[i]!]! - 1,
    },
    {
      title: 'Wave',
      keys: waves.map((w) => `wave ${w}`),
      keyOf: (i) => {
        const w = wave(i);
        return w >= 0 && w < slot.length ? (slot[w] ?? -1) : -1;
      },
    },
  ];
}

export const rateCell = (r: Proportion, what: string) =>
  el(
    'td',
    { class: `num${r.n ? '' : ' unknown'}`, title: `${what}: ${percentOf(r)}` },
    el('span', { class: 'rate-cell' }, r.n ? percent(r.rate) : '–', el('span', { class: 'rate-n' }, `n=${count(r.n)}`)),
  );

export function renderBreakdown(c: Pick<Card, 'body' | 'foot'>, m: Computed): CardCsv {
  const groups = m.figures.groups;
  const rowOf = new Map(m.grouping.groups.map((g, k) => [`${g.model}\u0000${g.harnessVersion}`, k]));
  const all = parts(m);
  // A part with no value in view (no run, nor its task's issue record, names a wave) is said, not drawn empty.
  const split = all
    .filter((p) => p.keys.length)
    .map((p) => ({
      ...p,
      cells: breakdown(m.table, m.selection, m.grouping, m.outcome, p.keys.length, p.keyOf),
    }));
  const csv: CardCsv = () => ({
    columns: ['configuration', 'model', 'harnessVersion', 'by', 'part', 'resolved', 'n', 'rate'],
    rows: groups.flatMap((g) => {
      const row = rowOf.get(`${g.model}\u0000${g.harnessVersion}`)!;
      return split.flatMap((p) =>
        p.cells[row]!.map((r, k) => [m.label(g), g.model, g.harnessVersion, p.title, p.keys[k]!, r.hits, r.n, r.rate]),
      );
    }),
  });
  fill(
    c.body,
    sidewaysScroll(
      'Resolve rate by tier, difficulty and wave',
      el(
        'table',
        { class: 'figures breakdown', id: 'breakdown-table' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { class: 'text pinned', rowspan: 2 }, 'Configuration'),
            ...split.map((p) => el('th', { scope: 'colgroup', colspan: p.keys.length, class: 'group' }, p.title)),
          ),
          el(
            'tr',
            {},
            ...split.flatMap((p, k) =>
              p.keys.map((key) => el('th', { scope: 'col', class: 'num', 'data-part': k, 'data-key': key }, key)),
            ),
          ),
        ),
        el(
          'tbody',
          {},
          ...groups.map((g) => {
            const row = rowOf.get(`${g.model}\u0000${g.harnessVersion}`)!;
            return el(
              'tr',
              { 'data-model': g.model, 'data-harness': g.harnessVersion },
              el('th', { scope: 'row', class: 'text pinned', title: m.label(g) }, nameText(m.label(g))),
              ...split.flatMap((p) =>
                p.cells[row]!.map((r, k) => rateCell(r, `${m.label(g)}, ${p.title} ${p.keys[k]}`)),
              ),
            );
          }),
        ),
      ),
    ),
  );
  fill(
    c.foot,
    `Rates on the ${OUTCOME_LABELS[m.outcome]}. Empirical difficulty: easy when at least two thirds of the configurations ` +
      `in view with a result on the task resolved it, medium from a third, hard above none, unsolved when none did.` +
      all
        .filter((p) => !p.keys.length)
        .map((p) => ` No run in view names its ${p.title.toLowerCase()}.`)
        .join(''),
  );
  return csv;
}
