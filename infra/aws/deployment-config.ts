// `cdk synth` reads the same configuration file as local mode, by the same rule (infra/config-file.ts) and
// through the same strict schema, so a file that runs locally deploys, and a wrong one stops the synth with
// the schema's sentence. The committed example deploys only when named on the command line: a plain
// `cdk deploy` on a fresh clone must not publish a stranger's spaces and hosts.
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { ConfigError, type ReplayConfig } from '#schema/config.ts';
import { chosenConfigFile, EXAMPLE_CONFIG_FILE, OWN_CONFIG_FILE, PROJECT_ROOT } from '../config-file.ts';

export { ConfigError };
export type { ReplayConfig };

/** The context key (`-c replayConfig=FILE`) naming the configuration file, relative to the project root. */
export const CONFIG_CONTEXT_KEY = 'replayConfig';

/** How a command names the configuration file: `cdk` with its context key, `npm run deploy` with `--config`. */
export const CDK_CONFIG_OPTION = `-c ${CONFIG_CONTEXT_KEY}=`;
export const DEPLOY_CONFIG_OPTION = '--config ';

/** The configuration file `cdk synth` reads, or a ConfigError whose sentence names the file it looked for. */
export function deploymentConfigPath(
  contextValue: unknown,
  env: NodeJS.ProcessEnv = process.env,
  root = PROJECT_ROOT,
  option = CDK_CONFIG_OPTION,
): string {
  const explicitExample = `${option}${EXAMPLE_CONFIG_FILE}`;
  if (contextValue !== undefined && contextValue !== '') {
    const path = resolve(root, String(contextValue));
    if (!existsSync(path))
      throw new ConfigError(`No configuration file at ${path} (named by ${option}${contextValue}).`);
    return path;
  }
  const chosen = chosenConfigFile(env, root);
  if (chosen.named && chosen.path === resolve(root, EXAMPLE_CONFIG_FILE)) {
    throw new ConfigError(
      `REPLAY_CONFIG names the committed example ${chosen.path}; to deploy the example itself, say so with ${explicitExample}.`,
    );
  }
  if (chosen.exists) return chosen.path;
  throw new ConfigError(
    chosen.named
      ? `No configuration file at ${chosen.path} (named by REPLAY_CONFIG).`
      : `No configuration file: looked for ${chosen.path}. Copy ${EXAMPLE_CONFIG_FILE} to ${OWN_CONFIG_FILE} and edit it, or ` +
          `name a file with REPLAY_CONFIG=FILE or ${option}FILE; deploying the committed example takes ${explicitExample}.`,
  );
}

/**
 * What one cockpit's read API is allowed to know: its own space and itself. A public cockpit therefore
 * cannot be used to read a private one's space, whatever path a visitor asks for.
 */
export function cockpitConfig(config: ReplayConfig, cockpitName: string): ReplayConfig {
  const cockpit = config.cockpits[cockpitName]!;
  return {
    ...config,
    spaces: { [cockpit.space]: config.spaces[cockpit.space]! },
    cockpits: { [cockpitName]: cockpit },
  };
}
