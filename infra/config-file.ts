// Which configuration file a command reads (docs/contract.md §10). `npm start` and `cdk synth` share this rule, so the
// file that runs locally is the file that deploys: `REPLAY_CONFIG` when set, else `replay.config.json` at the
// project root. Only local mode falls back to the committed example; a deployment must name it.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..');
export const OWN_CONFIG_FILE = 'replay.config.json';
export const EXAMPLE_CONFIG_FILE = 'replay.config.example.json';

export interface ConfigFileChoice {
  path: string;
  /** Named by `REPLAY_CONFIG` rather than found at the default place. */
  named: boolean;
  exists: boolean;
}

export function chosenConfigFile(env: NodeJS.ProcessEnv = process.env, root = PROJECT_ROOT): ConfigFileChoice {
  const named = Boolean(env.REPLAY_CONFIG);
  const path = named ? resolve(env.REPLAY_CONFIG!) : join(root, OWN_CONFIG_FILE);
  return { path, named, exists: existsSync(path) };
}
