// Builds the AWS adapters from explicit settings. A Lambda's default wiring reads the settings from its
// environment once per cold start (`awsSettingsFromEnv`); local mode passes its emulators' endpoints and
// credentials instead, so several local modes can share one process and nothing writes `process.env`.
// Each factory creates only the SDK client it needs, so a function's bundle carries only those clients. The
// table store's factory (`tableStore`) lives beside the store: @aws-sdk/lib-dynamodb is not marked free of
// side effects, so importing it here would put the DynamoDB client into every bundle, ingest's included.
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { BUNDLED_CONFIG_FILE, readConfigFile, type ReplayConfig } from '../../schema/config.ts';
import type { KeySource, MessageQueue, PairingCheck } from '../../ports.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import { SecretsManagerKeySource, SecretsManagerPairingCheck } from './secrets-key-source.ts';
import { SqsQueue } from './sqs-queue.ts';

/** Where the SDK clients connect. Empty in AWS: the SDK's own defaults (region, role credentials). */
export interface AwsConnection {
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  endpoints?: { dynamodb?: string; s3?: string; sqs?: string; secretsManager?: string };
  /** Emulators: path-style bucket addressing and integrity checksums only where S3 requires them. */
  s3Emulated?: boolean;
}

export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set.`);
  return value;
}

/**
 * The configuration a deployed function runs with: the file the deployment bundled beside its code (an
 * environment variable holds 4 KB, too little for 200 spaces). Local mode passes its configuration directly.
 */
export const bundledConfig = (file: URL = new URL(BUNDLED_CONFIG_FILE, import.meta.url)): ReplayConfig => readConfigFile(fileURLToPath(file));

const base = (connection: AwsConnection, endpoint: string | undefined) => ({
  region: connection.region,
  credentials: connection.credentials,
  endpoint,
});

export const dynamoClient = (connection: AwsConnection) => new DynamoDBClient(base(connection, connection.endpoints?.dynamodb));

export const s3Client = (connection: AwsConnection) =>
  new S3Client({
    ...base(connection, connection.endpoints?.s3),
    forcePathStyle: connection.s3Emulated,
    ...(connection.s3Emulated ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
  });

// Requests go to the configured or regional endpoint with the queue URL as a parameter, so emulators whose
// queue URLs name an unresolvable host behave like AWS.
export const sqsClient = (connection: AwsConnection) => new SQSClient({ ...base(connection, connection.endpoints?.sqs), useQueueUrlAsEndpoint: false });

export const bucketStore = (client: S3Client, bucket: string) => new S3ObjectStore(client, bucket);

export const queue = <T>(client: SQSClient, queueUrl: string): MessageQueue<T> => new SqsQueue<T>(client, queueUrl);

const secretsClient = (connection: AwsConnection) => new SecretsManagerClient(base(connection, connection.endpoints?.secretsManager));

/** Host keys from Secrets Manager (local mode passes its own key source instead). */
export const keySource = (connection: AwsConnection): KeySource => new SecretsManagerKeySource(secretsClient(connection));

/** Whether a host has a key, for the read API, which may never read key values. */
export const pairingCheck = (connection: AwsConnection): PairingCheck => new SecretsManagerPairingCheck(secretsClient(connection));
