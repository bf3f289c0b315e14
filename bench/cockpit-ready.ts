// Waits for the cockpit's first complete render (`data-ready` on the root element) without measuring the
// wait itself. Playwright's waitForFunction first injects its ~330 KB page script into the page, compiled
// on the page's main thread while the cockpit is still loading its runs: some 180 ms of the first render's
// time that no analyst's browser spends. A bare `Runtime.evaluate` of one attribute read injects nothing.
import type { CDPSession } from 'playwright-core';

const POLL_MS = 25;

/** `data-ready` once it is 'true' or 'error'; throws after `timeoutMs`. */
export async function cockpitSettled(cdp: CDPSession, timeoutMs: number): Promise<'true' | 'error'> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.documentElement.dataset.ready', returnByValue: true });
    if (result.value === 'true' || result.value === 'error') return result.value;
    if (Date.now() > deadline) throw new Error(`The cockpit did not finish its first render within ${timeoutMs / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
