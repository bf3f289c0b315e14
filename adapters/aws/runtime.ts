// What every function's AWS wiring reads from its environment: the variables the stack sets and the
// configuration file bundled beside its code. The SDK clients themselves are built by each adapter's
// factory (dynamoClient, s3Client, sqsClient, secretsManagerClient), once per cold start in `lambda.ts`.
import { fileURLToPath } from 'node:url';
import { BUNDLED_CONFIG_FILE, readConfigFile, type ReplayConfig } from '#schema/config.ts';

export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set.`);
  return value;
}

/**
 * The configuration a deployed function runs with: the file the deployment bundled beside its code (an
 * environment variable holds 4 KB, too little for 200 spaces). Local mode passes its configuration directly.
 */
export const bundledConfig = (file: URL = new URL(BUNDLED_CONFIG_FILE, import.meta.url)): ReplayConfig =>
  readConfigFile(fileURLToPath(file));

/** What a named deployment's secret names start with: its stack sets HOST_KEY_SECRET_PREFIX; the default's sets none. */
export const hostKeySecretPrefix = (env: NodeJS.ProcessEnv = process.env): string => env.HOST_KEY_SECRET_PREFIX ?? '';
