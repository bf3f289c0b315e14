// The reference fix from GitHub through Octokit's REST client (`issues.get`, `repos.compareCommitsWithBasehead`).
// With a GitHub App, every fetch uses an installation token requested for exactly the one repository,
// read-only, so a leaked token could read one repository and change nothing; auth-app caches such tokens
// until shortly before they expire. A plain token (GITHUB_TOKEN) is for local use.
import { Octokit } from '@octokit/rest';
import { createAppAuth } from '@octokit/auth-app';
import { TIMINGS } from '#core/operations.ts';
import { ReferenceFetchError, type ReferenceSource } from '#core/ports.ts';

export type GitHubCredentials =
  { kind: 'app'; appId: string; privateKey: string; installationId: string } | { kind: 'token'; token: string };

/** Contents for the compare diff, issues for the issue text; nothing else, nothing writable. */
export const READ_ONLY_PERMISSIONS = { contents: 'read', issues: 'read' } as const;

export const PUBLIC_GITHUB_API = 'https://api.github.com';

// Octokit warns on the console (an endpoint GitHub marks deprecated, a token exchange retried); failures
// surface as attempt errors on the row instead.
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Every request, token exchange included, ends within `timeoutMs`, its body included. */
const fetchWithin =
  (timeoutMs: number): typeof fetch =>
  (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };

export class GitHubReferenceSource implements ReferenceSource {
  private readonly appAuth: ReturnType<typeof createAppAuth> | null;
  private readonly timeoutMs: number;
  private readonly request: { fetch: typeof fetch };

  constructor(
    private readonly credentials: GitHubCredentials,
    private readonly baseUrl = PUBLIC_GITHUB_API,
    options: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? TIMINGS.githubRequest * 1000;
    this.request = { fetch: fetchWithin(this.timeoutMs) };
    this.appAuth =
      credentials.kind === 'app'
        ? createAppAuth({
            appId: credentials.appId,
            privateKey: credentials.privateKey,
            installationId: credentials.installationId,
            request: new Octokit({ baseUrl, log: quiet, request: this.request }).request,
          })
        : null;
  }

  async issueText(repo: string, issueNumber: number): Promise<string> {
    const { octokit, owner, name } = await this.clientFor(repo, 'issue text');
    const { data } = await this.call(repo, 'issue text', () =>
      octokit.rest.issues.get({ owner, repo: name, issue_number: issueNumber }),
    );
    return `${data.title}\n\n${data.body ?? ''}`;
  }

  async diff(repo: string, baseSha: string, mergeSha: string): Promise<string> {
    const { octokit, owner, name } = await this.clientFor(repo, 'reference diff');
    const { data } = await this.call(repo, 'reference diff', () =>
      octokit.rest.repos.compareCommitsWithBasehead({
        owner,
        repo: name,
        basehead: `${baseSha}...${mergeSha}`,
        mediaType: { format: 'diff' },
      }),
    );
    // With the diff media type GitHub answers text, which Octokit passes through untyped.
    return data as unknown as string;
  }

  private async clientFor(repo: string, what: string) {
    const [owner, name] = repo.split('/') as [string, string];
    const token = this.appAuth
      ? (
          await this.call(repo, `installation token for the ${what}`, () =>
            this.appAuth!({ type: 'installation', repositoryNames: [name], permissions: { ...READ_ONLY_PERMISSIONS } }),
          )
        ).token
      : (this.credentials as { token: string }).token;
    return {
      octokit: new Octokit({ auth: token, baseUrl: this.baseUrl, log: quiet, request: this.request }),
      owner,
      name,
    };
  }

  private async call<T>(repo: string, what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isTimeout(error))
        throw new ReferenceFetchError(
          'github-timeout',
          `GitHub did not answer the ${what} of ${repo} within ${this.timeoutMs / 1000} s.`,
        );
      throw asFetchError(error, repo, what);
    }
  }
}

const isTimeout = (error: unknown): boolean =>
  [error, (error as { cause?: unknown }).cause].some(
    (e) => (e as { name?: unknown } | undefined)?.name === 'TimeoutError',
  );

/** Waiting at least this long after a rate-limit answer that names no time of its own. */
const RATE_LIMIT_FALLBACK_SECONDS = 60;

/**
 * GitHub's rate-limit answers (docs.github.com, "Rate limits for the REST API"): a 403 or 429 with
 * `retry-after` (seconds) for a secondary limit, or with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`
 * (epoch seconds) for the primary one. The seconds to wait, or null for another answer.
 */
export function rateLimitWait(status: number, headers: Record<string, unknown>, nowMs: number): number | null {
  if (status !== 403 && status !== 429) return null;
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0)
    return Math.max(1, Math.ceil(retryAfter));
  if (String(headers['x-ratelimit-remaining']) === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    return Number.isFinite(reset) ? Math.max(1, Math.ceil(reset - nowMs / 1000)) : RATE_LIMIT_FALLBACK_SECONDS;
  }
  return status === 429 ? RATE_LIMIT_FALLBACK_SECONDS : null;
}

function asFetchError(error: unknown, repo: string, what: string): ReferenceFetchError {
  const status = (error as { status?: unknown }).status;
  const headers = (error as { response?: { headers?: Record<string, unknown> } }).response?.headers ?? {};
  const wait = typeof status === 'number' ? rateLimitWait(status, headers, Date.now()) : null;
  if (wait !== null)
    return new ReferenceFetchError(
      'github-rate-limited',
      `GitHub limited the rate of requests (HTTP ${status}) for the ${what} of ${repo}; asking again in ${wait} s.`,
      wait,
    );
  if (typeof status === 'number' && status > 0)
    return new ReferenceFetchError(
      `github-http-${status}`,
      `GitHub answered HTTP ${status} for the ${what} of ${repo}.`,
    );
  return new ReferenceFetchError(
    'github-unreachable',
    `Fetching the ${what} of ${repo} from GitHub failed (${(error as Error).name ?? 'error'}).`,
  );
}
