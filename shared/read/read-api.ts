// The GET routes of SPEC §10, transport-neutral: the read-api Lambda and local mode both call `answerRead`.
import { spaceOf, type ReplayConfig } from '../schema/config.ts';
import type { HostRecord } from '../schema/host.ts';
import { decodePathSegment, jsonError, type HttpAnswer } from '../http.ts';
import { attemptSummary } from '../schema/attempt.ts';
import { InvalidCursorError, type AttemptStore, type Clock, type HostStore, type IssueStore, type ObjectStore, type PairingCheck, type RunStore } from '../ports.ts';
import type { ReferenceDiff } from '../reference/reference-fix.ts';
import { referenceDiffKey } from '../storage-layout.ts';
import { columnsAnswer } from './columns-snapshot.ts';
import type { AttemptsBody, CockpitEntry, CockpitsBody, HostsBody, IssuesBody, ReferenceBody, RunsPage } from './contract.ts';

export interface ReadDeps {
  config: ReplayConfig;
  runs: RunStore;
  attempts: AttemptStore;
  issues: IssueStore;
  hosts: HostStore;
  objects: ObjectStore;
  pairing: PairingCheck;
  clock: Clock;
}

export const DEFAULT_PAGE = 500;
export const MAX_PAGE = 1000;
/** `asOf` trails the clock by this much, so a row whose write was in flight during the query is seen next time. */
export const AS_OF_SAFETY_MS = 5_000;

export async function answerRead(
  deps: ReadDeps,
  method: string,
  path: string,
  query: Record<string, string | undefined>,
  headers: Record<string, string | undefined> = {},
): Promise<HttpAnswer> {
  if (method !== 'GET' && method !== 'HEAD') return { ...jsonError(405, 'method-not-allowed', 'The read API only answers GET.'), headers: { allow: 'GET' } };
  const parts = path.split('/').filter(Boolean).map(decodePathSegment);
  if (parts.some((p) => p === null)) return jsonError(400, 'bad-path', 'The path is not valid percent-encoding.');
  const [api, spaces, space, collection, id, sub, ...rest] = parts as string[];
  if (api === 'api' && spaces === 'cockpits' && parts.length === 2) return cockpits(deps.config);
  if (api !== 'api' || spaces !== 'spaces' || !space || !collection || rest.length) return notFound(path);
  if (!spaceOf(deps.config, space)) return jsonError(404, 'unknown-space', `There is no space named "${space}".`);

  if (collection === 'runs' && id === undefined) return listRuns(deps, space, query);
  if (collection === 'columns' && id === undefined) return columnsAnswer(deps.runs, space, () => asOfNow(deps.clock), /\bgzip\b/.test(headers['accept-encoding'] ?? ''));
  if (collection === 'runs' && sub === undefined) return oneRun(deps, space, id!);
  if (collection === 'runs' && (sub === 'patch' || sub === 'summary')) return runText(deps, space, id!, sub);
  if (collection === 'runs' && sub === 'reference') return runReference(deps, space, id!);
  if (collection === 'runs' && sub === 'attempts') return attemptsOf(deps, space, id!);
  if (collection === 'issues' && id === undefined) return { status: 200, body: { issues: await deps.issues.listIssues(space) } satisfies IssuesBody };
  if (collection === 'hosts' && id === undefined) return { status: 200, body: { hosts: await hostsOf(deps, space) } satisfies HostsBody };
  return notFound(path);
}

const notFound = (path: string) => jsonError(404, 'not-found', `Nothing is served at ${path}.`);

export const cockpitEntries = (config: ReplayConfig): CockpitEntry[] =>
  Object.entries(config.cockpits).map(([name, c]) => ({ name, space: c.space, public: c.public }));

function cockpits(config: ReplayConfig): HttpAnswer {
  return { status: 200, body: { cockpits: cockpitEntries(config) } satisfies CockpitsBody };
}

