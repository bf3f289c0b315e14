// The read API as the cockpit sees it (docs/contract.md §10): response bodies and paths, typed once for the server
// (core/read/read-api.ts) and the dashboard. Imports types only, so it runs in the browser.
import type { HostRecord } from '#schema/host.ts';
import type { IssueField, StoredIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import type { AgreementFilter, Difficulty, Interval, ResolveOutcome, RunCostFigure } from './statistics.ts';
import type { AttemptSummary } from '#schema/attempt.ts';
import type { RunColumns } from './columns.ts';
import type { PairRow } from './all-pairs.ts';
import type { GroupComparison } from './compare-groups.ts';
import type { ClusterUnit, SamplesFigure } from './reliability.ts';
import type { HiddenColumn } from './rate-figures.ts';
import type { VerdictKey } from './result-filters.ts';

export interface RunsPage {
  runs: RunRow[];
  cursor: string | null;
  /** A safe `since` for the next delta. */
  asOf: string;
}

/** The issue records, whole or (`fields`) as only the fields named, taskId always among them. */
export interface IssuesBody<F extends IssueField = IssueField> {
  issues: Pick<StoredIssue, F | 'taskId'>[];
}

/**
 * The issue fields the cockpit shows (task facts for filters and order, the labels, the detail panel's
 * links): a big space's issue records are megabytes of JSON the page would parse on its first load.
 */
export const COCKPIT_ISSUE_FIELDS = [
  'taskId',
  'order',
  'tier',
  'wave',
  'prToMergeHours',
  'repo',
  'issueNumber',
  'fixPrNumber',
] as const satisfies readonly IssueField[];
export type CockpitIssuesBody = IssuesBody<(typeof COCKPIT_ISSUE_FIELDS)[number]>;
export type CockpitIssue = CockpitIssuesBody['issues'][number];

export interface AttemptsBody {
  /** Newest first; `current` marks the run's row. */
  attempts: AttemptSummary[];
}

/** A run's patch and summary in one answer (the run detail's one read of them); null where none is stored. */
export interface RunTextsBody {
  patch: string | null;
  summary: string | null;
}

export interface HostsBody {
  hosts: HostRecord[];
}

/** The original fix of a run's task, from the judge's cache (lock files left out); never the issue text. */
export interface ReferenceBody {
  repo: string;
  baseSha: string;
  mergeSha: string;
  fixPrNumber: number | null;
  diff: string;
  omittedLockFiles: string[];
}

/** `cockpits.<name>.campaign`: the task population the campaign is a sample of, and how its tasks were chosen. */
export interface CampaignDeclaration {
  population: { name: string; size: number };
  sample?: string;
}

export interface CockpitEntry {
  name: string;
  space: string;
  public: boolean;
  /** Whether the cockpit shows the original fix beside a run (`GET …/runs/{id}/reference` answers 403 otherwise). */
  showReference: boolean;
  /** Below this n on the outcome a configuration is shown but not ranked (`cockpits.<name>.minN`). */
  minN: number;
  /**
   * The task population the campaign is a sample of, and how it was chosen (`cockpits.<name>.campaign`); null when
   * not declared, absent in a cockpit.json written before it existed.
   */
  campaign?: CampaignDeclaration | null;
}

export interface CockpitsBody {
  cockpits: CockpitEntry[];
}

export interface ApiErrorBody {
  error: string;
  message: string;
}

/**
 * `cockpit.json`, the first thing the dashboard reads: which cockpits this page shows and how analysts sign
 * in. A deployed cockpit's file (written by the CDK cockpit construct) names that cockpit alone; local mode
 * answers with every configured cockpit, the first being the default, and no sign-in.
 */
export const COCKPIT_SETTINGS_FILE = 'cockpit.json';

export interface CockpitSettings {
  cockpits: CockpitEntry[];
  api: string;
  /** OAuth 2.0 authorization code with PKCE against the Cognito hosted UI; null for a public cockpit. */
  signIn: {
    authorizeUrl: string;
    tokenUrl: string;
    logoutUrl: string;
    clientId: string;
    redirectUri: string;
    scopes: string[];
  } | null;
}

export type { RunColumns };

const seg = encodeURIComponent;

/** What the read API's figures and exports are asked for: the page's filters and the outcome that says "resolved". */
export interface ReadQuery {
  models?: string[];
  tiers?: string[];
  waves?: number[];
  harnessVersions?: string[];
  /** Only the runs of tasks of these repositories (`owner/name`). */
  repos?: string[];
  /** Absent: the server's default (tests when any run in view has a pass/fail hidden test). */
  outcome?: ResolveOutcome;
  /** Only the runs where the judge and the hidden tests disagree, or agree. */
  agreement?: AgreementFilter;
  /** Only the runs of tasks of these empirical difficulties. */
  difficulties?: Difficulty[];
  /** Below this n a group gets no rank (`/stats`; absent: 10). */
  minN?: number;
  /** What the clustered figures cluster by (`/stats`, `/compare`, `/pairs`; absent: each task). */
  cluster?: ClusterUnit;
  /** Exports: only these judge verdicts and hidden-test results (none: any), and the runs matching the search words. */
  verdicts?: VerdictKey[];
  hiddenTests?: HiddenColumn[];
  search?: string;
}

/** The filters of the Runs and Dashboard views as a query string: every value its own parameter (model names may contain commas). */
export function filterQuery(filters: ReadQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const m of filters.models ?? []) params.append('model', m);
  for (const t of filters.tiers ?? []) params.append('tier', t);
  for (const w of filters.waves ?? []) params.append('wave', String(w));
  for (const h of filters.harnessVersions ?? []) params.append('harnessVersion', h);
  for (const r of filters.repos ?? []) params.append('repo', r);
  if (filters.outcome) params.set('outcome', filters.outcome);
  if (filters.agreement) params.set('agreement', filters.agreement);
  for (const d of filters.difficulties ?? []) params.append('difficulty', d);
  if (filters.minN !== undefined) params.set('minN', String(filters.minN));
  if (filters.cluster && filters.cluster !== 'task') params.set('cluster', filters.cluster);
  for (const v of filters.verdicts ?? []) params.append('verdict', v);
  for (const t of filters.hiddenTests ?? []) params.append('hiddenTest', t);
  if (filters.search?.trim()) params.set('q', filters.search.trim());
  return params;
}

