// Browser suites start local mode before their browser; without Chromium each would fail late and leave
// its servers behind. One sentence up front instead. The run's temporary files then go in a folder of its own.
import { existsSync } from 'node:fs';
import { useScratchFolder } from '../../helpers/scratch-folder.ts';
import { CHROMIUM_PATH } from './chromium.ts';

export default function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH.`,
    );
  }
  useScratchFolder();
}
