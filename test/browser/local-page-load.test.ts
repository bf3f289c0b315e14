// A newcomer's first local page load is clean: every request the cockpit makes is answered (its settings
// file included), and the console stays free of errors. The settings list every configured cockpit.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { startTestLocalMode, type TestLocalMode } from '../helpers/local-mode.ts';
import { launchChromium } from './helpers/chromium.ts';

const config = {
  spaces: { Alpha: { senders: ['mac-studio-1'] }, Beta: { senders: ['mac-mini-2'] } },
  cockpits: { AlphaBoard: { space: 'Alpha' }, BetaBoard: { space: 'Beta' } },
};

let local: TestLocalMode;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const failedRequests: string[] = [];
const requested: string[] = [];

beforeAll(async () => {
  local = await startTestLocalMode(config, { 'mac-studio-1': 'key-1', 'mac-mini-2': 'key-2' });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('response', (response) => {
    requested.push(new URL(response.url()).pathname);
    if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => failedRequests.push(`failed ${request.url()}`));
  await page.goto(`${local.url}/`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 30_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

describe('a local page load', () => {
  it('reads the cockpit settings file, which local mode serves', () => {
    expect(requested).toContain('/cockpit.json');
  });

  it('gets an answer to every request and logs no error to the console', () => {
    expect(failedRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('shows the first configured cockpit and offers the others', async () => {
    expect(await page.textContent('#cockpit-name')).toBe('AlphaBoard');
    expect(await page.$$eval('#cockpit-switcher option', (options) => options.map((o) => o.textContent))).toEqual([
      'AlphaBoard (Alpha)',
      'BetaBoard (Beta)',
    ]);
  });
});
