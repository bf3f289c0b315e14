// The cockpit of a space above its browser limit (docs/contract.md §6 "Reading at scale"): no run is downloaded.
// The URL holds the same view as in the browser; every card drawn here is an answer of the read API under the
// URL's filters and outcome: the KPI tiles, the resolve-rate chart, the per-model table, the reliability, cost and
// judge spend cards from `/stats` (and `/budget`), Compare's pairs from `/pairs`, the Runs grid a page at a time
// from `/grid`, each drawn by the browser mode's own renderers where they take figures rather than runs. A card
// whose figures need every run says so, plainly, and shows nothing rather than a partial figure.
import {
  apiPaths,
  type BudgetBody,
  type CockpitIssue,
  type GridPage,
  type GridQuery,
  type HostsBody,
  type PairsBody,
  type StatsBody,
  type StatsGroup,
} from '#analytics/contract.ts';
import type { Reliability } from '#analytics/reliability.ts';
import type { Group } from '#analytics/run-grouping.ts';
import { renderAllPairs } from '../compare/all-pairs-view.ts';
import { renderResolveGroups, resolveCard } from '../dashboard-cards/bar-cards.ts';
import { card } from '../dashboard-cards/card.ts';
import { COST_BASES, renderCost } from '../dashboard-cards/cost-card.ts';
import { renderJudgeSpend } from '../dashboard-cards/judge-spend-card.ts';
import { OTHER, tile, type TileFigures } from '../dashboard-cards/kpi-tiles.ts';
import { rateOn, renderEngineModelsTable } from '../dashboard-cards/models-table.ts';
import { ReliabilityCard } from '../dashboard-cards/reliability-card.ts';
import { FilterBar } from '../filters/filter-bar.ts';
import { OutcomeSwitch } from '../filters/outcome-switch.ts';
import { HostsView } from '../hosts/hosts-view.ts';
import { EngineRunsView } from '../runs-grid/engine-runs-view.ts';
import { appLink, byId, el, fill } from '../widgets/dom.ts';
import { DetailPanel } from '../run-detail/detail-panel.ts';
import { count, instant } from '../widgets/format.ts';
import { ApiError, type Api } from './api.ts';
import type { Located } from './cockpit.ts';
import type { EngineSpace } from './space-runs.ts';
import { CARDS_WITHOUT_ENGINE } from './engine-cards.ts';
import { AREAS, readState, toSearch, writeState, type Area, type ViewState } from './url-state.ts';

export class EngineCockpit {
  private state: ViewState = readState();
  private readonly space: string;
  private readonly status = byId('live-status');
  private readonly outcomeSwitch = new OutcomeSwitch((outcome) => this.update({ outcome }));
  private readonly filterBar = new FilterBar((filters) => this.update({ filters }));
  private readonly areas: Record<Area, HTMLElement>;
  private readonly kpis = el('section', { class: 'kpis', id: 'kpis', 'aria-label': 'Resolve rate per model' });
  private readonly models = card(
    'table-models',
    'Per model',
    'Every figure the engine answers, a row per configuration.',
    {
      wide: true,
    },
  );
  private readonly resolve = resolveCard();
  private readonly reliability = new ReliabilityCard();
  /** The figures last drawn, drawn again when a card's own choice (its order, its cost basis) changes. */
  private drawn: { stats: StatsBody; budget: BudgetBody } | null = null;
  private readonly basis = el(
    'select',
    { class: 'card-sort', 'aria-label': 'Cost basis' },
    ...COST_BASES.map((b) => el('option', { value: b.basis }, b.label)),
  );
  private readonly cost = card(
    'chart-cost',
    'Cost per resolved task',
    'Run costs at the configured prices, from the API.',
  );
  private readonly judgeSpend = card(
    'chart-judge-spend',
    'Judge spend',
    'What judging cost per day and per configuration.',
  );
  private readonly pairsHost = el('div', { id: 'all-pairs' });
  private readonly runs: EngineRunsView;
  private readonly hostsView = new HostsView();
  private readonly detail: DetailPanel;
  private options: StatsGroup[] = [];
  private asked = '';

