// The read API as the cockpit sees it (docs/contract.md §10): response bodies and paths, typed once for the server
// (shared/read/read-api.ts) and the dashboard. Imports types only, so it runs in the browser.
import type { HostRecord } from '../schema/host.ts';
import type { IssueField, StoredIssue } from '../schema/issue.ts';
import type { RunRow } from '../schema/run.ts';
import type { Interval } from './statistics.ts';
import type { AttemptSummary } from '../schema/attempt.ts';
import type { RunColumns } from './columns.ts';

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

export interface CockpitEntry {
  name: string;
  space: string;
  public: boolean;
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

/** The filters of the Runs and Dashboard views as a query string: every value its own parameter (model names may contain commas). */
export function filterQuery(filters: {
  models?: string[];
  tiers?: string[];
  waves?: number[];
  harnessVersions?: string[];
}): URLSearchParams {
  const params = new URLSearchParams();
  for (const m of filters.models ?? []) params.append('model', m);
  for (const t of filters.tiers ?? []) params.append('tier', t);
  for (const w of filters.waves ?? []) params.append('wave', String(w));
  for (const h of filters.harnessVersions ?? []) params.append('harnessVersion', h);
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
  reference: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/reference`,
  attempts: (space: string, id: string) => `/spaces/${seg(space)}/runs/${seg(id)}/attempts`,
  issues: (space: string, fields?: readonly IssueField[]) =>
    `/spaces/${seg(space)}/issues${fields ? `?fields=${fields.join(',')}` : ''}`,
  hosts: (space: string) => `/spaces/${seg(space)}/hosts`,
  stats: (space: string, filters: Parameters<typeof filterQuery>[0] = {}) =>
    withQuery(`/spaces/${seg(space)}/stats`, filterQuery(filters)),
  compare: (space: string, groups: CompareGroups, filters: { tiers?: string[]; waves?: number[] } = {}) => {
    const params = filterQuery(filters);
    params.set('aModel', groups.a.model);
    params.set('aHarness', groups.a.harnessVersion);
    params.set('bModel', groups.b.model);
    params.set('bHarness', groups.b.harnessVersion);
    return `/spaces/${seg(space)}/compare?${params}`;
  },
  budget: (space: string, days?: number) => `/spaces/${seg(space)}/budget${days ? `?days=${days}` : ''}`,
  exportCsv: (space: string, filters: Parameters<typeof filterQuery>[0] = {}) =>
    withQuery(`/spaces/${seg(space)}/export.csv`, filterQuery(filters)),
  exportJson: (space: string, filters: Parameters<typeof filterQuery>[0] = {}) =>
    withQuery(`/spaces/${seg(space)}/export.json`, filterQuery(filters)),
};

// ---------------------------------------------------------------------------------------------------
// Statistics, comparison, budget and exports (docs/contract.md §6, §10). Figures come from shared/cockpit/statistics.ts.

export type { Interval };

/** One (model, harness version) of `GET …/stats`. Rates and intervals are null when their n is 0. */
export interface StatsGroup {
  model: string;
  harnessVersion: string;
  runs: number;
  /** Runs with a counted verdict: resolved + partial + wrong + no_change. */
  n: number;
  resolved: number;
  rate: number | null;
  ci: Interval | null;
  excluded: number;
  error: number;
  notJudged: number;
  /** Patches archived as conflicts over the group's runs: never judged, never current. */
  conflicts: number;
  hidden: { n: number; pass: number; rate: number | null; ci: Interval | null; error: number };
  agreement: {
    n: number;
    kappa: number | null;
    ci: Interval | null;
    table: { resolvedPass: number; resolvedFail: number; otherPass: number; otherFail: number };
  };
  /** Sum over the group's runs; null when any run's judge cost is unknown. */
  judgeCostUsd: number | null;
  /** Estimated from tokens where the configuration prices the model; null when unpriced or any tokens are unknown. */
  runCostUsd: number | null;
}

export interface StatsBody {
  groups: StatsGroup[];
  asOf: string;
}

/** `GET …/compare`: A and B over the tasks where both have a counted verdict. An unknown group, the same group twice or no common task: pairs 0, statistics null. */
export interface CompareBody {
  pairs: number;
  bothResolved: number;
  aOnly: number;
  bOnly: number;
  neither: number;
  difference: number | null;
  ci: Interval | null;
  mcnemarP: number | null;
  aOnlyTasks: string[];
  bOnlyTasks: string[];
  asOf: string;
}

export interface BudgetBody {
  days: { day: string; calls: number; cap: number; costUsd: number | null }[];
}

export interface ExportBody {
  runs: Record<string, string | number | null>[];
  asOf: string;
}
