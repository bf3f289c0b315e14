// Local stand-in for API Gateway + CloudFront: turns HTTP requests into HTTP API v2 events for the same
// handlers, and serves the built cockpit with its settings file (every configured cockpit). Bodies are read only up to one byte past the ingest cap, so an
// oversized delivery is refused without ever being buffered whole.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { MAX_DELIVERY_BYTES } from '../../shared/schema/delivery.ts';
import { COCKPIT_SETTINGS_FILE, type CockpitSettings } from '../../shared/read/contract.ts';

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

export function createLocalServer(routes: LocalRoutes): Server {
  return createServer((req, res) => {
    handle(req, res, routes).catch((error: unknown) => {
      console.error('local server error:', (error as Error).message);
      if (!res.headersSent) send(res, { statusCode: 500, body: JSON.stringify({ error: 'internal', message: 'The local server failed.' }) });
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, routes: LocalRoutes) {
  const url = new URL(req.url ?? '/', 'http://local');
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
    return send(res, { statusCode: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(routes.settings) });
  }
  await serveStatic(res, routes.staticDir, url.pathname);
}

const notFound = (path: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: 'not-found', message: `Nothing is served at ${path}.` }),
});

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
    req.on('error', reject);
  });
}

function toEvent(req: IncomingMessage, url: URL, body: Buffer): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
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
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.socket.remoteAddress ?? '', userAgent: headers['user-agent'] ?? '' },
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
  const relative = normalize(decodeURIComponent(pathname === '/' ? '/index.html' : pathname)).replace(/^([/\\])+/, '');
  if (relative.startsWith('..')) return send(res, notFound(pathname));
  try {
    const file = await readFile(join(root, relative));
    res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(relative)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    res.end(file);
  } catch {
    if (relative !== 'index.html') return send(res, notFound(pathname));
    send(res, { statusCode: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'The cockpit is not built yet: run `npm run build:dashboard`.' });
  }
}
