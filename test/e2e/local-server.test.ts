// Local mode's HTTP server as a network-facing program (docs/contract.md §9): CloudFront's security headers, no foreign
// Host (DNS rebinding), slow bodies closed, a bounded number of connections. The handlers behind it are
// stand-ins that answer like the real ones; the subject here is the server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLocalServer, LOCAL_SECURITY_HEADERS, type HttpHandler } from '#infra/local/http-server.ts';

const staticDir = mkdtempSync(join(tmpdir(), 'replay-static-'));
writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>cockpit</title>');
const answer: HttpHandler = async (event) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ path: event.rawPath, bytes: Buffer.from(event.body ?? '', 'base64').length }),
});

const BODY_TIMEOUT_MS = 300;
const MAX_CONNECTIONS = 4;
let server: Server;
let port: number;
beforeAll(async () => {
  server = createLocalServer(
    { ingest: answer, read: answer, staticDir, settings: { cockpits: [], api: '/api', signIn: null } },
    { host: 'replay.test', bodyTimeoutMs: BODY_TIMEOUT_MS, maxConnections: MAX_CONNECTIONS },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
  await closed;
});

/** Writes raw HTTP and collects what comes back until the server closes or `until` matches. */
function raw(text: string, until: RegExp): Promise<{ response: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString();
      if (until.test(response)) {
        socket.destroy();
        resolve({ response, closed: false });
      }
    });
    socket.on('close', () => resolve({ response, closed: true }));
    socket.on('error', reject);
    socket.write(text);
  });
}
/** A GET with exactly this Host header (none when empty). */
function get(
  path: string,
  host: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, setHost: false, headers: host ? { host } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: Record<string, unknown> = { text };
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // HTML or text: kept as { text }
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the local HTTP server', () => {
  it.each([['/'], ['/api/spaces/S/runs'], ['/hooks/S/ingest'], ['/missing.js']])(
    "sends CloudFront's security headers on %s",
    async (path) => {
      const { headers } = await get(path, `127.0.0.1:${port}`);
      for (const [name, value] of Object.entries(LOCAL_SECURITY_HEADERS)) expect(headers[name]).toBe(value);
    },
  );

  it('sends the same security headers as the cockpit distribution', () => {
    expect(LOCAL_SECURITY_HEADERS).toMatchObject({
      'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    });
  });

  it.each([['localhost'], ['127.0.0.1'], ['[::1]'], ['replay.test']])(
    'serves a request whose Host names %s',
    async (host) => {
      expect((await get('/api/spaces/S/runs', `${host}:${port}`)).status).toBe(200);
    },
  );

  it.each([
    ['attacker.example'],
    ['127.0.0.1.attacker.example'],
    ['localhost.attacker.example'],
    ['127.0.0.1:80@attacker.example'],
  ])('refuses Host "%s" with 421 bad-host', async (host) => {
    const answer = await get('/api/spaces/S/runs', host);
    expect(answer.status).toBe(421);
    expect(answer.body).toMatchObject({ error: 'bad-host' });
    expect(typeof answer.body.message).toBe('string');
  });

  it('refuses a request without a Host header', async () => {
    expect((await get('/api/spaces/S/runs', '')).status).toBe(400);
  });

  it('closes a request whose body has not fully arrived in time', async () => {
    const { response, closed } = await raw(
      `POST /hooks/S/ingest HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n${'x'.repeat(10)}`,
      /$^/,
    );
    expect(closed).toBe(true);
    expect(response === '' || response.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it(`holds at most ${MAX_CONNECTIONS} connections, and serves again once they are gone`, async () => {
    const holders: Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const socket = connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.write('POST /hooks/S/ingest HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\nxx');
      holders.push(socket);
    }
    await new Promise<void>((resolve) => {
      const check = () =>
        server.getConnections((_e, count) => (count >= MAX_CONNECTIONS ? resolve() : setTimeout(check, 10)));
      check();
    });
    const extra = await raw('GET /api/spaces/S/runs HTTP/1.1\r\nHost: localhost\r\n\r\n', /$^/);
    expect(extra).toEqual({ response: '', closed: true });
    for (const socket of holders) socket.destroy();
    await new Promise<void>((resolve) => {
      const check = () => server.getConnections((_e, count) => (count === 0 ? resolve() : setTimeout(check, 10)));
      check();
    });
    expect((await get('/api/spaces/S/runs', 'localhost')).status).toBe(200);
  });

  it.each([['/%E0%A4%A'], ['/assets/%ZZ.js'], ['/..%2f..%2fetc%2fpasswd'], ['/x.constructor']])(
    'answers a static path like %s with a 4xx JSON error',
    async (path) => {
      const answer = await get(path, 'localhost');
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(typeof answer.body.error).toBe('string');
    },
  );
});
