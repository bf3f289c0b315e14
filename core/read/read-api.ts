// The GET routes of docs/contract.md §10, transport-neutral: the read-api Lambda and local mode both call `answerRead`.
// The query arrives raw (API Gateway's parsed parameters join repeats with commas, and model names may
// contain commas), so repeated filters (`model=a&model=b`) stay apart.
import { gzipSync } from 'node:zlib';
import { reasonShown, referenceShown, repoAllowed, spaceOf, type ReplayConfig } from '#schema/config.ts';
import type { HostRecord } from '#schema/host.ts';
import { ISSUE_FIELDS, type IssueField, type StoredIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import { COLUMNS_GZIP_MEDIA_TYPE } from '#analytics/columns.ts';
import { accepts, jsonError, matchRoute, type HttpAnswer, type RoutePattern } from '../http.ts';
import { attemptSummary, distinctAttempts } from '#schema/attempt.ts';
import { EngineAnswerTooLargeError, InvalidCursorError } from '../ports.ts';
import type { ReadDeps } from './read-deps.ts';
import type { ReferenceDiff } from '../reference/reference-fix.ts';
import { referenceDiffKey } from '../storage-layout.ts';
import { readRunTexts } from '../run-texts.ts';
import { asOfNow } from './as-of.ts';
import {
  DOWNLOAD_LINK_HEADER,
  type AttemptsBody,
  type BudgetBody,
  type CockpitEntry,
  type CockpitsBody,
  type HostsBody,
  type IssuesBody,
  type ReferenceBody,
  type RunsPage,
  type RunTextsBody,
} from '#analytics/contract.ts';
import { withinLimit } from './answer-limit.ts';
import { compare, grid, pageReadsEngine, pairs, stats } from './analysis-routes.ts';
import { exportFormatOf, exportRuns } from './exports.ts';
import { columnsAnswer, currentIssues, engineReadingAnswer, type ColumnsCoding } from './read-model.ts';

export const DEFAULT_PAGE = 500;
export const MAX_PAGE = 1000;
export { AS_OF_SAFETY_MS } from './as-of.ts';
export const DEFAULT_BUDGET_DAYS = 30;
export const MAX_BUDGET_DAYS = 366;

export async function answerRead(
  deps: ReadDeps,
  method: string,
  path: string,
  rawQuery: string,
  headers: Record<string, string | undefined> = {},
): Promise<HttpAnswer> {
  const acceptsGzip = accepts(headers['accept-encoding'], 'gzip');
  const answer = await route(deps, method, path, new URLSearchParams(rawQuery), acceptsGzip, headers).catch(
    (error: unknown) => {
      if (error instanceof EngineAnswerTooLargeError) return jsonError(413, 'answer-too-large', error.message);
      throw error;
    },
  );
  return withinLimit(
    deps.maxAnswerBytes,
    compressed(answer, acceptsGzip),
    'answer-too-large',
    (mb) => `The answer is ${mb} MB, more than one answer of this read API can carry.`,
  );
}

/** Bodies below this are sent as they are: compressing them saves less than it costs. */
const COMPRESS_ABOVE_BYTES = 8 * 1024;

/**
 * JSON and text answers gzip-compressed for a client that accepts it (the issues of a 1M-run space are
 * 10 MB of JSON, 1 MB compressed): faster to the browser, and within a Lambda answer's limit.
 */
function compressed(answer: HttpAnswer, acceptsGzip: boolean): HttpAnswer {
  if (!acceptsGzip || answer.body instanceof Uint8Array) return answer;
  const isText = typeof answer.body === 'string';
  const text = isText ? (answer.body as string) : JSON.stringify(answer.body);
  if (Buffer.byteLength(text) <= COMPRESS_ABOVE_BYTES) return answer;
  return {
    ...answer,
    body: gzipSync(text, { level: 6 }),
    contentType: answer.contentType ?? (isText ? 'text/plain; charset=utf-8' : 'application/json'),
    headers: { ...answer.headers, 'content-encoding': 'gzip', vary: 'accept-encoding' },
  };
}

/** One request as a route sees it. `space`, `id` and `format` are the path's named segments, decoded ('' where
 * the route's pattern has no such segment). */
interface ReadRequest {
  deps: ReadDeps;
  path: string;
  space: string;
  id: string;
  format: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  acceptsGzip: boolean;
}

interface Route extends RoutePattern {
  method: 'GET';
  answer: (request: ReadRequest) => Promise<HttpAnswer> | HttpAnswer;
}

const get = (path: string, answer: Route['answer']): Route => ({ method: 'GET', path, answer });

const ROUTES: Route[] = [
  get('/api/cockpits', (r) => cockpits(r.deps.config)),
  get('/api/spaces/:space/runs', (r) => listRuns(r.deps, r.space, r.query)),
  get('/api/spaces/:space/columns', (r) => columns(r.deps, r.space, r.query, columnsCoding(r))),
  get('/api/spaces/:space/stats', (r) => stats(r.deps, r.space, r.query)),
  get('/api/spaces/:space/compare', (r) => compare(r.deps, r.space, r.query)),
  get('/api/spaces/:space/pairs', (r) => pairs(r.deps, r.space, r.query)),
  get('/api/spaces/:space/grid', (r) => grid(r.deps, r.space, r.query)),
  get('/api/spaces/:space/budget', (r) => budget(r.deps, r.space, r.query)),
  get('/api/spaces/:space/export.:format', exportOf),
  get('/api/spaces/:space/runs/:id', (r) => oneRun(r.deps, r.space, r.id)),
  get('/api/spaces/:space/runs/:id/patch', (r) => runText(r.deps, r.space, r.id, 'patch')),
  get('/api/spaces/:space/runs/:id/summary', (r) => runText(r.deps, r.space, r.id, 'summary')),
  get('/api/spaces/:space/runs/:id/texts', (r) => runTexts(r.deps, r.space, r.id)),
  get('/api/spaces/:space/runs/:id/reference', (r) => runReference(r.deps, r.space, r.id)),
  get('/api/spaces/:space/runs/:id/attempts', (r) => attemptsOf(r.deps, r.space, r.id)),
  get('/api/spaces/:space/issues', (r) => issues(r.deps, r.space, r.query)),
  get('/api/spaces/:space/hosts', (r) => hosts(r.deps, r.space)),
];

async function route(
  deps: ReadDeps,
  method: string,
  path: string,
  query: URLSearchParams,
  acceptsGzip: boolean,
  headers: Record<string, string | undefined>,
): Promise<HttpAnswer> {
  const match = matchRoute(ROUTES, method, path);
  if (match.kind === 'bad-path') return jsonError(400, 'bad-path', 'The path is not valid percent-encoding.');
  // Anything under a space the configuration does not name is answered as such, whatever the collection.
  const [api, spaces, space] = match.parts;
  const underSpace = api === 'api' && spaces === 'spaces' && match.parts.length >= 4 && match.parts.length <= 6;
  if (underSpace && !spaceOf(deps.config, space!))
    return jsonError(404, 'unknown-space', `There is no space named "${space}".`);
  if (match.kind === 'no-route') return notFound(path);
  if (match.kind === 'wrong-method')
    return {
      ...jsonError(405, 'method-not-allowed', `The read API only answers ${match.allow} here.`),
      headers: { allow: match.allow },
    };
  return match.route.answer({
    deps,
    path,
    space: '',
    id: '',
    format: '',
    ...match.params,
    query,
    headers,
    acceptsGzip,
  });
}

const columnsCoding = ({ headers, acceptsGzip }: ReadRequest): ColumnsCoding =>
  accepts(headers.accept, COLUMNS_GZIP_MEDIA_TYPE) ? 'gzip-media-type' : acceptsGzip ? 'gzip' : 'identity';

function exportOf({ deps, path, space, format, query, headers, acceptsGzip }: ReadRequest) {
  const exportFormat = exportFormatOf(`export.${format}`);
  if (!exportFormat) return notFound(path);
  return exportRuns(deps, space, query, exportFormat, acceptsGzip, headers[DOWNLOAD_LINK_HEADER] === 'link');
}

async function hosts(deps: ReadDeps, space: string): Promise<HttpAnswer> {
  return { status: 200, body: { hosts: await hostsOf(deps, space) } satisfies HostsBody };
}

async function columns(
  deps: ReadDeps,
  space: string,
  query: URLSearchParams,
  coding: ColumnsCoding,
): Promise<HttpAnswer> {
  const [part, snapshot] = [query.get('part'), query.get('snapshot')];
  if ((part === null) !== (snapshot === null))
    return jsonError(
      400,
      'bad-part',
      'part and snapshot go together: both as the first part of the columns named them, or neither.',
    );
  if (part !== null && !/^[1-9]\d{0,5}$/.test(part))
    return jsonError(400, 'bad-part', 'part must be a whole number from 1; part 0 is the columns answer without part.');
  const request = part === null ? null : { part: Number(part), snapshot: snapshot! };
  const engine = request ? null : await pageReadsEngine(deps, space);
  if (engine) return engineReadingAnswer(engine.asOf, engine.reading, coding);
  const answer = await columnsAnswer(deps, space, coding, request);
  const compressed = coding !== 'identity';
  const tooLarge = (mb: string) =>
    `The columns of space "${space}" are ${mb} MB${compressed ? ' compressed' : ''}, more than one answer of ` +
    `this read API can carry; ${compressed ? 'the snapshot compactor writes them in parts within minutes' : 'accept gzip'}.`;
  return withinLimit(deps.maxAnswerBytes, answer, 'columns-too-large', tooLarge);
}

const notFound = (path: string) => jsonError(404, 'not-found', `Nothing is served at ${path}.`);

export const cockpitEntries = (config: ReplayConfig): CockpitEntry[] =>
  Object.entries(config.cockpits).map(([name, c]) => ({
    name,
    space: c.space,
    public: c.public,
    showReference: c.showReference,
    minN: c.minN,
    campaign: c.campaign ?? null,
  }));

function cockpits(config: ReplayConfig): HttpAnswer {
  return { status: 200, body: { cockpits: cockpitEntries(config) } satisfies CockpitsBody };
}

async function listRuns(deps: ReadDeps, space: string, params: URLSearchParams): Promise<HttpAnswer> {
  const query = {
    limit: params.get('limit') ?? undefined,
    since: params.get('since') ?? undefined,
    cursor: params.get('cursor') ?? undefined,
  };
  const limit = query.limit === undefined ? DEFAULT_PAGE : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    return jsonError(400, 'bad-limit', `limit must be a whole number from 1 to ${MAX_PAGE}.`);
  }
  let since: string | undefined;
  if (query.since !== undefined) {
    const t = Date.parse(query.since);
    if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(query.since))
      return jsonError(400, 'bad-since', 'since must be an ISO-8601 instant such as 2026-01-31T12:00:00Z.');
    since = new Date(t).toISOString();
  }
  const asOf = asOfNow(deps.clock);
  try {
    const page = await deps.runs.listRuns(space, { since, cursor: query.cursor || undefined, limit });
    const runs = reasonShown(deps.config, space) ? page.items : page.items.map(withoutReason);
    return { status: 200, body: { runs, cursor: page.cursor, asOf } satisfies RunsPage };
  } catch (e) {
    if (e instanceof InvalidCursorError) return jsonError(400, 'bad-cursor', e.message);
    throw e;
  }
}

