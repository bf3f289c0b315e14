// Waits for the cockpit's first complete render (`data-ready` on the root element) without measuring the
// wait itself. Playwright's waitForFunction first injects its ~330 KB page script into the page, compiled
// on the page's main thread while the cockpit is still loading its runs: some 180 ms of the first render's
// time that no analyst's browser spends. A bare `Runtime.evaluate` of one attribute read injects nothing.
import type { Page } from 'playwright-core';

const POLL_MS = 25;

/**
 * Returns once the page's cockpit has rendered all `runs` for the first time; throws with the cockpit's
 * own message when it failed, after `timeoutMs`, or when it shows fewer runs (a cockpit missing runs
 * renders faster: measuring it would flatter every figure).
 */
export async function cockpitReady(page: Page, runs: number, timeoutMs: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { result } = await cdp.send('Runtime.evaluate', {
      expression: 'document.documentElement.dataset.ready',
      returnByValue: true,
    });
    if (result.value === 'error') throw new Error(`The cockpit failed: ${await page.locator('.fatal').innerText()}`);
    if (result.value === 'true') break;
    if (Date.now() > deadline)
      throw new Error(`The cockpit did not finish its first render within ${timeoutMs / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  await cdp.detach();
  const status = await page.locator('#live-status').innerText();
  const all = runs.toLocaleString('en-US');
  if (!status.includes(`${all} of ${all} runs`))
    throw new Error(`The cockpit shows "${status}", not the ${all} runs loaded.`);
}
