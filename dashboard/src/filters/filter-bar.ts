// Filters by model, tier, wave, harness version and repository (docs/contract.md §6), by judge verdict and hidden-test result
// (where the calibration table's cells lead), and by whether the two agree, shared by the Dashboard and Runs
// areas. Each menu is built
// once and updated in place, so a live update never closes a menu the reader has open.
import { TIERS, type Tier } from '#analytics/columns.ts';
import { AGREEMENTS, DIFFICULTIES, type Difficulty } from '#analytics/statistics.ts';
import { el, fill } from '../widgets/dom.ts';
import { HIDDEN_TEST_LABELS, VERDICT_LABELS, VERDICT_ORDER } from '../widgets/palette.ts';
import type { FilterOptions } from './filter-options.ts';
import { filterCount, HIDDEN_TEST_COLUMNS, noFilters, type CockpitFilters } from '../page/url-state.ts';

const DIFFICULTY_HINTS: Record<Difficulty, string> = {
  easy: 'Tasks two thirds or more of the configurations in view resolved',
  medium: 'Tasks a third to two thirds of the configurations in view resolved',
  hard: 'Tasks some but fewer than a third of the configurations in view resolved',
  unsolved: 'Tasks no configuration in view resolved',
};

type Key = 'models' | 'harnessVersions' | 'repos' | 'waves' | 'verdicts' | 'hiddenTests';

class Menu {
  readonly root: HTMLDetailsElement;
  private readonly summary = el('summary', {});
  private readonly list = el('div', { class: 'menu-list' });
  private options: string[] = [];

  constructor(
    private readonly title: string,
    onToggle: (value: string, on: boolean) => void,
    onClear: () => void,
  ) {
    const clear = el('button', { class: 'link' }, 'all');
    clear.addEventListener('click', onClear);
    const pop = el('div', { class: 'menu-pop' }, el('div', { class: 'menu-head' }, clear), this.list);
    this.root = el('details', { class: 'menu', 'data-filter': title.toLowerCase() }, this.summary, pop);
    // A menu near the window's right edge opens leftwards, from its button's right end, so none of it is cut.
    this.root.addEventListener('toggle', () => {
      if (!this.root.open) return;
      pop.classList.remove('opens-left');
      if (pop.getBoundingClientRect().right > document.documentElement.clientWidth) pop.classList.add('opens-left');
    });
    this.list.addEventListener('change', (e) => {
      const box = e.target as HTMLInputElement;
      onToggle(box.value, box.checked);
    });
  }

  update(options: string[], chosen: string[], label: (v: string) => string = (v) => v) {
    if (options.join('\u0000') !== this.options.join('\u0000')) {
      this.options = options;
      fill(
        this.list,
        ...options.map((o) =>
          el('label', { class: 'menu-item', title: label(o) }, el('input', { type: 'checkbox', value: o }), label(o)),
        ),
      );
    }
    for (const box of this.list.querySelectorAll('input')) box.checked = chosen.includes(box.value);
    this.summary.textContent = chosen.length
      ? `${this.title}: ${chosen.length === 1 ? label(chosen[0]!) : `${chosen.length} chosen`}`
      : `${this.title}: all`;
    this.root.classList.toggle('active', chosen.length > 0);
  }
}

export class FilterBar {
  readonly root = el('div', { class: 'filters', role: 'toolbar', 'aria-label': 'Filters' });
  private readonly menus: Record<Key, Menu>;
  private readonly tierButtons: HTMLButtonElement[];
  private readonly agreementButtons: HTMLButtonElement[];
  private readonly difficultyButtons: HTMLButtonElement[];
  private readonly clear = el('button', { class: 'link clear' }, 'Clear filters');
  private filters: CockpitFilters | null = null;

