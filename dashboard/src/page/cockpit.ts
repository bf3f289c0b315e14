// The cockpit once its runs are in (docs/contract.md §6): every area renders from one computed view model,
// the URL holds the view so it can be linked, and changes are followed with `since` deltas. Loaded by
// main.ts as its own chunk while the runs stream in: its modules (and the chart library's number formats,
// whose first use initialises the browser's locale data) need not run before the runs are asked for.
import { compactRun, valueOfCode } from '#analytics/columns.ts';
import { verdictKeyAt } from '#analytics/result-filters.ts';
import {
  apiPaths,
  COCKPIT_ISSUE_FIELDS,
  EXPORT_FORMATS,
  type BudgetBody,
  type CockpitEntry,
  type CockpitIssue,
  type CockpitIssuesBody,
  type CockpitSettings,
  type ExportFormat,
  type HostsBody,
  type StatsBody,
} from '#analytics/contract.ts';
import type { RunTable } from '#analytics/run-table.ts';
import type { TaskFacts } from '#analytics/run-selection.ts';
import type { ResolveOutcome } from '#analytics/statistics.ts';
import type { HostRecord } from '#schema/host.ts';
import type { Api } from './api.ts';
import { changesSince } from './space-runs.ts';
import { DashboardView } from '../dashboard-cards/dashboard-view.ts';
import { DetailPanel } from '../run-detail/detail-panel.ts';
import { CompareView } from '../compare/compare-view.ts';
import { appLink, byId, fill } from '../widgets/dom.ts';
import { FilterBar } from '../filters/filter-bar.ts';
import { OutcomeSwitch } from '../filters/outcome-switch.ts';
import { colouringOf } from '../dashboard-cards/matrix-card.ts';
import { freshnessText, newestLanding } from './freshness.ts';
import { HostsView } from '../hosts/hosts-view.ts';
import { TaskView } from '../task/task-view.ts';
import { RunsView } from '../runs-grid/runs-view.ts';
import {
  AREAS,
  noFilters,
  readState,
  toSearch,
  writeState,
  type Area,
  type CockpitFilters,
  type ViewState,
} from './url-state.ts';
import { compute, indexData, type Computed, type DataIndex } from './view-model.ts';
import { filterOptions } from '../filters/filter-options.ts';
import { memo } from './memo.ts';
import { runBanners } from './run-banners.ts';

const POLL_MS = 4_000;
const POLL_HIDDEN_MS = 30_000;
const SIDE_DATA_MS = 30_000;

export interface Located {
  cockpit: CockpitEntry;
  all: CockpitEntry[];
  settings: CockpitSettings;
}

export class Cockpit {
  private state: ViewState = readState();
  private computed: Computed | null = null;
  private readonly outcomeSwitch = new OutcomeSwitch((outcome) => this.update({ outcome }));
  private lastUpdate = Date.now();
  private lastError: string | null = null;
  private renderQueued = false;
  private renders = 0;
  private sideDataAt = Date.now();
  private issuesRevision = 0;
  /** The issue records as last compared, made at the first refresh rather than on the first render's path. */
  private issuesJson: string | null = null;
  private readonly status = byId('live-status');
  private readonly banners = byId('banners');
  private readonly filterBar = new FilterBar((filters) => this.update({ filters }));
  private readonly dashboard = new DashboardView({
    openRun: (i) => this.update({ area: 'runs', run: this.table.id(i) }),
    openRuns: (outcome) => this.update({ area: 'runs', search: '', filters: { ...this.state.filters, ...outcome } }),
    runsHref: (outcome) =>
      location.pathname +
      toSearch({ ...this.state, area: 'runs', run: null, search: '', filters: { ...this.state.filters, ...outcome } }),
    // The colouring that matches the outcome in view is the default, which the address leaves out.
    colourMatrix: (matrix) => this.update({ matrix: matrix === colouringOf(this.model(), null) ? null : matrix }),
    clearFilters: () => this.update({ filters: noFilters() }),
    showRepo: (repo) => this.update({ filters: { ...this.state.filters, repos: [repo] } }),
    repoHref: (repo) =>
      location.pathname + toSearch({ ...this.state, filters: { ...this.state.filters, repos: [repo] } }),
    useJudge: () => this.update({ outcome: 'judge' }),
  });
  private readonly runs = new RunsView({
    search: (search) => this.update({ search }),
    sort: (column) =>
      this.update({
        sort: {
          column,
          descending:
            this.state.sort.column === column ? !this.state.sort.descending : column !== 'model' && column !== 'taskId',
        },
      }),
    open: (run) => this.update({ run }),
    walk: (run) => this.update({ run }, true),
    clear: () => this.update({ filters: noFilters(), search: '' }),
    download: (href, filename) => {
      if (!this.api.signedIn) return false;
      void this.api.download(href, filename).catch((e: unknown) => {
        this.lastError = `export: ${(e as Error).message}`;
        this.paintStatus();
      });
      return true;
    },
  });
  private readonly compareView = new CompareView({
    // Choosing one side fixes the other as shown, so the address names both groups.
    choose: (side, group) =>
      this.update({ compare: { ...CompareView.pair(this.model(), this.state.compare), [side]: group } }),
    swap: () => {
      const { a, b } = CompareView.pair(this.model(), this.state.compare);
      this.update({ compare: { a: b, b: a } });
    },
    runHref: (run) => location.pathname + toSearch({ ...this.state, area: 'runs', run }),
    openRun: (run) => this.update({ area: 'runs', run }),
    taskHref: (task) => location.pathname + toSearch({ ...this.state, area: 'task', task }),
    openTask: (task) => this.update({ area: 'task', task }),
    showAllPairs: (allPairs) => this.update({ allPairs }),
    pairHref: (a, b) => location.pathname + toSearch({ ...this.state, compare: { a, b }, allPairs: false }),
    openPair: (a, b) => this.update({ compare: { a, b }, allPairs: false }),
  });
  private readonly hostsView = new HostsView();
  private readonly taskView = new TaskView({
    openTask: (task) => this.update({ area: 'task', task }),
    openRun: (run) => this.update({ area: 'runs', run }),
    runHref: (run) => location.pathname + toSearch({ ...this.state, area: 'runs', run }),
  });
  private hosts: HostRecord[] | null = null;
  private readonly detail: DetailPanel;

