// Builds the AWS adapters from explicit settings. A Lambda's default wiring passes an empty connection (its
// region and role credentials come from its environment); local mode passes its emulators' endpoints and
// credentials instead, so several local modes can share one process and nothing writes `process.env`.
import { fileURLToPath } from 'node:url';
import { BUNDLED_CONFIG_FILE, readConfigFile, type ReplayConfig } from '../../schema/config.ts';
import type { KeySource, MessageQueue, PairingCheck } from '../../ports.ts';
import { AwsClient, type AwsConnection } from './aws-client.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import { SecretsManagerKeySource, SecretsManagerPairingCheck } from './secrets-key-source.ts';
import { SqsQueue } from './sqs-queue.ts';

export type { AwsConnection } from './aws-client.ts';

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

/** A bucket's objects; one store per bucket, each signing its own calls. */
export const bucketStore = (connection: AwsConnection, bucket: string): S3ObjectStore =>
  new S3ObjectStore(new AwsClient('s3', connection), bucket, connection.s3Emulated === true);

/** Sends to a queue by its URL, through the regional (or configured) SQS endpoint, as AWS does. */
export const queue = <T>(connection: AwsConnection, queueUrl: string): MessageQueue<T> =>
  new SqsQueue<T>(new AwsClient('sqs', connection), queueUrl);

/** What a stage's secret names start with: the stack sets HOST_KEY_SECRET_PREFIX for a named stage only. */
export const hostKeySecretPrefix = (env: NodeJS.ProcessEnv = process.env): string => env.HOST_KEY_SECRET_PREFIX ?? '';

/** Host keys from Secrets Manager (local mode passes its own key source instead). */
export const keySource = (connection: AwsConnection, secretPrefix = hostKeySecretPrefix()): KeySource =>
  new SecretsManagerKeySource(new AwsClient('secretsManager', connection), secretPrefix);

/** Whether a host has a key, for the read API, which may never read key values. */
export const pairingCheck = (connection: AwsConnection, secretPrefix = hostKeySecretPrefix()): PairingCheck =>
  new SecretsManagerPairingCheck(new AwsClient('secretsManager', connection), secretPrefix);