const withQuery = (path: string, params: URLSearchParams) => (params.size ? `${path}?${params}` : path);

export interface CompareGroups {
  a: { model: string; harnessVersion: string };
  b: { model: string; harnessVersion: string };
}

/** Paths under the API root (`/api` locally and behind CloudFront). */
export const apiPaths = {
  cockpits: () => `/cockpits`,
  /** The first (or only) part of the space's columns, or a later part of the snapshot the first one named. */
  columns: (space: string, part?: { part: number; snapshot: string }) =>
    `/spaces/${seg(space)}/columns${part ? `?${new URLSearchParams({ part: String(part.part), snapshot: part.snapshot }).toString()}` : ''}`,
  runs: (space: string, query: { since?: string; cursor?: string; limit?: number } = {}) => {
    const params = new URLSearchParams();
    if (query.since) params.set('since', query.since);
    if (query.cursor) params.set('cursor', query.cursor);
    if (query.limit) params.set('limit', String(query.limit));
    const q = params.toString();
    return `/spaces/${seg(space)}/runs${q ? `?${q}` : ''}`;
  },
  run: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}`,
  patch: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/patch`,
  summary: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/summary`,
  texts: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/texts`,
  reference: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/reference`,
  attempts: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/attempts`,
  issues: (space: string, fields?: readonly IssueField[]) =>
    `/spaces/${seg(space)}/issues${fields ? `?fields=${fields.join(',')}` : ''}`,
  hosts: (space: string) => `/spaces/${seg(space)}/hosts`,
  stats: (space: string, filters: ReadQuery = {}) => withQuery(`/spaces/${seg(space)}/stats`, filterQuery(filters)),
  compare: (
    space: string,
    groups: CompareGroups,
    filters: Pick<ReadQuery, 'tiers' | 'waves' | 'outcome' | 'difficulties' | 'cluster'> = {},
  ) => {
    const params = filterQuery(filters);
    params.set('aModel', groups.a.model);
    params.set('aHarness', groups.a.harnessVersion);
    params.set('bModel', groups.b.model);
    params.set('bHarness', groups.b.harnessVersion);
    return `/spaces/${seg(space)}/compare?${params}`;
  },
  pairs: (space: string, filters: Omit<ReadQuery, 'agreement' | 'minN'> = {}) =>
    withQuery(`/spaces/${seg(space)}/pairs`, filterQuery(filters)),
  grid: (space: string, query: GridQuery) => {
    const params = filterQuery(query);
    params.set('sort', `${query.sort.descending ? '-' : ''}${query.sort.column}`);
    if (query.cursor) params.set('cursor', query.cursor);
    if (query.limit) params.set('limit', String(query.limit));
    return `/spaces/${seg(space)}/grid?${params}`;
  },
  budget: (space: string, days?: number) => `/spaces/${seg(space)}/budget${days ? `?days=${days}` : ''}`,
  export: (space: string, format: ExportFormat, filters: Omit<ReadQuery, 'minN' | 'cluster'> = {}) =>
    withQuery(`/spaces/${seg(space)}/export.${format}`, filterQuery(filters)),
};

