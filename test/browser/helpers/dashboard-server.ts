// A small server that plays CloudFront for a browser test: the built dashboard from dashboard/dist, and
// every other path (the API, cockpit.json, a sign-in service) answered by the test's own handler.
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  COLUMNS_GZIP_MEDIA_TYPE,
  COLUMNS_MEDIA_TYPE,
  columnsToBytes,
  encodeColumns,
  type CompactRun,
  type ColumnsPart,
} from '#analytics/columns.ts';
import type { CockpitSettings } from '#analytics/contract.ts';

const DIST = join(import.meta.dirname, '../../../dashboard/dist');

/** Answers the request and returns true, or returns false to let the dashboard's files be served. */
export type TestRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> | boolean;

export async function startDashboardServer(route: TestRoute): Promise<{ url: string; close: () => Promise<void> }> {
  let url = '';
  const server = createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', url);
      if (await route(req, res, u)) return;
      const file = u.pathname === '/' ? 'index.html' : u.pathname.slice(1);
      try {
        const content = await readFile(join(DIST, file));
        res
          .writeHead(200, {
            'content-type': file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html',
          })
          .end(content);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => server.close(() => r())) };
}

/** `cockpit.json` naming one public cockpit over `space`, its API at `/api`, no sign-in. */
export const oneCockpit = (res: ServerResponse, name: string, space: string, minN: number): true =>
  json(res, 200, {
    cockpits: [{ name, space, public: true, showReference: false, minN }],
    api: '/api',
    signIn: null,
  } satisfies CockpitSettings);

/** A JSON answer. */
export const json = (res: ServerResponse, status: number, value: unknown): true => (
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value)),
  true
);

/**
 * A columns answer of these runs, in the wire format the read API serves: plain, or gzip as the compressed
 * media type. It is written in 13-byte pieces, so that the page's stream may cut values anywhere.
 */
export function columns(
  res: ServerResponse,
  runs: CompactRun[],
  part?: ColumnsPart,
  { gzipMediaType = false } = {},
): true {
  const plain = columnsToBytes(encodeColumns(runs, new Date().toISOString(), part));
  const body = gzipMediaType ? gzipSync(plain) : plain;
  res.writeHead(200, { 'content-type': gzipMediaType ? COLUMNS_GZIP_MEDIA_TYPE : COLUMNS_MEDIA_TYPE });
  for (let at = 0; at < body.length; at += 13) res.write(body.subarray(at, at + 13));
  res.end();
  return true;
}

/** The rest of a space's API, empty: no issue records, no hosts, no changes; any other API path is 404. False for non-API paths. */
export function emptySpaceApi(res: ServerResponse, url: URL, space: string): boolean {
  const base = `/api/spaces/${space}/`;
  if (url.pathname === `${base}issues`) return json(res, 200, { issues: [] });
  if (url.pathname === `${base}hosts`) return json(res, 200, { hosts: [] });
  if (url.pathname === `${base}runs`) return json(res, 200, { runs: [], cursor: null, asOf: new Date().toISOString() });
  if (url.pathname.startsWith('/api/')) return json(res, 404, { error: 'not-found', message: 'no such route' });
  return false;
}