  // Known once start() has the runs; until then nothing renders.
  private table!: RunTable;
  private asOf = '';
  private issues: CockpitIssue[] = [];
  private started = false;

  /** Builds the views and puts them in the page, hidden (and the filters with them) until start(). */
  constructor(
    private readonly api: Api,
    private readonly located: Located,
  ) {
    this.detail = new DetailPanel(
      api,
      located.cockpit.space,
      located.cockpit.showReference,
      (taskId) => this.issues.find((i) => i.taskId === taskId) ?? null,
      () => this.update({ run: null }),
      (task) =>
        appLink(
          location.pathname + toSearch({ ...this.state, area: 'task', task, run: null }),
          () => this.update({ area: 'task', task }),
          { id: 'run-task-link' },
          'Every configuration on this task',
        ),
      (runId) => {
        const i = this.table.indexOfId(runId);
        return i < 0
          ? []
          : this.table.samplesOf(i).map((j) => ({
              id: this.table.id(j),
              sample: this.table.sampleAt(j),
              verdict: verdictKeyAt(this.table, j),
              hiddenTest: valueOfCode('hiddenTest', this.table.codes.hiddenTest[j]!),
            }));
      },
      (run, text) =>
        appLink(
          location.pathname + toSearch({ ...this.state, area: 'runs', run }),
          () => this.update({ area: 'runs', run }),
          { class: 'sample-link' },
          text,
        ),
    );
    this.runs.detailHost.append(this.detail.root);
    this.filterBar.root.prepend(this.outcomeSwitch.root);
    fill(byId('filter-host'), this.filterBar.root);
    byId('filter-host').hidden = true;
    byId('areas').append(
      this.dashboard.root,
      this.compareView.root,
      this.runs.root,
      this.taskView.root,
      this.hostsView.root,
    );
    for (const a of AREAS) byId(`${a}-area`).hidden = true;
    this.wireTabs();
    this.wireSkipLink();
    window.addEventListener('popstate', () => {
      if (this.retired) return;
      this.state = readState();
      this.syncDetail();
      this.render();
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.state.run) this.update({ run: null });
    });
  }

  /** The runs as loaded (space-runs.ts): a catch-up that failed shows in the status line, and the first poll retries it. */
  start(table: RunTable, asOf: string, issues: CockpitIssue[], catchUpError: string | null) {
    [this.table, this.asOf, this.issues, this.lastError] = [table, asOf, issues, catchUpError];
    this.started = true;
    // The areas appear whole, in one step with the filters and banners above them: nothing already shown moves.
    byId('boot-state').replaceChildren();
    byId('areas').hidden = false;
    setInterval(() => this.paintStatus(), 1000);
    this.render();
    this.syncDetail();
    if (this.state.run) this.runs.reveal(this.state.run);
    // Marked once the first complete render has been laid out and painted: the benchmark reads it.
    void document.body.offsetHeight;
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('cockpit-ready');
        document.documentElement.dataset.ready = 'true';
      }),
    );
    this.schedulePoll();
    // The issues were fetched with the runs; the hosts were not.
    void this.refreshHosts().catch((e: unknown) => (this.lastError = (e as Error).message));
  }

  /** "Skip to content" lands on the first card of the area in view (its first chart), past the tabs and filters. */
  private wireSkipLink() {
    document.querySelector('.skip-link')?.addEventListener('click', (e) => {
      e.preventDefault();
      const area = document.querySelector<HTMLElement>('#areas > :not([hidden])');
      const target = area?.querySelector<HTMLElement>('.card') ?? byId('areas');
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus();
    });
  }

  /** Tabs as WAI-ARIA tabs: one Tab stop (the selected tab), the arrow keys, Home and End move between them. */
  private wireTabs() {
    const tabs = [...document.querySelectorAll<HTMLButtonElement>('[data-area]')];
    tabs.forEach((tab, k) => {
      tab.addEventListener('click', () => this.update({ area: tab.dataset.area as Area }));
      tab.addEventListener('keydown', (e) => {
        const to = { ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: tabs.length - 1 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        const next = tabs[(to + tabs.length) % tabs.length]!;
        next.focus();
        this.update({ area: next.dataset.area as Area });
      });
    });
  }

  /**
   * Leaves the page to engine mode (engine-cockpit.ts): built while the first answer was on its way, this
   * cockpit's tab, key and history listeners stay in the page and must not write the address any more.
   */
  standDown(): void {
    this.retired = true;
  }

  private retired = false;

  private update(change: Partial<ViewState>, replaceHistory = false) {
    if (this.retired) return;
    const previous = this.state;
    this.state = { ...this.state, ...change };
    if (change.area && change.area !== 'runs' && !('run' in change)) this.state.run = null;
    if (change.run) this.state.area = 'runs';
    writeState(this.state, previous, replaceHistory);
    if (this.state.run !== previous.run) this.syncDetail();
    // Last deliveries change with every push: entering Hosts shows them fresh, not as of the last refresh.
    if (this.state.area === 'hosts' && previous.area !== 'hosts')
      void this.refreshHosts().catch((e: unknown) => (this.lastError = (e as Error).message));
    this.render();
    if (change.run) this.runs.reveal(change.run);
  }

  private syncDetail() {
    if (this.state.run) void this.detail.show(this.state.run);
    else this.detail.hide();
  }

  private readonly dataIndex = memo((table: RunTable, _revision: number, issues: CockpitIssue[]) =>
    indexData(table, issues),
  );

  /** Filters compare by value (their JSON): the same filters read back from the address keep the view. */
  private readonly view = memo(
    (data: DataIndex, dataKey: string, filters: string, outcome: ResolveOutcome | null): Computed =>
      compute(data, dataKey, JSON.parse(filters) as CockpitFilters, outcome, this.located.cockpit, this.computed),
  );

  private model(): Computed {
    const data = this.dataIndex(this.table, this.table.revision, this.issues);
    const dataKey = `${this.table.revision}|${this.issuesRevision}`;
    this.computed = this.view(data, dataKey, JSON.stringify(this.state.filters), this.state.outcome);
    return this.computed;
  }

  private scheduleRender() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  private lastDashboard: Computed | null = null;

  private render() {
    if (!this.started) return;
    const m = this.model();
    const { area } = this.state;
    // Hosts are not filtered by runs: their view shows neither the filters nor the banners about runs.
    const filtered = area !== 'hosts';
    byId('filter-host').hidden = !filtered;
    this.banners.hidden = !filtered;
    this.filterBar.render(this.filterOptions(this.table, this.table.revision, m.facts), this.state.filters);
    this.outcomeSwitch.render(m.outcome, m.outcomeChosen);
    fill(this.banners, ...runBanners(m));
    for (const a of AREAS) {
      byId(`${a}-area`).hidden = a !== area;
      const tab = document.querySelector(`[data-area="${a}"]`);
      tab?.setAttribute('aria-selected', String(a === area));
      tab?.setAttribute('tabindex', a === area ? '0' : '-1');
    }
    this.dashboard.colourBy(this.state.matrix);
    if (area === 'dashboard') this.refreshCost(m);
    if (area === 'dashboard' && this.lastDashboard !== m) {
      // The first render fills every chart before the page says it is ready.
      this.dashboard.render(m, this.lastDashboard === null);
      this.lastDashboard = m;
    }
    if (area === 'compare') this.compareView.render(m, this.state.filters, this.state.compare, this.state.allPairs);
    if (area === 'runs') {
      this.runs.render(m, this.state.search, this.state.sort, this.state.run);
      this.renderExportLinks(m);
    }
    if (area === 'task') this.taskView.render(m, this.state.task);
    if (area === 'hosts') this.hostsView.render(this.hosts, this.located.cockpit.space);
    this.runs.root.classList.toggle('with-detail', !!this.state.run);
    this.paintStatus();
    document.documentElement.dataset.renderCount = String(++this.renders);
  }

  private costFor = '';
  private costAt = 0;

  /**
   * The cost card's figures come from the API (run costs need the configured prices, which the page never
   * sees): read again when the filters change, and at most every 30 s otherwise.
   */
  private refreshCost(m: Computed) {
    const { models, tiers, waves, harnessVersions, repos, difficulties, agreement } = this.state.filters;
    // The figures' filters whole, as the other cards count them (and engine mode's cost card asks).
    const filters = {
      models,
      tiers,
      waves,
      harnessVersions,
      repos,
      difficulties,
      ...(agreement && { agreement }),
      outcome: m.outcome,
    };
    const key = JSON.stringify(filters);
    if (key === this.costFor && Date.now() - this.costAt < SIDE_DATA_MS) return;
    this.costFor = key;
    this.costAt = Date.now();
    const space = this.located.cockpit.space;
    Promise.all([
      this.api.json<StatsBody>(apiPaths.stats(space, filters)),
      this.api.json<BudgetBody>(apiPaths.budget(space)),
    ]).then(
      ([stats, budget]) => this.costFor === key && this.dashboard.setCost({ stats, budget, error: null }),
      (e: unknown) =>
        this.costFor === key && this.dashboard.setCost({ stats: null, budget: null, error: (e as Error).message }),
    );
  }

  /** The exports carry every filter, the outcome and the search: they hold the rows the grid counts. */
  private renderExportLinks(m: Computed) {
    const { filters, search } = this.state;
    const space = this.located.cockpit.space;
    const carried = {
      models: filters.models,
      tiers: filters.tiers,
      waves: filters.waves,
      harnessVersions: filters.harnessVersions,
      repos: filters.repos,
      outcome: m.outcome,
      agreement: filters.agreement ?? undefined,
      difficulties: filters.difficulties,
      verdicts: filters.verdicts,
      hiddenTests: filters.hiddenTests,
      search,
    };
    const hrefs = Object.fromEntries(
      EXPORT_FORMATS.map((format) => [format, this.api.url(apiPaths.export(space, format, carried))]),
    ) as Record<ExportFormat, string>;
    this.runs.exportLinks(hrefs, `${space}-runs`);
  }

  private readonly filterOptions = memo((table: RunTable, _revision: number, facts: TaskFacts) =>
    filterOptions(table, facts),
  );

  private readonly newestLanding = memo(newestLanding);

  /** When the newest run in view landed, and the poll only when it fails or lags (freshness.ts). */
  private paintStatus() {
    const m = this.computed;
    const newest = m ? this.newestLanding(m) : null;
    const { text, failing } = freshnessText(newest, m?.selection.length ?? 0, this.table.size, {
      lastUpdate: this.lastUpdate,
      lastError: this.lastError,
    });
    this.status.classList.toggle('failing', failing);
    if (this.status.textContent !== text) this.status.textContent = this.status.title = text;
  }

  private schedulePoll() {
    setTimeout(() => void this.poll().finally(() => this.schedulePoll()), document.hidden ? POLL_HIDDEN_MS : POLL_MS);
  }

  /** Every run changed since the last asOf; repeated rows replace themselves. */
  private async catchUp(): Promise<{ changed: boolean; openChanged: boolean }> {
    const changes = await changesSince(this.api, this.located.cockpit.space, this.asOf);
    let changed = false;
    let openChanged = false;
    for (const row of changes.runs) {
      const { changed: c } = this.table.upsert(compactRun(row));
      changed ||= c;
      if (c && row.id === this.detail.openId) openChanged = true;
    }
    this.asOf = changes.asOf;
    return { changed, openChanged };
  }

  private async poll() {
    try {
      const { changed, openChanged } = await this.catchUp();
      if (Date.now() - this.sideDataAt > SIDE_DATA_MS) await this.refreshSideData();
      this.lastUpdate = Date.now();
      this.lastError = null;
      if (openChanged) void this.detail.show(this.detail.openId!);
      if (changed) this.scheduleRender();
    } catch (e) {
      this.lastError = (e as Error).message;
    }
    this.paintStatus();
  }

  private async refreshSideData() {
    await Promise.all([this.refreshIssues(), this.refreshHosts()]);
    this.sideDataAt = Date.now();
  }

  private async refreshHosts() {
    this.hosts = (await this.api.json<HostsBody>(apiPaths.hosts(this.located.cockpit.space))).hosts;
    this.scheduleRender();
  }

  private async refreshIssues() {
    const issues = await this.api.json<CockpitIssuesBody>(
      apiPaths.issues(this.located.cockpit.space, COCKPIT_ISSUE_FIELDS),
    );
    const json = JSON.stringify(issues.issues);
    if (json !== (this.issuesJson ??= JSON.stringify(this.issues))) {
      this.issues = issues.issues;
      this.issuesJson = json;
      this.issuesRevision++;
      this.scheduleRender();
    }
  }
}