// ---------------------------------------------------------------------------------------------------
// Statistics, comparison, budget and exports (docs/contract.md §6, §10). Figures come from shared/analytics/statistics.ts.

export type { Interval, ResolveOutcome, RunCostFigure };

/** One (model, harness version) of `GET …/stats`. Rates and intervals are null when their n is 0. */
export interface StatsGroup {
  model: string;
  harnessVersion: string;
  /** 1 for the best rate on the outcome (equal rates share one); null below the body's minN or without a rate. */
  rank: number | null;
  runs: number;
  /** The tasks its runs in view ran, with a result or not. */
  tasks: number;
  /** Its runs whose figures were generated (demo data), not measured. */
  generated: number;
  /** On the body's outcome: runs with a result (tests: pass or fail; judge: a counted verdict). */
  n: number;
  resolved: number;
  rate: number | null;
  /** Wilson's interval where every task has one run; the clustered one (`samples.se`) where samples repeat. */
  ci: Interval | null;
  /** Runs outside n on the outcome, counted beside it (tests: "no test result"). */
  outside: number;
  /**
   * Repeated samples of a task on the outcome (docs/contract.md §6 "Repeated samples"): tasks, runs per task, the
   * clustered standard error of `rate`, consistency, and pass@k and pass^k with their bootstrap intervals.
   */
  samples: SamplesFigure;

  /** The judge's resolve rate, and the runs it leaves outside n. */
  judge: {
    n: number;
    resolved: number;
    rate: number | null;
    ci: Interval | null;
    excluded: number;
    error: number;
    /** Runs whose "resolved" a flag rule withheld (docs/contract.md §5): outside n, not among notJudged. */
    flagged: number;
    notJudged: number;
  };
  /** Patches archived as conflicts over the group's runs: never judged, never current. */
  conflicts: number;
  /** Attempts other hosts sent for the group's run ids, kept apart: never judged, never current (docs/contract.md §4). */
  foreign: number;
  hidden: { n: number; pass: number; rate: number | null; ci: Interval | null; error: number };
  agreement: {
    n: number;
    kappa: number | null;
    ci: Interval | null;
    table: { resolvedPass: number; resolvedFail: number; otherPass: number; otherFail: number };
    /** Why the cockpit shows no κ (too few runs with both results, or no variation); null when it shows it. */
    withheld: string | null;
  };
  /** Sum over the group's runs; null when any run's judge cost is unknown. */
  judgeCostUsd: number | null;
  /** Run costs estimated from tokens where the configuration prices the model, against what they resolved on the outcome. */
  runCost: RunCostFigure;
}

