// `cdk synth` reads the same configuration file as local mode, through the same strict schema, so a file
// that runs locally deploys, and a wrong one stops the synth with the schema's sentence.
import { ConfigError, readConfigFile, type ReplayConfig } from '../../shared/schema/config.ts';

export { ConfigError };
export type { ReplayConfig };

/** The cdk.json context key naming the configuration file, relative to the project root. */
export const CONFIG_CONTEXT_KEY = 'replayConfig';
export const EXAMPLE_CONFIG = 'replay.config.example.json';

// Lambda holds at most 4 KB of environment per function; the configuration travels as REPLAY_CONFIG_JSON
// beside names, URLs and ARNs that take up to about 1 KB. Failing here beats a failed deploy half-way.
export const CONFIG_ENV_LIMIT_BYTES = 3_000;

export function loadDeploymentConfig(path: string): ReplayConfig {
  const config = readConfigFile(path);
  configJson(config);
  return config;
}

/** The configuration as the functions receive it, refused when it cannot fit their environment. */
export function configJson(config: ReplayConfig): string {
  const json = JSON.stringify(config);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > CONFIG_ENV_LIMIT_BYTES) {
    throw new ConfigError(
      `The configuration is ${bytes} bytes as JSON, more than the ${CONFIG_ENV_LIMIT_BYTES} that fit in a function's environment; use shorter names or split the spaces across deployments.`,
    );
  }
  return json;
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
