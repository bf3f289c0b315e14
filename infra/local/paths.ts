// Where local mode finds its configuration, data and host keys (docs/contract.md §10). `npm start` and the demo read
// them from here, so a demo pushing into a running local mode signs with the keys that process reads.
import { join } from 'node:path';
import { chosenConfigFile, EXAMPLE_CONFIG_FILE, PROJECT_ROOT } from '../config-file.ts';

export { PROJECT_ROOT };

export function localPaths(env: NodeJS.ProcessEnv = process.env): {
  configPath: string;
  dataDir: string;
  keysDir: string;
} {
  const chosen = chosenConfigFile(env);
  // A newcomer's first `npm start` runs the committed example; a named file that is missing is an error
  // the config reader reports, never silently replaced.
  const configPath = chosen.named || chosen.exists ? chosen.path : join(PROJECT_ROOT, EXAMPLE_CONFIG_FILE);
  const dataDir = env.REPLAY_DATA_DIR ?? join(PROJECT_ROOT, '.replay-data');
  return { configPath, dataDir, keysDir: env.REPLAY_KEYS_DIR ?? join(dataDir, 'keys') };
}