/** The issue records, whole, or with `fields=a,b` only those fields of each (and its taskId, which names it). */
async function issues(deps: ReadDeps, space: string, query: URLSearchParams): Promise<HttpAnswer> {
  const raw = query.get('fields');
  const fields = raw === null ? null : raw.split(',');
  const unknown = fields?.filter((f) => !(ISSUE_FIELDS as string[]).includes(f));
  if (unknown?.length)
    return jsonError(
      400,
      'bad-fields',
      `fields names ${unknown.map((f) => `"${f}"`).join(', ')}, not an issue field; the fields are ${ISSUE_FIELDS.join(', ')}.`,
    );
  const records = await currentIssues(deps, space);
  if (!fields) return { status: 200, body: { issues: records } satisfies IssuesBody };
  const kept = [...new Set<IssueField>(['taskId', ...(fields as IssueField[])])];
  return {
    status: 200,
    body: {
      issues: records.map((issue) => Object.fromEntries(kept.map((f) => [f, issue[f]])) as Pick<StoredIssue, 'taskId'>),
    } satisfies IssuesBody<never>,
  };
}

async function budget(deps: ReadDeps, space: string, query: URLSearchParams): Promise<HttpAnswer> {
  const raw = query.get('days');
  const days = raw === null ? DEFAULT_BUDGET_DAYS : Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > MAX_BUDGET_DAYS)
    return jsonError(400, 'bad-days', `days must be a whole number from 1 to ${MAX_BUDGET_DAYS}.`);
  const today = deps.clock.now();
  const dayOf = (offset: number) => new Date(today.getTime() - offset * 86_400_000).toISOString().slice(0, 10);
  const cap = spaceOf(deps.config, space)!.judge.dailyCap;
  const stored = new Map((await deps.budget.listDays(space, dayOf(days - 1), dayOf(0))).map((d) => [d.day, d]));
  // Every day of the window, oldest first: a day without a call spent nothing (0 calls, $0).
  const body: BudgetBody = {
    days: Array.from({ length: days }, (_, k) => {
      const day = dayOf(days - 1 - k);
      const d = stored.get(day);
      return { day, calls: d?.calls ?? 0, cap, costUsd: d ? d.costUsd : 0 };
    }),
  };
  return { status: 200, body };
}

