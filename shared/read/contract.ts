// The read API as the cockpit sees it (SPEC §10): response bodies and paths, typed once for the server
// (shared/read/read-api.ts) and the dashboard. Imports types only, so it runs in the browser.
import type { HostRecord } from '../schema/host.ts';
import type { StoredIssue } from '../schema/issue.ts';
import type { RunRow } from '../schema/run.ts';
import type { AttemptSummary } from '../schema/attempt.ts';
import type { RunColumns } from './columns.ts';

export interface RunsPage {
  runs: RunRow[];
  cursor: string | null;
  /** A safe `since` for the next delta. */
  asOf: string;
}

export interface IssuesBody {
  issues: StoredIssue[];
}

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
  signIn: { authorizeUrl: string; tokenUrl: string; logoutUrl: string; clientId: string; redirectUri: string; scopes: string[] } | null;
}

export type { RunColumns };

const seg = encodeURIComponent;

/** Paths under the API root (`/api` locally and behind CloudFront). */
export const apiPaths = {
  cockpits: () => `/cockpits`,
  columns: (space: string) => `/spaces/${seg(space)}/columns`,
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
  issues: (space: string) => `/spaces/${seg(space)}/issues`,
  hosts: (space: string) => `/spaces/${seg(space)}/hosts`,
};