export interface StatsBody {
  /** The outcome every "resolved" of the body is counted on: the one asked for, else the default. */
  outcome: ResolveOutcome;
  /** Below this n on the outcome a group has no rank. */
  minN: number;
  groups: StatsGroup[];
  asOf: string;
}

/**
 * `GET …/compare`: A and B over the tasks where both have a result on the outcome, by McNemar's method where every
 * shared task has one run on each side, else on per-task means (shared/analytics/compare-groups.ts). An unknown
 * group, the same group twice or no common task: pairs 0, statistics null.
 */
export interface CompareBody extends GroupComparison {
  asOf: string;
}

/** `GET …/pairs`: every pair of the configurations in view, Holm-adjusted (shared/analytics/all-pairs.ts). */
export interface PairsBody {
  outcome: ResolveOutcome;
  /** Configurations in view. */
  configurations: number;
  /** Pairs with at least 10 tasks in common: the family Holm adjusts over. */
  compared: number;
  rows: (Omit<PairRow, 'a' | 'b'> & {
    a: { model: string; harnessVersion: string };
    b: { model: string; harnessVersion: string };
  })[];
  asOf: string;
}

export interface BudgetBody {
  days: { day: string; calls: number; cap: number; costUsd: number | null }[];
}

export const EXPORT_FORMATS = ['csv', 'json', 'parquet'] as const;
/**
 * Asked with `link`, an export too large for one answer is a 200 naming its link (and says so in this header), not
 * a 303; an export the engine wrote in parts is always a 200 listing their links, this header saying `parts`.
 */
export const DOWNLOAD_LINK_HEADER = 'x-replay-download';
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** An export the engine wrote as several parts (Athena's UNLOAD of Parquet or JSON): a link to each, in order. */
export interface ExportPartsBody {
  parts: { link: string; filename: string }[];
  expiresInSeconds: number;
  runs: number;
  outcome: ResolveOutcome;
  asOf: string;
}

export interface ExportBody {
  runs: Record<string, string | number | boolean | null>[];
  /** The outcome the export's filters were read on. */
  outcome: ResolveOutcome;
  asOf: string;
}

/** The Runs grid's columns the engine sorts by (`GET …/grid`), in the grid's order; the rest sort in the browser only. */
export const GRID_SORT_KEYS = [
  'metricsSource',
  'verdict',
  'model',
  'harnessVersion',
  'sample',
  'taskId',
  'outcome',
  'hiddenTest',
  'agreement',
  'steps',
  'wallSeconds',
  'completionTokens',
  'outputTokensPerMinute',
  'patchLinesAdded',
  'patchLinesRemoved',
  'host',
  'finishedAt',
] as const;
export type GridSortKey = (typeof GRID_SORT_KEYS)[number];
export const isGridSortKey = (key: string): key is GridSortKey => (GRID_SORT_KEYS as readonly string[]).includes(key);

/** What one page of the grid is asked for: the export's selection, a sort, where to start and how many rows. */
export interface GridQuery extends Omit<ReadQuery, 'minN' | 'cluster'> {
  sort: { column: GridSortKey; descending: boolean };
  cursor?: string;
  limit?: number;
}

/** The fields of a run the grid shows, as the run dataset holds them. */
export const GRID_FIELDS = [
  'id',
  'model',
  'harnessVersion',
  'taskId',
  'repo',
  'tier',
  'wave',
  'sample',
  'outcome',
  'metricsSource',
  'judgeVerdict',
  'judgeState',
  'hiddenTestStatus',
  'steps',
  'wallSeconds',
  'completionTokens',
  'outputTokensPerMinute',
  'patchLinesAdded',
  'patchLinesRemoved',
  'host',
  'finishedAt',
] as const;
export type GridRow = Record<(typeof GRID_FIELDS)[number], string | number | null>;

/** `GET …/grid`: one page of the runs in view, sorted; `cursor` asks for the next (null: the last page). */
export interface GridPage {
  runs: GridRow[];
  /** Runs in view, over all pages. */
  total: number;
  cursor: string | null;
  outcome: ResolveOutcome;
  asOf: string;
}