async function listRuns(deps: ReadDeps, space: string, query: Record<string, string | undefined>): Promise<HttpAnswer> {
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    return jsonError(400, 'bad-limit', `limit must be a whole number from 1 to ${MAX_PAGE}.`);
  }
  let since: string | undefined;
  if (query.since !== undefined) {
    const t = Date.parse(query.since);
    if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(query.since)) return jsonError(400, 'bad-since', 'since must be an ISO-8601 instant such as 2026-01-31T12:00:00Z.');
    since = new Date(t).toISOString();
  }
  const asOf = asOfNow(deps.clock);
  try {
    const page = await deps.runs.listRuns(space, { since, cursor: query.cursor || undefined, limit });
    return { status: 200, body: { runs: page.items, cursor: page.cursor, asOf } satisfies RunsPage };
  } catch (e) {
    if (e instanceof InvalidCursorError) return jsonError(400, 'bad-cursor', e.message);
    throw e;
  }
}

const asOfNow = (clock: Clock) => new Date(clock.now().getTime() - AS_OF_SAFETY_MS).toISOString();

async function oneRun(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  return row ? { status: 200, body: row.value } : jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
}

async function runText(deps: ReadDeps, space: string, id: string, which: 'patch' | 'summary'): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  const key = row && (which === 'patch' ? row.value.patchKey : row.value.summaryKey);
  const text = key ? await deps.objects.getText(key) : null;
  if (text === null) return jsonError(404, 'not-found', `There is no ${which} for run "${id}" in space "${space}".`);
  return { status: 200, body: text, contentType: which === 'patch' ? 'text/x-diff; charset=utf-8' : 'text/markdown; charset=utf-8' };
}

/**
 * The original fix of the run's task, as the judge cached it (lock files already left out). Only the cached
 * object is read: the cockpit never makes the judge's GitHub fetch, and the issue text is never stored.
 */
async function runReference(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  if (!row) return jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
  const { taskId } = row.value;
  const issue = await deps.issues.getIssue(space, taskId);
  if (!issue?.baseSha || !issue.mergeSha) {
    return jsonError(404, 'no-reference', `The issue record of task ${taskId} has no baseSha and mergeSha: the original fix is not known.`);
  }
  const cached = await deps.objects.getText(referenceDiffKey(issue.repo, issue.baseSha, issue.mergeSha));
  if (cached === null) return jsonError(404, 'reference-not-fetched', `The judge has not fetched the original fix of task ${taskId} yet.`);
  const { diff, omittedLockFiles } = JSON.parse(cached) as ReferenceDiff;
  return {
    status: 200,
    body: { repo: issue.repo, baseSha: issue.baseSha, mergeSha: issue.mergeSha, fixPrNumber: issue.fixPrNumber, diff, omittedLockFiles } satisfies ReferenceBody,
  };
}

/** The run's attempts, newest first: the current row and every archived one (SPEC §4). */
async function attemptsOf(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  if (!row) return jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
  const current = row.value;
  const archived = (await deps.attempts.listAttempts(space, id)).filter((a) => a.finishedAt !== current.finishedAt || a.patchSha256 !== current.patchSha256);
  const attempts = [attemptSummary(current, true), ...archived.map((a) => attemptSummary(a, false))].sort((a, b) => (a.finishedAt < b.finishedAt ? 1 : a.finishedAt > b.finishedAt ? -1 : 0));
  return { status: 200, body: { attempts } satisfies AttemptsBody };
}

async function hostsOf(deps: ReadDeps, space: string): Promise<HostRecord[]> {
  const { senders, secretConfigKey } = spaceOf(deps.config, space)!;
  return Promise.all(
    senders.map(async (host): Promise<HostRecord> => {
      const [stored, runsLanded, paired] = await Promise.all([
        deps.hosts.getHost(space, host),
        deps.runs.countRunsByHost(space, host),
        deps.pairing.isPaired(secretConfigKey, host),
      ]);
      const s = stored?.value;
      return {
        host,
        hostHardware: s?.hostHardware ?? null,
        spaces: s ? [space] : [],
        firstDeliveryAt: s?.firstDeliveryAt ?? null,
        lastDeliveryAt: s?.lastDeliveryAt ?? null,
        runsLanded,
        paired,
      };
    }),
  );
}
