// Resolve rate by repository: one row per repository of the runs in view (most tasks first), one column per
// configuration (in ranked order), every cell the rate on the outcome in view with its n and interval. A
// repository's name filters the whole cockpit to it.
import type { Card, CardCsv } from './card.ts';
import { breakdown } from '#analytics/breakdown.ts';
import { OUTCOME_LABELS } from '#analytics/statistics.ts';
import { rateCell } from './breakdown-card.ts';
import { appLink, el, fill, nameText, sidewaysScroll } from '../widgets/dom.ts';
import { count } from '../widgets/format.ts';
import type { Computed } from '../page/view-model.ts';

export interface RepoNav {
  /** The cockpit filtered to this repository, and its address. */
  showRepo(repo: string): void;
  repoHref(repo: string): string;
}

export function renderRepoBreakdown(c: Pick<Card, 'body' | 'foot'>, m: Computed, nav: RepoNav): CardCsv {
  const names = m.table.dictionaries.repo.values;
  // Tasks in view per repository: a task counts once however many configurations ran it.
  const tasksOf = new Map<number, Set<number>>();
  for (const i of m.selection) {
    const repo = m.table.text.repo[i]!;
    if (repo < 0) continue;
    let tasks = tasksOf.get(repo);
    if (!tasks) tasksOf.set(repo, (tasks = new Set()));
    tasks.add(m.table.text.taskId[i]!);
  }
  const repos = [...tasksOf.keys()].sort(
    (a, b) => tasksOf.get(b)!.size - tasksOf.get(a)!.size || names[a]!.localeCompare(names[b]!),
  );
  const column = new Int32Array(names.length).fill(-1);
  repos.forEach((r, k) => (column[r] = k));
  const cells = breakdown(m.table, m.selection, m.grouping, m.outcome, repos.length, (i) => {
    const repo = m.table.text.repo[i]!;
    return repo < 0 ? -1 : column[repo]!;
  });
  const groups = m.figures.groups;
  const rowOf = new Map(m.grouping.groups.map((g, k) => [`${g.model}\u0000${g.harnessVersion}`, k]));
  const cellsOf = groups.map((g) => cells[rowOf.get(`${g.model}\u0000${g.harnessVersion}`)!]!);
  const csv: CardCsv = () => ({
    columns: ['repo', 'tasks', 'configuration', 'model', 'harnessVersion', 'resolved', 'n', 'rate'],
    rows: repos.flatMap((r, k) =>
      groups.map((g, j) => {
        const p = cellsOf[j]![k]!;
        return [names[r]!, tasksOf.get(r)!.size, m.label(g), g.model, g.harnessVersion, p.hits, p.n, p.rate];
      }),
    ),
  });
  fill(
    c.foot,
    `Rates on the ${OUTCOME_LABELS[m.outcome]}; runs whose task names no repository are left out. ` +
      'Click a repository to filter the cockpit to it.',
  );
  if (!repos.length) {
    fill(c.body, el('p', { class: 'muted', id: 'repo-none' }, 'No run in view names its repository.'));
    return csv;
  }
  fill(
    c.body,
    sidewaysScroll(
      'Resolve rate by repository',
      el(
        'table',
        { class: 'figures breakdown repos', id: 'repo-table' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { class: 'text pinned', scope: 'col' }, 'Repository'),
            el('th', { class: 'num', scope: 'col' }, 'Tasks'),
            ...groups.map((g) => el('th', { class: 'text', scope: 'col', title: m.label(g) }, nameText(m.label(g)))),
          ),
        ),
        el(
          'tbody',
          {},
          ...repos.map((r, k) =>
            el(
              'tr',
              { 'data-repo': names[r]! },
              el(
                'th',
                { scope: 'row', class: 'text pinned' },
                appLink(
                  nav.repoHref(names[r]!),
                  () => nav.showRepo(names[r]!),
                  { title: `Only the runs of ${names[r]!}` },
                  nameText(names[r]!),
                ),
              ),
              el('td', { class: 'num' }, count(tasksOf.get(r)!.size)),
              ...groups.map((g, j) => rateCell(cellsOf[j]![k]!, `${m.label(g)}, ${names[r]!}`)),
            ),
          ),
        ),
      ),
    ),
  );
  return csv;
}
