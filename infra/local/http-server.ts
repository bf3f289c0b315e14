// Local stand-in for API Gateway + CloudFront: turns HTTP requests into HTTP API v2 events for the same
// handlers, and serves the built cockpit with its settings file (every configured cockpit). Bodies are read
// only up to one byte past the ingest cap, so an oversized delivery is refused without ever being buffered
// whole. Like the hosted edge it sends the cockpit's security headers on every answer, and it defends what a
// loopback server meets (docs/contract.md §9): a Host header naming anything but this machine is refused (a page on
// another site that re-points its DNS name at 127.0.0.1 cannot read the API), a body that trickles in is
// cut off, and connections are capped.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { isIP } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { MAX_DELIVERY_BYTES } from '#schema/delivery.ts';
import { ownEntry } from '#schema/config.ts';
import { decodePathSegment } from '#core/http.ts';
import { COCKPIT_SETTINGS_FILE, type CockpitSettings } from '#analytics/contract.ts';

export type HttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export interface LocalRoutes {
  ingest: HttpHandler;
  read: HttpHandler;
  staticDir: string;
  /** Served as /cockpit.json, as the deployment writes it beside a cockpit's dashboard. */
  settings: CockpitSettings;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/**
 * The headers the cockpit's CloudFront distribution adds (infra/aws/constructs/cockpit.ts,
 * `securityHeaders`), for a cockpit without sign-in: the local cockpit talks only to its own origin.
 */
export const LOCAL_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

export interface LocalServerOptions {
  /** The address the server listens on (`HOST`); its name is accepted in the Host header besides loopback. */
  host?: string;
  /** A request whose headers and body have not fully arrived in this time is answered 408 and closed. */
  bodyTimeoutMs?: number;
  maxConnections?: number;
}

export const BODY_TIMEOUT_MS = 30_000;
export const MAX_CONNECTIONS = 256;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

export function createLocalServer(routes: LocalRoutes, options: LocalServerOptions = {}): Server {
  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const allowedHosts = new Set(LOOPBACK_NAMES);
  if (options.host) allowedHosts.add(options.host.toLowerCase());
  const server = createServer(
    // Node checks the request deadline on this interval, so it must be well below the deadline itself.
    {
      requestTimeout: bodyTimeoutMs,
      headersTimeout: bodyTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, bodyTimeoutMs / 4)),
    },
    (req, res) => {
      for (const [name, value] of Object.entries(LOCAL_SECURITY_HEADERS)) res.setHeader(name, value);
      if (!allowedHosts.has(hostName(req.headers.host))) {
        res.setHeader('connection', 'close');
        return send(
          res,
          jsonAnswer(
            421,
            'bad-host',
            'This server answers only requests addressed to this machine (a loopback name or HOST).',
          ),
        );
      }
      handle(req, res, routes).catch((error: unknown) => {
        if (error instanceof RequestClosedError) return;
        console.error('local server error:', (error as Error).message);
        if (!res.headersSent) send(res, jsonAnswer(500, 'internal', 'The local server failed.'));
      });
    },
  );
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  return server;
}

/** The Host header's name without its port, lower-cased; brackets of an IPv6 literal removed. */
function hostName(header: string | undefined): string {
  if (!header) return '';
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1]!;
  if (isIP(value) === 6) return value;
  return value.replace(/:\d+$/, '');
}

const jsonAnswer = (statusCode: number, error: string, message: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error, message }),
});

async function handle(req: IncomingMessage, res: ServerResponse, routes: LocalRoutes) {
  // Origin-form only ("/path?query"); concatenated rather than resolved, so "//x" stays a path, not a host.
  const target = req.url ?? '';
  if (!target.startsWith('/'))
    return send(res, jsonAnswer(400, 'bad-path', 'The request target must be a path starting with "/".'));
  const url = new URL(`http://local${target}`);
  if (url.pathname.startsWith('/hooks/')) {
    const { body, complete } = await readCapped(req, MAX_DELIVERY_BYTES + 1);
    const answer = await routes.ingest(toEvent(req, url, body));
    if (!complete) {
      // Discard the rest unread so the client still gets its answer, then close.
      res.setHeader('connection', 'close');
      req.resume();
    }
    send(res, answer);
    return;
  }
  if (url.pathname.startsWith('/api/')) {
    send(res, await routes.read(toEvent(req, url, Buffer.alloc(0))));
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, notFound(url.pathname));
  if (url.pathname === `/${COCKPIT_SETTINGS_FILE}`) {
    return send(res, {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
      body: JSON.stringify(routes.settings),
    });
  }
  await serveStatic(res, routes.staticDir, url.pathname);
}

const notFound = (path: string): APIGatewayProxyStructuredResultV2 =>
  jsonAnswer(404, 'not-found', `Nothing is served at ${path}.`);

class RequestClosedError extends Error {}

function readCapped(req: IncomingMessage, cap: number): Promise<{ body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      const room = cap - size;
      chunks.push(chunk.subarray(0, room));
      size += Math.min(chunk.length, room);
      if (size >= cap) {
        req.off('data', onData);
        req.pause();
        resolve({ body: Buffer.concat(chunks), complete: false });
      }
    };
    req.on('data', onData);
    req.on('end', () => resolve({ body: Buffer.concat(chunks), complete: true }));
    // Cut off by the body deadline or aborted by the client: nothing to answer (no-op once the body ended).
    req.on('error', () => reject(new RequestClosedError()));
    req.on('close', () => reject(new RequestClosedError()));
  });
}

function toEvent(req: IncomingMessage, url: URL, body: Buffer): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const method = req.method ?? 'GET';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.fromEntries(url.searchParams),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: crypto.randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? ''));
}

async function serveStatic(res: ServerResponse, root: string, pathname: string) {
  const decoded = decodePathSegment(pathname === '/' ? '/index.html' : pathname);
  if (decoded === null) return send(res, jsonAnswer(400, 'bad-path', 'The path is not valid percent-encoding.'));
  const relative = normalize(decoded).replace(/^([/\\])+/, '');
  if (relative.startsWith('..')) return send(res, notFound(pathname));
  try {
    const file = await readFile(join(root, relative));
    res.writeHead(200, {
      'content-type': ownEntry(CONTENT_TYPES, extname(relative)) ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    res.end(file);
  } catch {
    if (relative !== 'index.html') return send(res, notFound(pathname));
    send(res, jsonAnswer(404, 'not-built', 'The cockpit is not built yet: run `npm run build:dashboard`.'));
  }
}