/** The row, with the hidden-test names it keeps beside itself (docs/contract.md §4) read back into its result. */
async function oneRun(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  if (!row) return jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
  const value = reasonShown(deps.config, space) ? row.value : withoutReason(row.value);
  const result = value.hiddenTestResult;
  const names = result?.testsKey ? await deps.objects.getText(result.testsKey) : null;
  return {
    status: 200,
    body: names === null ? value : { ...value, hiddenTestResult: { ...result, ...JSON.parse(names) } },
  };
}

/** A row as a public cockpit's read API serves it: without the judge's reason. */
const withoutReason = (row: RunRow): RunRow => ({ ...row, judgeReason: null });

async function runText(deps: ReadDeps, space: string, id: string, which: 'patch' | 'summary'): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  const text = row ? (await readRunTexts(deps.objects, row.value, which))[which] : null;
  if (text === null) return jsonError(404, 'not-found', `There is no ${which} for run "${id}" in space "${space}".`);
  return {
    status: 200,
    body: text,
    contentType: which === 'patch' ? 'text/x-diff; charset=utf-8' : 'text/markdown; charset=utf-8',
  };
}

/** Patch and summary in one answer, from the one object a run keeps them in (two for runs landed before). */
async function runTexts(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  if (!row) return jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
  const body: RunTextsBody = await readRunTexts(deps.objects, row.value);
  return { status: 200, body };
}

