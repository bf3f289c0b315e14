// A local stand-in for the GitHub REST API the judge uses (App installation tokens, issues, compare diffs) that
// speaks the real wire format, so Octokit and @octokit/auth-app talk to it unchanged (GITHUB_API_URL=github.url).
// Tests set issues and diffs (`setIssue`, `setCompare`), read `requests` and `tokenRequests`, and make it hang.
// Authentication is enforced as GitHub does: the token exchange needs the app's RS256 JWT (checked against
// `publicKey`), data routes an installation token limited to its repositories and permissions, or the
// static `token`; with neither configured, every data request is allowed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body.ts';

export interface GitHubStandInOptions {
  app?: { appId: string; installationId: string; publicKey?: string | KeyObject };
  /** A personal token accepted for every repository (GITHUB_TOKEN). */
  token?: string;
  issues?: { repo: string; number: number; title: string; body: string | null }[];
  compares?: { repo: string; base: string; head: string; diff: string }[];
  port?: number;
}

export interface TokenRequest {
  installationId: string;
  repositories: string[] | null;
  permissions: Record<string, string> | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  accept: string | null;
  credential: 'app-jwt' | 'installation-token' | 'token' | 'none' | 'invalid';
}

export interface GitHubStandIn {
  url: string;
  requests: RecordedRequest[];
  tokenRequests: TokenRequest[];
  setIssue(repo: string, number: number, issue: { title: string; body: string | null }): void;
  setCompare(repo: string, base: string, head: string, diff: string): void;
  setHanging(hanging: boolean): void;
  /** Answers every data request with this rate-limit status and headers, as GitHub does; null: served again. */
  setRateLimited(limit: { status: 403 | 429; headers: Record<string, string> } | null): void;
  stop(): Promise<void>;
}

interface IssuedToken {
  repositories: string[] | null;
  permissions: Record<string, string>;
  expiresAt: number;
}

const TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export async function startGitHubStandIn(options: GitHubStandInOptions = {}): Promise<GitHubStandIn> {
  const issues = new Map<string, { title: string; body: string | null }>();
  const compares = new Map<string, string>();
  const tokens = new Map<string, IssuedToken>();
  const requests: RecordedRequest[] = [];
  const tokenRequests: TokenRequest[] = [];
  const publicKey = options.app?.publicKey ? createPublicKey(options.app.publicKey) : null;
  const open = !options.app && !options.token;
  let hanging = false;
  let rateLimited: { status: 403 | 429; headers: Record<string, string> } | null = null;

  const setIssue = (repo: string, number: number, issue: { title: string; body: string | null }) =>
    void issues.set(`${repo}#${number}`, issue);
  const setCompare = (repo: string, base: string, head: string, diff: string) =>
    void compares.set(`${repo}@${base}...${head}`, diff);
  for (const i of options.issues ?? []) setIssue(i.repo, i.number, i);
  for (const c of options.compares ?? []) setCompare(c.repo, c.base, c.head, c.diff);
  const knownRepos = () =>
    new Set([...issues.keys()].map((k) => k.split('#')[0]!).concat([...compares.keys()].map((k) => k.split('@')[0]!)));

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 500, { message: `stand-in failure: ${(error as Error).message}` }),
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const auth = /^(?:token|bearer) (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const issued = auth ? tokens.get(auth) : undefined;
    const credential: RecordedRequest['credential'] = !auth
      ? 'none'
      : issued && issued.expiresAt > Date.now()
        ? 'installation-token'
        : auth === options.token
          ? 'token'
          : auth.split('.').length === 3
            ? 'app-jwt'
            : 'invalid';
    const accept = typeof req.headers.accept === 'string' ? req.headers.accept : null;
    requests.push({ method: req.method ?? '', path, accept, credential });

    // Held open, never answered: the client's own timeout must end the request (stop() closes it).
    if (hanging) return;

    const exchange = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(path);
    if (exchange && req.method === 'POST') return issueToken(req, res, decodeURIComponent(exchange[1]!), auth);

    const route = /^\/repos\/([^/]+)\/([^/]+)\/(issues|compare)\/([^/]+)$/.exec(path);
    if (!route || req.method !== 'GET') return send(res, 404, { message: 'Not Found' });
    if (rateLimited) {
      res.writeHead(rateLimited.status, { 'content-type': 'application/json', ...rateLimited.headers });
      res.end(JSON.stringify({ message: 'API rate limit exceeded' }));
      return;
    }
    const [, owner, name, kind, rawArg] = route as unknown as [string, string, string, 'issues' | 'compare', string];
    const repo = `${decodeURIComponent(owner)}/${decodeURIComponent(name)}`;
    const arg = decodeURIComponent(rawArg);

    if (!open) {
      if (credential === 'none' || credential === 'invalid' || credential === 'app-jwt')
        return send(res, 401, { message: 'Bad credentials' });
      if (credential === 'installation-token') {
        // Like GitHub: a repository outside the token's selection does not exist for it.
        if (issued!.repositories && !issued!.repositories.includes(repo.split('/')[1]!))
          return send(res, 404, { message: 'Not Found' });
        const permission = kind === 'issues' ? 'issues' : 'contents';
        if (!issued!.permissions[permission])
          return send(res, 403, { message: 'Resource not accessible by integration' });
      }
    }

    if (kind === 'issues') {
      const issue = issues.get(`${repo}#${arg}`);
      if (!issue) return send(res, 404, { message: 'Not Found' });
      return send(res, 200, {
        number: Number(arg),
        title: issue.title,
        body: issue.body,
        state: 'closed',
        html_url: `https://github.com/${repo}/issues/${arg}`,
      });
    }
    const diff = compares.get(`${repo}@${arg}`);
    if (diff === undefined) return send(res, 404, { message: 'Not Found' });
    if (!accept?.includes('diff'))
      return send(res, 415, { message: 'This stand-in serves compares only as diffs (application/vnd.github.diff).' });
    res.writeHead(200, { 'content-type': 'application/vnd.github.diff; charset=utf-8' });
    res.end(diff);
  }

  async function issueToken(
    req: IncomingMessage,
    res: ServerResponse,
    installationId: string,
    jwt: string | null,
  ): Promise<void> {
    const body = (JSON.parse((await readBody(req)) || '{}') ?? {}) as {
      repositories?: string[];
      permissions?: Record<string, string>;
    };
    tokenRequests.push({
      installationId,
      repositories: body.repositories ?? null,
      permissions: body.permissions ?? null,
    });
    if (!options.app || !jwt || !validJwt(jwt, options.app.appId, publicKey)) {
      return send(res, 401, { message: 'A JSON web token could not be decoded' });
    }
    if (installationId !== options.app.installationId) return send(res, 404, { message: 'Not Found' });
    const known = new Set([...knownRepos()].map((r) => r.split('/')[1]!));
    if (body.repositories?.some((r) => !known.has(r))) {
      return send(res, 422, {
        message:
          'There is at least one repository that does not exist or is not accessible to the parent installation.',
      });
    }
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    const expiresAt = Date.now() + TOKEN_LIFETIME_MS;
    const permissions = body.permissions ?? { contents: 'read', issues: 'read', metadata: 'read' };
    tokens.set(token, { repositories: body.repositories ?? null, permissions, expiresAt });
    send(res, 201, {
      token,
      expires_at: new Date(expiresAt).toISOString(),
      permissions,
      repository_selection: body.repositories ? 'selected' : 'all',
      ...(body.repositories
        ? { repositories: body.repositories.map((name, i) => ({ id: i + 1, name, full_name: name })) }
        : {}),
    });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    tokenRequests,
    setIssue,
    setCompare,
    setHanging: (value) => {
      hanging = value;
    },
    setRateLimited: (limit) => {
      rateLimited = limit;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An RS256 JWT whose issuer is the app and which has not expired; signature checked when a key is known. */
function validJwt(jwt: string, appId: string, publicKey: KeyObject | null): boolean {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  try {
    const h = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss?: unknown; exp?: number };
    if (h.alg !== 'RS256' || String(p.iss) !== appId || !p.exp || p.exp * 1000 < Date.now()) return false;
    return (
      !publicKey ||
      verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))
    );
  } catch {
    return false;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(
    JSON.stringify({
      ...(body as object),
      ...(status >= 400 ? { documentation_url: 'https://docs.github.com/rest' } : {}),
    }),
  );
}