  constructor(
    private readonly api: Api,
    private readonly located: Located,
    private readonly engine: EngineSpace,
    private readonly issues: CockpitIssue[],
  ) {
    this.space = located.cockpit.space;
    this.runs = new EngineRunsView(issues, {
      sort: (column) =>
        this.update({
          sort: {
            column,
            descending:
              this.state.sort.column === column
                ? !this.state.sort.descending
                : column !== 'model' && column !== 'taskId',
          },
        }),
      page: (cursor) => void this.loadGrid(cursor),
      search: (search) => this.update({ search }),
      open: (run) => this.update({ run }),
    });
    // A run's detail is the row API's; its other samples and its task's view need every run, so are not shown.
    this.detail = new DetailPanel(
      api,
      this.space,
      located.cockpit.showReference,
      (taskId) => issues.find((i) => i.taskId === taskId) ?? null,
      () => this.update({ run: null }),
      () => el('span', { class: 'muted' }, 'The Task view is not shown at this size'),
      () => [],
      (run, text) =>
        appLink(
          location.pathname + toSearch({ ...this.state, area: 'runs', run }),
          () => this.update({ area: 'runs', run }),
          {},
          text,
        ),
    );
    const panel = (area: Area, ...children: Node[]) =>
      el('div', { id: `${area}-area`, role: 'tabpanel', 'aria-labelledby': `tab-${area}` }, ...children);
    const note = el(
      'p',
      { class: 'engine-note', id: 'engine-mode', role: 'note' },
      `This space counts ${count(engine.engine.runs)} runs, more than this cockpit holds in the browser ` +
        `(${count(engine.engine.browserRuns)}): every figure here is the read API's, worked out by the engine over ` +
        `the runs as of ${instant(engine.asOf)}.`,
    );
    this.cost.head.append(el('label', { class: 'card-sort-label' }, 'Cost ', this.basis));
    for (const choice of [this.basis, this.resolve.sort!])
      choice.addEventListener('change', () => this.drawn && this.drawDashboard(this.drawn.stats, this.drawn.budget));
    this.areas = {
      dashboard: panel(
        'dashboard',
        note,
        this.kpis,
        el(
          'div',
          { class: 'cards' },
          this.resolve.root,
          this.models.root,
          this.reliability.frame.root,
          this.cost.root,
          this.judgeSpend.root,
          el(
            'section',
            { class: 'card wide', id: 'cards-without-engine' },
            el('h2', {}, 'Not shown at this size'),
            el(
              'p',
              {},
              'These cards need every run in the browser, and the engine does not answer them yet: ',
              CARDS_WITHOUT_ENGINE.join(', '),
              '.',
            ),
          ),
        ),
      ),
      compare: panel(
        'compare',
        el(
          'p',
          { class: 'muted', id: 'compare-one-pair' },
          'Every pair of the configurations in view, from the engine; one pair’s sentence and its tasks need every run in the browser and are not shown at this size.',
        ),
        this.pairsHost,
      ),
      runs: panel('runs', this.runs.root, this.detail.root),
      task: panel(
        'task',
        el(
          'p',
          { class: 'empty-state', id: 'task-without-engine' },
          'The Task view needs every run in the browser and is not shown at this size.',
        ),
      ),
      hosts: panel('hosts', this.hostsView.root),
    };
  }

