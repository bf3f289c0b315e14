// The cockpit's view in the URL (dashboard/src/page/url-state.ts): read from an address, written back to one, and
// a new history entry only when the reader moves to another area, run, task or all pairs.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  DEFAULT_SORT,
  filterCount,
  noFilters,
  readState,
  toSearch,
  writeState,
  type ViewState,
} from '#dashboard/src/page/url-state.ts';

describe('reading the view from the address', () => {
  it('reads every part of a linked view', () => {
    const state = readState(
      '?cockpit=Lite&view=compare&model=gpt-4o&model=a%2Cb&tier=hard&wave=2&harness=h1&repo=acme%2Fwidgets' +
        '&verdict=resolved&tests=fail&agreement=disagree&difficulty=unsolved&outcome=judge&q=tests+fail' +
        '&sort=-wallSeconds&run=r1&task=t1&matrix=tests&a=gpt-4o&a=h1&b=claude&b=h2&pairs=all',
    );
    expect(state).toEqual({
      cockpit: 'Lite',
      area: 'compare',
      filters: {
        models: ['gpt-4o', 'a,b'],
        tiers: ['hard'],
        waves: [2],
        harnessVersions: ['h1'],
        repos: ['acme/widgets'],
        verdicts: ['resolved'],
        hiddenTests: ['fail'],
        agreement: 'disagree',
        difficulties: ['unsolved'],
      },
      outcome: 'judge',
      search: 'tests fail',
      sort: { column: 'wallSeconds', descending: true },
      run: 'r1',
      task: 't1',
      matrix: 'tests',
      compare: { a: { model: 'gpt-4o', harnessVersion: 'h1' }, b: { model: 'claude', harnessVersion: 'h2' } },
      allPairs: true,
    } satisfies ViewState);
  });

  it('gives the dashboard, every run and the default sort to an empty address', () => {
    expect(readState('')).toEqual({
      cockpit: null,
      area: 'dashboard',
      filters: noFilters(),
      outcome: null,
      search: '',
      sort: DEFAULT_SORT,
      run: null,
      task: null,
      matrix: null,
      compare: { a: null, b: null },
      allPairs: false,
    });
  });

  it('leaves out what names nothing: an unknown area, tier, verdict, outcome, colouring or agreement, a wave that is no whole number', () => {
    const state = readState(
      '?view=settings&tier=impossible&tier=easy&wave=1.5&wave=x&wave=3&verdict=great&tests=maybe' +
        '&agreement=sometimes&difficulty=trivial&outcome=vibes&matrix=rainbow&pairs=some',
    );
    expect(state.area).toBe('dashboard');
    expect(state.filters.tiers).toEqual(['easy']);
    expect(state.filters.waves).toEqual([3]);
    expect(state.filters.verdicts).toEqual([]);
    expect(state.filters.hiddenTests).toEqual([]);
    expect(state.filters.agreement).toBeNull();
    expect(state.filters.difficulties).toEqual([]);
    expect(state.outcome).toBeNull();
    expect(state.matrix).toBeNull();
    expect(state.allPairs).toBe(false);
  });

  it('takes a compared group only as exactly a model and a harness version', () => {
    const state = readState('?a=gpt-4o&b=claude&b=h2&b=extra');
    expect(state.compare).toEqual({ a: null, b: null });
  });

  it('sorts ascending by a column named without a minus', () => {
    expect(readState('?sort=model').sort).toEqual({ column: 'model', descending: false });
  });
});

describe('writing the view to an address', () => {
  it('reads back what it wrote, model names with separators included', () => {
    const state = readState('');
    const linked: ViewState = {
      ...state,
      cockpit: 'Lite',
      area: 'runs',
      filters: {
        ...noFilters(),
        models: ['a&b=c', 'x,y'],
        waves: [1, 2],
        repos: ['acme/widgets'],
        agreement: 'agree',
        difficulties: ['hard'],
      },
      outcome: 'tests',
      search: 'django tests fail',
      sort: { column: 'model', descending: false },
      run: 'gpt-4o__django-1__h1__s2',
      matrix: 'verdict',
      compare: { a: { model: 'm · 1', harnessVersion: 'h&1' }, b: null },
    };
    expect(readState(toSearch(linked))).toEqual(linked);
  });

  it('leaves the defaults out, so the plain dashboard is the bare address', () => {
    expect(toSearch(readState(''))).toBe('');
    expect(toSearch({ ...readState(''), sort: { ...DEFAULT_SORT } })).toBe('');
    expect(toSearch({ ...readState(''), sort: { column: 'finishedAt', descending: false } })).toBe('?sort=finishedAt');
  });

  it('counts every filter chosen, and gives each caller filters of its own', () => {
    expect(filterCount(readState('?model=a&model=b&tier=easy&agreement=disagree&difficulty=hard&q=x').filters)).toBe(5);
    const one = noFilters();
    one.models.push('changed');
    expect(noFilters().models).toEqual([]);
  });
});

describe('the history a view writes', () => {
  const calls: string[] = [];
  const saved = { location: globalThis.location, history: globalThis.history };
  const at = { pathname: '/', search: '' };
  beforeEach(() => {
    calls.length = 0;
    at.search = '';
    const record = (kind: string) => (_: unknown, __: string, url: string) => {
      calls.push(`${kind} ${url}`);
      at.search = url.slice(1);
    };
    Object.assign(globalThis, {
      location: at,
      history: { pushState: record('push'), replaceState: record('replace') },
    });
  });
  afterEach(() => {
    Object.assign(globalThis, saved);
  });

  it('adds an entry for another area, run or task, and replaces it for a filter or a sort', () => {
    const start = readState('');
    const filtered = { ...start, filters: { ...noFilters(), models: ['gpt-4o'] } };
    writeState(filtered, start);
    const runs = { ...filtered, area: 'runs' as const };
    writeState(runs, filtered);
    const open = { ...runs, run: 'r1' };
    writeState(open, runs);
    writeState({ ...open, sort: { column: 'model', descending: false } }, open);
    expect(calls).toEqual([
      'replace /?model=gpt-4o',
      'push /?view=runs&model=gpt-4o',
      'push /?view=runs&model=gpt-4o&run=r1',
      'replace /?view=runs&model=gpt-4o&sort=model&run=r1',
    ]);
  });

  it('replaces the entry while the reader walks from run to run, and writes nothing when the address is the same', () => {
    const open = readState('?view=runs&run=r1');
    at.search = '?view=runs&run=r1';
    writeState(open, open);
    writeState({ ...open, run: 'r2' }, open, true);
    expect(calls).toEqual(['replace /?view=runs&run=r2']);
  });
});
