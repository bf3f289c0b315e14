// Builds adapters from the environment a function runs in. The same code serves AWS and local mode: the
// AWS SDK honours AWS_ENDPOINT_URL_{DYNAMODB,S3,SQS,SECRETS_MANAGER}, which local mode points at its emulators.
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { BUNDLED_CONFIG_FILE, readConfigFile, type ReplayConfig } from '../../schema/config.ts';
import type { KeySource, MessageQueue, PairingCheck } from '../../ports.ts';
import { LocalKeySource } from '../local/env-key-source.ts';
import { DynamoStore } from './dynamo-store.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import { SecretsManagerKeySource, SecretsManagerPairingCheck } from './secrets-key-source.ts';
import { SqsQueue } from './sqs-queue.ts';

export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set.`);
  return value;
}

/**
 * The configuration a function runs with: the file the deployment bundled beside its code (an environment
 * variable holds 4 KB, too little for 200 spaces); local mode names its own file with REPLAY_CONFIG_FILE.
 */
export const configFromEnv = (env = process.env): ReplayConfig =>
  readConfigFile(env.REPLAY_CONFIG_FILE ?? fileURLToPath(new URL(BUNDLED_CONFIG_FILE, import.meta.url)));

export const tableStore = (env = process.env) => new DynamoStore(new DynamoDBClient({}), requiredEnv('TABLE_NAME', env));

let s3: S3Client | undefined;
export function bucketStore(bucketEnvName: 'INBOX_BUCKET' | 'DATA_BUCKET', env = process.env): S3ObjectStore {
  s3 ??= new S3Client({ forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' });
  return new S3ObjectStore(s3, requiredEnv(bucketEnvName, env));
}

// Requests go to the configured or regional endpoint with the queue URL as a parameter, so emulators whose
// queue URLs name an unresolvable host behave like AWS.
let sqs: SQSClient | undefined;
export const sqsClient = () => (sqs ??= new SQSClient({ useQueueUrlAsEndpoint: false }));

export function queue<T>(urlEnvName: 'LANDING_QUEUE_URL' | 'JUDGE_QUEUE_URL', env = process.env): MessageQueue<T> {
  return new SqsQueue<T>(sqsClient(), requiredEnv(urlEnvName, env));
}

/** Secrets Manager in AWS; the environment or key files only when local mode says so. */
export const keySource = (env = process.env): KeySource =>
  env.KEY_SOURCE === 'local' ? new LocalKeySource(requiredEnv('REPLAY_KEYS_DIR', env), env) : new SecretsManagerKeySource(new SecretsManagerClient({}));

export const pairingCheck = (env = process.env): PairingCheck =>
  env.KEY_SOURCE === 'local' ? new LocalKeySource(requiredEnv('REPLAY_KEYS_DIR', env), env) : new SecretsManagerPairingCheck(new SecretsManagerClient({}));
