// What the reader is looking at, kept in the URL so a view can be linked: area, filters, search, sort
// and the open run. Filters are shared by the Dashboard and Runs areas.
import { NO_FILTERS, type RunFilters } from '../../shared/read/aggregates.ts';
import { TIERS, type Tier } from '../../shared/read/columns.ts';

export type Area = 'dashboard' | 'runs' | 'hosts';
export const AREAS: Area[] = ['dashboard', 'runs', 'hosts'];

export interface ViewState {
  cockpit: string | null;
  area: Area;
  filters: RunFilters;
  search: string;
  sort: { column: string; descending: boolean };
  run: string | null;
}

export const DEFAULT_SORT = { column: 'finishedAt', descending: true };

export function readState(search = location.search): ViewState {
  const p = new URLSearchParams(search);
  const area = p.get('view');
  const sort = p.get('sort');
  return {
    cockpit: p.get('cockpit'),
    area: AREAS.includes(area as Area) ? (area as Area) : 'dashboard',
    filters: {
      models: p.getAll('model'),
      tiers: p.getAll('tier').filter((t): t is Tier => (TIERS as readonly string[]).includes(t)),
      waves: p.getAll('wave').map(Number).filter(Number.isInteger),
      harnessVersions: p.getAll('harness'),
    },
    search: p.get('q') ?? '',
    sort: sort ? { column: sort.replace(/^-/, ''), descending: sort.startsWith('-') } : DEFAULT_SORT,
    run: p.get('run'),
  };
}

export function toSearch(state: ViewState): string {
  const p = new URLSearchParams();
  if (state.cockpit) p.set('cockpit', state.cockpit);
  if (state.area !== 'dashboard') p.set('view', state.area);
  for (const m of state.filters.models) p.append('model', m);
  for (const t of state.filters.tiers) p.append('tier', t);
  for (const w of state.filters.waves) p.append('wave', String(w));
  for (const h of state.filters.harnessVersions) p.append('harness', h);
  if (state.search) p.set('q', state.search);
  if (state.sort.column !== DEFAULT_SORT.column || state.sort.descending !== DEFAULT_SORT.descending) {
    p.set('sort', `${state.sort.descending ? '-' : ''}${state.sort.column}`);
  }
  if (state.run) p.set('run', state.run);
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Writes the state to the address bar; a new history entry only when the area or the open run changes. */
export function writeState(state: ViewState, previous: ViewState): void {
  const url = location.pathname + toSearch(state);
  if (url === location.pathname + location.search) return;
  if (state.area !== previous.area || state.run !== previous.run) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

export const hasFilters = (f: RunFilters) => f.models.length + f.tiers.length + f.waves.length + f.harnessVersions.length > 0;
export const noFilters = (): RunFilters => structuredClone(NO_FILTERS);
