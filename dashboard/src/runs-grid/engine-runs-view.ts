// The Runs grid of engine mode (docs/contract.md §6 "Reading at scale"): one page of the runs in view at a time,
// as `GET …/grid` sorts it, with the cursor to the next page and the ones already passed to go back. A column the
// engine does not sort by (tier, wave, difficulty) is shown but not offered for sorting; a run's tier and wave
// fall back to its task's issue record, as in the browser's grid.
import { isGridSortKey, type CockpitIssue, type GridPage, type GridQuery, type GridRow } from '#analytics/contract.ts';
import { el, fill } from '../widgets/dom.ts';
import { big, count, duration, instant, num, UNKNOWN } from '../widgets/format.ts';
import { VERDICT_LABELS, type VerdictKey } from '../widgets/palette.ts';
import { DEFAULT_SORT } from '../page/url-state.ts';

export interface EngineRunsEvents {
  sort(column: string): void;
  /** Asks for the page starting at `cursor` (null: the first). */
  page(cursor: string | null): void;
  /** The search words, once typed (Enter or leaving the box): each asks the engine again. */
  search(query: string): void;
  open(id: string): void;
}

const text = (v: string | number | null) => (v === null ? null : String(v));
const figure = (format: (v: number) => string) => (v: string | number | null) =>
  v === null ? null : format(Number(v));

/** A run's verdict as the grid shows it: a run whose "resolved" was flagged says so. */
const verdictOf = (r: GridRow): VerdictKey =>
  r.judgeState === 'flagged' ? 'flagged' : ((r.judgeVerdict as VerdictKey | null) ?? 'unjudged');

function agreementOf(r: GridRow): string {
  const judged = ['resolved', 'partial', 'wrong', 'no_change'].includes(String(r.judgeVerdict));
  const tested = r.hiddenTestStatus === 'pass' || r.hiddenTestStatus === 'fail';
  if (!judged || !tested || r.judgeState === 'flagged') return '';
  return (r.judgeVerdict === 'resolved') !== (r.hiddenTestStatus === 'pass') ? '≠' : '';
}

export class EngineRunsView {
  readonly root = el('div', { class: 'runs engine-runs', id: 'engine-runs' });
  private readonly summary = el('span', { class: 'runs-count', id: 'engine-runs-count', 'aria-live': 'polite' });
  private readonly previous = el('button', { type: 'button', id: 'engine-runs-previous' }, 'Previous page');
  private readonly next = el('button', { type: 'button', id: 'engine-runs-next' }, 'Next page');
  private readonly table = el('table', { class: 'figures engine-grid', id: 'engine-grid' });
  private readonly searchBox = el('input', {
    type: 'search',
    class: 'search',
    id: 'engine-runs-search',
    placeholder: 'Search model, task, harness, host, repo, verdict, tests… (Enter)',
    'aria-label': 'Search runs',
  });
  /** The cursors of the pages passed, to go back; the first page's is null. */
  private cursors: (string | null)[] = [];
  private nextCursor: string | null = null;
  private readonly columns: { key: string; title: string; cell(r: GridRow): string | null }[];