/**
 * The original fix of the run's task, as the judge cached it for this space (lock files already left out).
 * Only the cached object is read: the cockpit never makes the judge's GitHub fetch, and the issue text is
 * never stored. A fix may come from a private repository, so it is served only where the cockpit shows
 * fixes (`showReference`) and only for a repository the space lists (`repos`, when set), checked again here
 * because the list may have changed since the record was stored.
 */
async function runReference(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  if (!referenceShown(deps.config, space))
    return jsonError(
      403,
      'reference-not-shown',
      `This cockpit does not show original fixes: "showReference" is not set for it in the configuration.`,
    );
  const row = await deps.runs.getRun(space, id);
  if (!row) return jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
  const { taskId } = row.value;
  const issue = await deps.issues.getIssue(space, taskId);
  if (!issue?.baseSha || !issue.mergeSha) {
    // Terminal-Bench's tasks, say, are not issues of a repository: there is no merged fix to show.
    const why = issue
      ? `The issue record of task ${taskId} names no merged fix (baseSha and mergeSha)`
      : `No issue record names task ${taskId}'s repository and merged fix`;
    return jsonError(404, 'no-reference', `${why}: there is no original fix to show.`);
  }
  if (!repoAllowed(spaceOf(deps.config, space)!, issue.repo))
    return jsonError(
      403,
      'repo-not-allowed',
      `The issue record of task ${taskId} names repository ${issue.repo}, which space "${space}" does not list in "repos"; its fix is not served.`,
    );
  const cached = await deps.objects.getText(referenceDiffKey(space, issue.repo, issue.baseSha, issue.mergeSha));
  if (cached === null)
    return jsonError(404, 'reference-not-fetched', `The judge has not fetched the original fix of task ${taskId} yet.`);
  const { diff, omittedLockFiles } = JSON.parse(cached) as ReferenceDiff;
  return {
    status: 200,
    body: {
      repo: issue.repo,
      baseSha: issue.baseSha,
      mergeSha: issue.mergeSha,
      fixPrNumber: issue.fixPrNumber,
      diff,
      omittedLockFiles,
    } satisfies ReferenceBody,
  };
}

/** The run's attempts, newest first: the current row and every archived one (docs/contract.md §4). */
async function attemptsOf(deps: ReadDeps, space: string, id: string): Promise<HttpAnswer> {
  const row = await deps.runs.getRun(space, id);
  if (!row) return jsonError(404, 'not-found', `There is no run "${id}" in space "${space}".`);
  const current = row.value;
  // Each attempt once (one reassigned to its host is archived twice, §4), and the current one as the row itself.
  const archived = distinctAttempts(await deps.attempts.listAttempts(space, id)).filter(
    (a) =>
      a.finishedAt !== current.finishedAt ||
      a.patchSha256 !== current.patchSha256 ||
      a.host !== current.host ||
      a.collision,
  );
  const attempts = [
    attemptSummary(current, current.host, true),
    ...archived.map((a) => attemptSummary(a, current.host, false)),
  ].sort((a, b) => (a.finishedAt < b.finishedAt ? 1 : a.finishedAt > b.finishedAt ? -1 : 0));
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