  start(): void {
    this.filterBar.root.prepend(this.outcomeSwitch.root);
    fill(byId('filter-host'), this.filterBar.root);
    byId('boot-state').replaceChildren();
    fill(byId('areas'), ...AREAS.map((a) => this.areas[a]));
    byId('areas').hidden = false;
    for (const tab of document.querySelectorAll<HTMLButtonElement>('[data-area]'))
      tab.addEventListener('click', () => this.update({ area: tab.dataset.area as Area }));
    window.addEventListener('popstate', () => {
      this.state = readState();
      this.syncDetail();
      this.render();
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.state.run) this.update({ run: null });
    });
    this.syncDetail();
    void this.api.json<StatsBody>(apiPaths.stats(this.space)).then((all) => {
      this.options = all.groups;
      this.render();
    });
    void this.api
      .json<HostsBody>(apiPaths.hosts(this.space))
      .then(({ hosts }) => this.hostsView.render(hosts, this.space));
    this.render();
  }

  private update(change: Partial<ViewState>) {
    const previous = this.state;
    this.state = { ...this.state, ...change };
    if (change.run) this.state.area = 'runs';
    writeState(this.state, previous);
    if (this.state.run !== previous.run) this.syncDetail();
    this.render();
  }

  private syncDetail() {
    if (this.state.run) void this.detail.show(this.state.run);
    else this.detail.hide();
  }

  /** The URL's selection as the read API takes it. */
  private query() {
    const { filters } = this.state;
    return {
      models: filters.models,
      tiers: filters.tiers,
      waves: filters.waves,
      harnessVersions: filters.harnessVersions,
      repos: filters.repos,
      ...(this.state.outcome && { outcome: this.state.outcome }),
      ...(filters.agreement && { agreement: filters.agreement }),
      difficulties: filters.difficulties,
    };
  }

  private render() {
    const { area, filters } = this.state;
    const waves = [...new Set(this.issues.flatMap((i) => (i.wave === null ? [] : [i.wave])))].sort((a, b) => a - b);
    const repos = [...new Set(this.issues.flatMap((i) => (i.repo ? [i.repo] : [])))].sort((a, b) => a.localeCompare(b));
    const names = (pick: (g: StatsGroup) => string) =>
      [...new Set(this.options.map(pick))].sort((a, b) => a.localeCompare(b));
    this.filterBar.render(
      { models: names((g) => g.model), harnessVersions: names((g) => g.harnessVersion), repos, waves },
      filters,
    );
    byId('filter-host').hidden = area === 'hosts';
    for (const a of AREAS) {
      this.areas[a].hidden = a !== area;
      const tab = document.querySelector(`[data-area="${a}"]`);
      tab?.setAttribute('aria-selected', String(a === area));
      tab?.setAttribute('tabindex', a === area ? '0' : '-1');
    }
    const key = JSON.stringify([area, this.query(), this.state.sort, this.state.search, filters, this.basis.value]);
    if (key === this.asked) return;
    this.asked = key;
    if (area === 'dashboard') void this.loadDashboard(key);
    if (area === 'compare') void this.loadPairs(key);
    if (area === 'runs') void this.loadGrid(null);
  }

  private say(error: unknown) {
    this.status.textContent = error instanceof ApiError ? `${error.what}: ${error.message}` : (error as Error).message;
  }

  private async loadDashboard(key: string) {
    document.documentElement.dataset.ready = 'loading';
    try {
      const [stats, budget] = await Promise.all([
        this.api.json<StatsBody>(apiPaths.stats(this.space, { ...this.query(), minN: this.located.cockpit.minN })),
        this.api.json<BudgetBody>(apiPaths.budget(this.space)),
      ]);
      if (key !== this.asked) return;
      this.drawDashboard(stats, budget);
      this.status.textContent = `${count(stats.groups.reduce((n, g) => n + g.runs, 0))} runs in view`;
    } catch (e) {
      this.say(e);
    }
    document.documentElement.dataset.ready = 'true';
  }

  private drawDashboard(stats: StatsBody, budget: BudgetBody) {
    this.drawn = { stats, budget };
    const outcome = stats.outcome;
    this.outcomeSwitch.render(outcome, this.state.outcome !== null);
    const several = new Set(stats.groups.map((g) => g.harnessVersion)).size > 1;
    const label = (g: Group) => (several ? `${g.model} · ${g.harnessVersion}` : g.model);
    // Ranked first, best rate first, as the browser orders its tiles; the unranked after, by name.
    const ranked = [...stats.groups].sort(
      (a, b) =>
        (a.rank ?? Infinity) - (b.rank ?? Infinity) ||
        (a.rank === null && b.rank === null ? (b.rate ?? -1) - (a.rate ?? -1) : 0) ||
        a.model.localeCompare(b.model) ||
        a.harnessVersion.localeCompare(b.harnessVersion),
    );
    const outside = (g: StatsGroup) => ({
      none: outcome === 'tests' ? g.outside : g.runs - g.hidden.n,
      flagged: g.judge.flagged,
      excluded: g.judge.excluded,
      error: g.judge.error,
      unjudged: g.judge.notJudged,
    });
    fill(
      this.kpis,
      ...ranked.map((g) =>
        tile({
          model: g.model,
          harnessVersion: g.harnessVersion,
          label: label(g),
          several,
          rank: g.rank,
          minN: stats.minN,
          rate: rateOn(g, outcome, outcome),
          other: rateOn(g, OTHER[outcome], outcome),
          outside: outside(g),
          tasks: g.tasks,
          runs: g.runs,
          generated: g.generated,
          campaign: this.located.cockpit.campaign ?? null,
        } satisfies TileFigures),
      ),
    );
    renderResolveGroups(
      this.resolve,
      ranked.map((g) => ({
        label: label(g),
        model: g.model,
        harnessVersion: g.harnessVersion,
        outcomes: { tests: rateOn(g, 'tests', outcome), judge: rateOn(g, 'judge', outcome) },
        outside: outside(g),
      })),
      outcome,
    );
    renderEngineModelsTable(this.models, ranked, outcome);
    this.reliability.fillFigures(
      ranked.map((g) => ({
        label: label(g),
        model: g.model,
        harnessVersion: g.harnessVersion,
        figure: { ...g.samples, samples: g.n, resolved: g.resolved, rate: g.rate, ci: g.ci } as Reliability,
      })),
      outcome,
    );
    renderCost(this.cost, { stats, budget, error: null }, this.basis, label);
    renderJudgeSpend(this.judgeSpend, { stats, budget, error: null }, label);
  }

  private async loadPairs(key: string) {
    try {
      const body = await this.api.json<PairsBody>(apiPaths.pairs(this.space, this.query()));
      if (key !== this.asked) return;
      this.outcomeSwitch.render(body.outcome, this.state.outcome !== null);
      const several = new Set(body.rows.flatMap((r) => [r.a.harnessVersion, r.b.harnessVersion])).size > 1;
      renderAllPairs(
        this.pairsHost,
        (g) => (several ? `${g.model} · ${g.harnessVersion}` : g.model),
        { ...body, refused: null },
        {
          pairHref: (a, b) => location.pathname + toSearch({ ...this.state, compare: { a, b }, allPairs: false }),
          openPair: (a, b) => this.update({ compare: { a, b }, allPairs: false }),
        },
      );
    } catch (e) {
      if (e instanceof ApiError && e.status === 400)
        fill(this.pairsHost, el('p', { class: 'compare-sentence', id: 'all-pairs-refused' }, e.message));
      else this.say(e);
    }
    document.documentElement.dataset.ready = 'true';
  }

  private async loadGrid(cursor: string | null) {
    const { filters, search } = this.state;
    const sort = this.runs.sortable(this.state.sort);
    const query: GridQuery = {
      ...this.query(),
      verdicts: filters.verdicts,
      hiddenTests: filters.hiddenTests,
      search,
      sort,
      ...(cursor && { cursor }),
    };
    try {
      const page = await this.api.json<GridPage>(apiPaths.grid(this.space, query));
      this.outcomeSwitch.render(page.outcome, this.state.outcome !== null);
      this.runs.show(page, sort, cursor, search);
    } catch (e) {
      this.say(e);
    }
    document.documentElement.dataset.ready = 'true';
  }
}
