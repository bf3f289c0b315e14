// Browser suites start local mode before their browser; without Chromium each would fail late and leave
// its servers behind. One sentence up front instead.
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from './chromium.ts';

export default function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH.`,
    );
  }
}