  constructor(onChange: (filters: CockpitFilters) => void) {
    const change = (f: (current: CockpitFilters) => CockpitFilters) => this.filters && onChange(f(this.filters));
    const toggle = <T>(list: T[], value: T, on: boolean) =>
      on ? [...new Set([...list, value])] : list.filter((v) => v !== value);
    const menu = (key: Key, title: string) =>
      new Menu(
        title,
        (value, on) =>
          change((f) => ({
            ...f,
            [key]: toggle<string | number>(f[key], key === 'waves' ? Number(value) : value, on),
          })),
        () => change((f) => ({ ...f, [key]: [] })),
      );
    this.menus = {
      models: menu('models', 'Model'),
      harnessVersions: menu('harnessVersions', 'Harness'),
      repos: menu('repos', 'Repository'),
      waves: menu('waves', 'Wave'),
      verdicts: menu('verdicts', 'Verdict'),
      hiddenTests: menu('hiddenTests', 'Tests'),
    };
    this.tierButtons = TIERS.map((tier) => {
      const b = el('button', { class: 'chip-toggle', 'aria-pressed': 'false', 'data-tier': tier }, tier);
      b.addEventListener('click', () =>
        change((f) => ({ ...f, tiers: toggle<Tier>(f.tiers, tier, !f.tiers.includes(tier)) })),
      );
      return b;
    });
    this.difficultyButtons = DIFFICULTIES.map((difficulty) => {
      const b = el(
        'button',
        {
          class: 'chip-toggle',
          'aria-pressed': 'false',
          'data-difficulty': difficulty,
          title: DIFFICULTY_HINTS[difficulty],
        },
        difficulty,
      );
      b.addEventListener('click', () =>
        change((f) => ({
          ...f,
          difficulties: toggle(f.difficulties, difficulty, !f.difficulties.includes(difficulty)),
        })),
      );
      return b;
    });
    this.agreementButtons = AGREEMENTS.map((which) => {
      const b = el(
        'button',
        {
          class: 'chip-toggle',
          'aria-pressed': 'false',
          'data-agreement': which,
          title: `Only the runs where the judge's verdict and the hidden tests ${which}`,
        },
        which === 'disagree' ? '≠ disagree' : '= agree',
      );
      b.addEventListener('click', () => change((f) => ({ ...f, agreement: f.agreement === which ? null : which })));
      return b;
    });
    this.clear.addEventListener('click', () => change(noFilters));
    this.root.append(
      this.menus.models.root,
      el(
        'span',
        { class: 'tiers', role: 'group', 'aria-label': 'Tier' },
        el('span', { class: 'muted' }, 'Tier:'),
        ...this.tierButtons,
      ),
      el(
        'span',
        {
          class: 'tiers',
          role: 'group',
          'aria-label': 'Empirical difficulty',
          title: 'How many of the configurations in view resolved each task, on the outcome in view',
        },
        el('span', { class: 'muted' }, 'Difficulty (empirical):'),
        ...this.difficultyButtons,
      ),
      this.menus.waves.root,
      this.menus.harnessVersions.root,
      this.menus.repos.root,
      this.menus.verdicts.root,
      this.menus.hiddenTests.root,
      el(
        'span',
        { class: 'tiers', role: 'group', 'aria-label': 'Judge against hidden tests' },
        el('span', { class: 'muted' }, 'Judge vs tests:'),
        ...this.agreementButtons,
      ),
      this.clear,
    );
    // One menu open at a time, closed by a click elsewhere.
    document.addEventListener('click', (e) => {
      for (const m of Object.values(this.menus)) if (!m.root.contains(e.target as Node)) m.root.open = false;
    });
  }

  render(options: FilterOptions, filters: CockpitFilters): void {
    this.filters = filters;
    this.menus.models.update(options.models, filters.models);
    this.menus.harnessVersions.update(options.harnessVersions, filters.harnessVersions);
    this.menus.repos.update(options.repos, filters.repos);
    this.menus.waves.update(options.waves.map(String), filters.waves.map(String), (w) => `wave ${w}`);
    this.menus.verdicts.update(
      VERDICT_ORDER,
      filters.verdicts,
      (v) => VERDICT_LABELS[v as keyof typeof VERDICT_LABELS],
    );
    this.menus.hiddenTests.update(
      HIDDEN_TEST_COLUMNS,
      filters.hiddenTests,
      (t) => HIDDEN_TEST_LABELS[t as keyof typeof HIDDEN_TEST_LABELS],
    );
    for (const b of this.tierButtons)
      b.setAttribute('aria-pressed', String(filters.tiers.includes(b.dataset.tier as Tier)));
    for (const b of this.difficultyButtons)
      b.setAttribute('aria-pressed', String(filters.difficulties.includes(b.dataset.difficulty as Difficulty)));
    for (const b of this.agreementButtons)
      b.setAttribute('aria-pressed', String(filters.agreement === b.dataset.agreement));
    this.clear.hidden = filterCount(filters) === 0;
  }
}
