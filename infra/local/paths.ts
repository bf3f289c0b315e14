// Where local mode finds its configuration, data and host keys (SPEC §10). `npm start` and the demo read
// them from here, so a demo pushing into a running local mode signs with the keys that process reads.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

export function localPaths(env: NodeJS.ProcessEnv = process.env): { configPath: string; dataDir: string; keysDir: string } {
  const ownConfig = join(PROJECT_ROOT, 'replay.config.json');
  const configPath = env.REPLAY_CONFIG ?? (existsSync(ownConfig) ? ownConfig : join(PROJECT_ROOT, 'replay.config.example.json'));
  const dataDir = env.REPLAY_DATA_DIR ?? join(PROJECT_ROOT, '.replay-data');
  return { configPath, dataDir, keysDir: env.REPLAY_KEYS_DIR ?? join(dataDir, 'keys') };
}
