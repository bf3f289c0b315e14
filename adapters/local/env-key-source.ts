// Local host keys: an environment variable named like `Hosting__ModuleReportSecret__mac-studio-1`, or a
// file of that name in the keys folder. Files exist because Debian's /bin/sh (which npm scripts run under)
// silently drops environment variables whose names contain "-".
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeySource, PairingCheck } from '#core/ports.ts';
import { parseSecretValue } from '../aws/secrets-key-source.ts';
import { keyEnvName } from '#shared/key-names.ts';

export class LocalKeySource implements KeySource, PairingCheck {
  constructor(
    private readonly keysDir: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async keysFor(secretConfigKey: string, host: string): Promise<string[]> {
    const name = keyEnvName(secretConfigKey, host);
    const fromEnv = this.env[name];
    if (fromEnv) return parseSecretValue(fromEnv);
    try {
      return parseSecretValue(await readFile(join(this.keysDir, name), 'utf8'));
    } catch {
      return [];
    }
  }

  async isPaired(secretConfigKey: string, host: string): Promise<boolean> {
    return (await this.keysFor(secretConfigKey, host)).length > 0;
  }
}
