// Compare's "all pairs" (docs/contract.md §6 "All pairs"): every pair of the configurations in view (up to 12, 66
// pairs) with tasks in common, on the outcome in view — the paired difference with its interval, its p (McNemar's
// exact p, or the sign-flip p where samples repeat) and the Holm-adjusted p over the pairs compared — sorted by the
// adjusted p, a caveat where the two ran different harness versions, each row leading to that pair's Compare view.
// The same function answers `GET …/pairs`.
import { groupRuns, type Group } from '#analytics/run-grouping.ts';
import { selectRuns } from '#analytics/run-selection.ts';
import { allPairs, type AllPairs, type PairRow } from '#analytics/all-pairs.ts';
import { MIN_SHARED_TASKS, OUTCOME_LABELS, selectByDifficulty, taskDifficulty } from '#analytics/statistics.ts';
import { holmText, pText } from '#analytics/comparison-sentence.ts';
import { pAtFloor, pOf } from '#analytics/compare-groups.ts';
import { RESAMPLES } from '#analytics/reliability.ts';
import { el, fill, nameText, sidewaysScroll } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import type { CockpitFilters } from '../page/url-state.ts';
import type { Computed } from '../page/view-model.ts';

export interface PairsNav {
  /** The address of a pair's Compare view, and going there. */
  pairHref(a: Group, b: Group): string;
  openPair(a: Group, b: Group): void;
}

/** All pairs of a view: the same figures for the same view, whether all pairs or one pair's sentence asks. */
const pairsOf = new WeakMap<Computed, AllPairs>();

/**
 * The configurations in view and the runs compared: the model, harness, tier, wave and difficulty filters
 * (the verdict, tests and agreement filters do not apply: a comparison needs every result).
 */
export function pairsInView(m: Computed, filters: CockpitFilters): AllPairs {
  let found = pairsOf.get(m);
  if (!found) pairsOf.set(m, (found = computePairs(m, filters)));
  return found;
}

function computePairs(m: Computed, filters: CockpitFilters): AllPairs {
  const { models, harnessVersions, tiers, waves, repos } = filters;
  const inView = selectRuns(m.table, { models, harnessVersions, tiers, waves, repos }, m.facts);
  const selection = filters.difficulties.length
    ? selectByDifficulty(m.table, inView, taskDifficulty(m.table, inView, m.outcome), filters.difficulties)
    : inView;
  return allPairs(m.table, selection, groupRuns(m.table, selection).groups, m.outcome);
}

const points = (d: number) => `${d > 0 ? '+' : d < 0 ? '−' : '±'}${(Math.abs(d) * 100).toFixed(1)}`;

