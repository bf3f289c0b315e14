// A deployed, non-public cockpit (cockpit.json with signIn): the dashboard runs the OAuth authorization
// code flow with PKCE against the hosted UI, sends the ID token to the API, and comes back to the view the
// reader asked for. A small server here plays CloudFront, Cognito and the read API.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { CompactRun } from '#analytics/columns.ts';
import type { CockpitSettings } from '#analytics/contract.ts';
import { launchChromium } from './helpers/chromium.ts';
import { columns, emptySpaceApi, json, startDashboardServer } from './helpers/dashboard-server.ts';
import { compactRunOf } from '../helpers/compact-runs.ts';

const TOKEN = 'id-token-for-analyst';

const run = (model: string, verdict: CompactRun['verdict']): CompactRun =>
  compactRunOf({ model, taskId: `task-${model}`, verdict, hiddenTest: 'pass' });

let server: { url: string; close: () => Promise<void> };
let url: string;
let browser: Browser;
const seen = {
  authorize: [] as URLSearchParams[],
  token: [] as URLSearchParams[],
  api: [] as { path: string; authorization: string | undefined }[],
};

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(text));
  });

beforeAll(async () => {
  server = await startDashboardServer(async (req, res, u) => {
    if (u.pathname === '/cockpit.json') {
      const settings: CockpitSettings = {
        cockpits: [{ name: 'Signed', space: 'S', public: false, showReference: true, minN: 10 }],
        api: '/api',
        signIn: {
          authorizeUrl: `${url}/oauth2/authorize`,
          tokenUrl: `${url}/oauth2/token`,
          logoutUrl: `${url}/logout`,
          clientId: 'client-1',
          redirectUri: `${url}/`,
          scopes: ['openid', 'email'],
        },
      };
      return json(res, 200, settings);
    }
    if (u.pathname === '/oauth2/authorize') {
      seen.authorize.push(u.searchParams);
      res
        .writeHead(302, {
          location: `${u.searchParams.get('redirect_uri')}?code=the-code&state=${u.searchParams.get('state')}`,
        })
        .end();
      return true;
    }
    if (u.pathname === '/oauth2/token') {
      const form = new URLSearchParams(await body(req));
      seen.token.push(form);
      const challenge = seen.authorize.at(-1)?.get('code_challenge');
      const verified =
        createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url') === challenge;
      if (!verified || form.get('code') !== 'the-code' || form.get('grant_type') !== 'authorization_code')
        return json(res, 400, { error: 'invalid_grant' });
      return json(res, 200, { id_token: TOKEN, access_token: 'unused', expires_in: 3600, token_type: 'Bearer' });
    }
    if (u.pathname.startsWith('/api/')) {
      seen.api.push({ path: u.pathname, authorization: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { message: 'Unauthorized' });
      if (u.pathname === '/api/spaces/S/columns') return columns(res, [run('alpha', 'resolved'), run('beta', 'wrong')]);
      return emptySpaceApi(res, u, 'S');
    }
    return false;
  });
  url = server.url;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it('signs in with PKCE, calls the API with the ID token, and returns to the linked view', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${url}/?view=runs&tier=easy`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });

  const authorize = seen.authorize[0]!;
  expect(Object.fromEntries(authorize)).toMatchObject({
    response_type: 'code',
    client_id: 'client-1',
    redirect_uri: `${url}/`,
    scope: 'openid email',
    code_challenge_method: 'S256',
  });
  expect(seen.token).toHaveLength(1);
  expect(seen.api.length).toBeGreaterThan(0);
  expect(seen.api.every((call) => call.authorization === `Bearer ${TOKEN}`)).toBe(true);
  // The code and state are gone from the address bar; the view asked for is back.
  expect(new URL(page.url()).search).toBe('?view=runs&tier=easy');
  expect(await page.locator('.runs-count').innerText()).toBe('2 of 2 runs');
  expect(await page.locator('#cockpit-switcher .link').innerText()).toBe('Sign out');
  await page.close();
});