  constructor(issues: readonly CockpitIssue[], events: EngineRunsEvents) {
    const issueOf = new Map(issues.map((i) => [i.taskId, i]));
    this.columns = [
      { key: 'verdict', title: 'Judge', cell: (r) => VERDICT_LABELS[verdictOf(r)] },
      { key: 'model', title: 'Model', cell: (r) => text(r.model) },
      { key: 'harnessVersion', title: 'Harness', cell: (r) => text(r.harnessVersion) },
      { key: 'sample', title: 'Sample', cell: (r) => String(r.sample ?? 1) },
      { key: 'taskId', title: 'Task', cell: (r) => text(r.taskId) },
      { key: 'tier', title: 'Tier', cell: (r) => text(r.tier ?? issueOf.get(String(r.taskId))?.tier ?? null) },
      { key: 'wave', title: 'Wave', cell: (r) => text(r.wave ?? issueOf.get(String(r.taskId))?.wave ?? null) },
      { key: 'outcome', title: 'Run ended', cell: (r) => text(r.outcome) },
      { key: 'hiddenTest', title: 'Hidden tests', cell: (r) => text(r.hiddenTestStatus) ?? 'no result' },
      { key: 'agreement', title: '≠', cell: agreementOf },
      { key: 'steps', title: 'Steps', cell: (r) => figure(num)(r.steps) },
      { key: 'wallSeconds', title: 'Wall time', cell: (r) => figure(duration)(r.wallSeconds) },
      { key: 'completionTokens', title: 'Compl. tokens', cell: (r) => figure(big)(r.completionTokens) },
      { key: 'outputTokensPerMinute', title: 'Tokens/min', cell: (r) => figure(num)(r.outputTokensPerMinute) },
      { key: 'patchLinesAdded', title: '+ lines', cell: (r) => figure(num)(r.patchLinesAdded) },
      { key: 'patchLinesRemoved', title: '− lines', cell: (r) => figure(num)(r.patchLinesRemoved) },
      { key: 'host', title: 'Host', cell: (r) => text(r.host) },
      {
        key: 'finishedAt',
        title: 'Finished (UTC)',
        cell: (r) => (r.finishedAt ? instant(String(r.finishedAt)) : null),
      },
    ];
    const header = this.columns.map((c) => {
      if (!isGridSortKey(c.key))
        return el('th', { scope: 'col', 'data-column': c.key, title: 'Not sorted at this size' }, c.title);
      const button = el(
        'button',
        { type: 'button', class: 'sort-button', title: `${c.title}: click to sort` },
        c.title,
      );
      button.addEventListener('click', () => events.sort(c.key));
      return el('th', { scope: 'col', 'data-column': c.key }, button);
    });
    this.table.append(el('thead', {}, el('tr', {}, ...header)), el('tbody', {}));
    this.previous.addEventListener('click', () => {
      this.cursors.pop();
      events.page(this.cursors.pop() ?? null);
    });
    this.next.addEventListener('click', () => events.page(this.nextCursor));
    this.searchBox.addEventListener('change', () => events.search(this.searchBox.value));
    this.table.tBodies[0]!.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('tr[data-id]');
      if (row) events.open(row.dataset.id!);
    });
    this.root.append(
      el('div', { class: 'runs-toolbar' }, this.searchBox, this.summary, this.previous, this.next),
      el('div', { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Runs' }, this.table),
    );
  }

  /** The URL's sort as the engine takes it: a column it does not sort by falls back to the newest first. */
  sortable(sort: { column: string; descending: boolean }): GridQuery['sort'] {
    return isGridSortKey(sort.column)
      ? { column: sort.column, descending: sort.descending }
      : (DEFAULT_SORT as GridQuery['sort']);
  }

  show(page: GridPage, sort: GridQuery['sort'], cursor: string | null, search: string): void {
    if (this.searchBox.value !== search && document.activeElement !== this.searchBox) this.searchBox.value = search;
    if (cursor === null) this.cursors = [];
    this.cursors.push(cursor);
    this.nextCursor = page.cursor;
    for (const head of this.table.tHead!.rows[0]!.cells)
      head.setAttribute(
        'aria-sort',
        head.dataset.column === sort.column ? (sort.descending ? 'descending' : 'ascending') : 'none',
      );
    fill(
      this.table.tBodies[0]!,
      ...page.runs.map((r) =>
        el(
          'tr',
          { 'data-id': String(r.id) },
          ...this.columns.map((c) => {
            const value = c.cell(r);
            return el('td', { class: value === null ? 'unknown' : '' }, value ?? UNKNOWN);
          }),
        ),
      ),
    );
    this.summary.textContent = `page ${count(this.cursors.length)} · ${count(page.runs.length)} of ${count(page.total)} runs, sorted by the engine`;
    this.previous.disabled = this.cursors.length <= 1;
    this.next.disabled = page.cursor === null;
  }
}
