// Pages of a cockpit for the analyst's browser suites (a judged demo's local mode, or a test server playing the
// read API): open one and wait until every card shows the latest figures, and read the read API as the page does.
import type { Browser, Page } from 'playwright-core';

/** Charts below the fold are filled one frame after those in view: wait for every one. */
export const settled = (p: Page) =>
  p.waitForFunction(() => (document.documentElement.dataset.pendingParts ?? '0') === '0');

export function analysisPages(local: () => { url: string }, browser: () => Browser) {
  return {
    async api<T>(path: string): Promise<T> {
      return (await (await fetch(`${local().url}/api${path}`)).json()) as T;
    },
    async open(path = '/', viewport = { width: 1280, height: 900 }): Promise<Page> {
      const p = await browser().newPage({ viewport });
      p.on('pageerror', (e) => console.error('page error:', e.message));
      await p.goto(`${local().url}${path}`);
      await p.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 60_000 });
      await settled(p);
      return p;
    },
  };
}