/** The pairs as a table; `label` names a configuration as the page does. */
export function renderAllPairs(host: HTMLElement, label: (g: Group) => string, found: AllPairs, nav: PairsNav): void {
  if (found.refused !== null) {
    fill(host, el('p', { class: 'compare-sentence', id: 'all-pairs-refused', role: 'status' }, found.refused));
    return;
  }
  if (!found.rows.length) {
    fill(
      host,
      el(
        'p',
        { class: 'compare-sentence', id: 'all-pairs-none' },
        `No two of the ${count(found.configurations)} configurations in view have a task with a result on the ${OUTCOME_LABELS[found.outcome]} in common.`,
      ),
    );
    return;
  }
  const name = (g: Group) => nameText(label(g));
  // Where samples repeat, a task counts for the side that resolved the larger share of its samples (Compare's rule).
  const shares = found.rows.some((r) => r.method === 'task-means');
  const tasksOf = (side: 'A' | 'B') =>
    shares
      ? { text: `${side} ahead`, title: `Shared tasks where ${side} resolved a larger share of its samples` }
      : { text: `${side} only`, title: `Shared tasks ${side} resolved and the other did not` };
  const row = (r: PairRow) => {
    const open = el(
      'a',
      { href: nav.pairHref(r.a, r.b), class: 'pair-link', title: 'Open this pair in Compare' },
      'open',
    );
    open.addEventListener('click', (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      nav.openPair(r.a, r.b);
    });
    const p = pOf(r);
    const note = p === null ? `fewer than ${MIN_SHARED_TASKS} shared tasks: not compared` : (r.caveat ?? '');
    const floor = pAtFloor(r);
    const pTitle =
      r.method === 'mcnemar'
        ? 'McNemar’s exact p: one run of each shared task on each side'
        : floor
          ? `Sign-flip p: none of ${count(RESAMPLES)} random sign patterns reached the observed difference, so the p is smaller still`
          : `Sign-flip permutation p of the per-task differences (${r.exactPermutation ? 'every sign pattern' : `${count(RESAMPLES)} random sign patterns`})`;
    return el(
      'tr',
      {
        'data-a': `${r.a.model}\u0000${r.a.harnessVersion}`,
        'data-b': `${r.b.model}\u0000${r.b.harnessVersion}`,
        class: r.caveat ? 'mixed-harness' : '',
      },
      el('th', { scope: 'row', class: 'text', title: `${r.a.model} · ${r.a.harnessVersion}` }, name(r.a)),
      el('td', { class: 'text', title: `${r.b.model} · ${r.b.harnessVersion}` }, name(r.b)),
      el('td', { class: 'num', 'data-cell': 'pairs' }, count(r.pairs)),
      el('td', { class: 'num', 'data-cell': 'a-only' }, count(r.aOnly)),
      el('td', { class: 'num', 'data-cell': 'b-only' }, count(r.bOnly)),
      el(
        'td',
        { class: 'num', 'data-cell': 'difference' },
        // In points, as the heading says; the interval goes under the difference when the column is narrow.
        ...(r.difference === null
          ? ['–']
          : [
              points(r.difference),
              ' ',
              el('span', { class: 'interval' }, `(${points(r.ci![0])} to ${points(r.ci![1])})`),
            ]),
      ),
      el('td', { class: 'num', 'data-cell': 'p', title: pTitle }, p === null ? '–' : pText(p)),
      el(
        'td',
        { class: 'num', 'data-cell': 'holm' },
        r.holmP === null ? '–' : holmText({ holmP: r.holmP, bound: floor }),
      ),
      el('td', { class: 'text note', 'data-cell': 'note' }, note),
      el('td', { class: 'text', 'data-cell': 'open' }, open),
    );
  };
  fill(
    host,
    el(
      'p',
      { class: 'muted', id: 'all-pairs-summary' },
      `${count(found.configurations)} configurations in view, ${count(found.rows.length)} pairs with tasks in common on the ` +
        `${OUTCOME_LABELS[found.outcome]}; the p values of the ${count(found.compared)} with at least ${MIN_SHARED_TASKS} ` +
        `are Holm-adjusted over those ${count(found.compared)}. A is the configuration with the higher resolve rate.`,
    ),
    sidewaysScroll(
      'All pairs',
      el(
        'table',
        { class: 'figures all-pairs', id: 'all-pairs-table' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...(
              [
                ['A', 'a'],
                ['B', 'b'],
                ['Shared tasks', 'pairs'],
                [tasksOf('A'), 'a-only'],
                [tasksOf('B'), 'b-only'],
                ['A − B, points (95% CI)', 'difference'],
                ['p (McNemar or sign-flip)', 'p'],
                ['Holm-adjusted p', 'holm'],
                ['Note', 'note'],
                ['', 'open'],
              ] as const
            ).map(([h, cell], k) =>
              el(
                'th',
                {
                  scope: 'col',
                  class: k >= 2 && k <= 7 ? 'num' : 'text',
                  'data-cell': cell,
                  ...(typeof h === 'string' ? {} : { title: h.title }),
                },
                typeof h === 'string' ? h : h.text,
              ),
            ),
          ),
        ),
        el('tbody', {}, ...found.rows.map(row)),
      ),
    ),
  );
}
