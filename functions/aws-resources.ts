// A deployed function's resources, from the environment the stack sets and the configuration bundled beside
// its code: one factory per resource, each building it on first use and keeping it, so a function's bundle
// holds, and its cold start creates, only the SDK clients its `lambda.ts` asks for.
import { AthenaEngine, athenaClient } from '#adapters/aws/athena-engine.ts';
import { DynamoLeaseStore } from '#adapters/aws/dynamo-lease.ts';
import { DynamoReenqueueLedger } from '#adapters/aws/dynamo-reenqueue-ledger.ts';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { bundledConfig, hostKeySecretPrefix, requiredEnv } from '#adapters/aws/runtime.ts';
import { S3LinkedDownloads } from '#adapters/aws/s3-linked-downloads.ts';
import { S3ObjectStore, s3Client } from '#adapters/aws/s3-object-store.ts';
import { SecretValues, secretsManagerClient } from '#adapters/aws/secret-values.ts';
import { SecretsManagerKeySource, SecretsManagerPairingCheck } from '#adapters/aws/secrets-key-source.ts';
import { SqsQueue, sqsClient } from '#adapters/aws/sqs-queue.ts';
import { AWS_CALLS } from '#core/operations.ts';
import type { JudgeQueueMessage, LandingMessage } from '#core/ports.ts';
import type { ReplayConfig } from '#schema/config.ts';

// Plain functions and variables rather than a table of closures: the bundler drops the ones a function never calls.
let config: ReplayConfig | undefined;
let dynamo: ReturnType<typeof dynamoClient> | undefined;
let s3: ReturnType<typeof s3Client> | undefined;
let bulkS3: ReturnType<typeof s3Client> | undefined;
let sqs: ReturnType<typeof sqsClient> | undefined;
let secretsManager: ReturnType<typeof secretsManagerClient> | undefined;
let table: DynamoStore | undefined;
let engine: AthenaEngine | undefined;

export function awsConfig(): ReplayConfig {
  return (config ??= bundledConfig());
}

export function awsTable(): DynamoStore {
  return (table ??= new DynamoStore((dynamo ??= dynamoClient({})), requiredEnv('TABLE_NAME')));
}

export function awsLeases(): DynamoLeaseStore {
  return new DynamoLeaseStore((dynamo ??= dynamoClient({})), requiredEnv('TABLE_NAME'));
}

export function awsReenqueueLedger(): DynamoReenqueueLedger {
  return new DynamoReenqueueLedger((dynamo ??= dynamoClient({})), requiredEnv('TABLE_NAME'));
}

export function awsInbox(): S3ObjectStore {
  return new S3ObjectStore((s3 ??= s3Client({})), requiredEnv('INBOX_BUCKET'));
}

export function awsData(): S3ObjectStore {
  return new S3ObjectStore((s3 ??= s3Client({})), requiredEnv('DATA_BUCKET'));
}

/** The data bucket for readers and writers of whole snapshots (tens of MB for a big space): the bulk limits. */
export function awsBulkData(): S3ObjectStore {
  return new S3ObjectStore((bulkS3 ??= s3Client({}, AWS_CALLS.bulk)), requiredEnv('DATA_BUCKET'), AWS_CALLS.bulk);
}

export function awsDownloads(): S3LinkedDownloads {
  return new S3LinkedDownloads((bulkS3 ??= s3Client({}, AWS_CALLS.bulk)), requiredEnv('DATA_BUCKET'));
}

export function awsLandingQueue(): SqsQueue<LandingMessage> {
  return new SqsQueue<LandingMessage>((sqs ??= sqsClient({})), requiredEnv('LANDING_QUEUE_URL'));
}

export function awsLandingDeadLetters(): SqsQueue<LandingMessage> {
  return new SqsQueue<LandingMessage>((sqs ??= sqsClient({})), requiredEnv('LANDING_DLQ_URL'));
}

export function awsJudgeQueue(): SqsQueue<JudgeQueueMessage> {
  return new SqsQueue<JudgeQueueMessage>((sqs ??= sqsClient({})), requiredEnv('JUDGE_QUEUE_URL'));
}

export function awsHostKeys(): SecretsManagerKeySource {
  return new SecretsManagerKeySource((secretsManager ??= secretsManagerClient({})), hostKeySecretPrefix());
}

export function awsPairing(): SecretsManagerPairingCheck {
  return new SecretsManagerPairingCheck((secretsManager ??= secretsManagerClient({})), hostKeySecretPrefix());
}

export function awsSecrets(): SecretValues {
  return new SecretValues((secretsManager ??= secretsManagerClient({})));
}

/** The analytics engine over the run dataset: Athena, in the function's own workgroup, over the Glue table. */
export function awsEngine(): AthenaEngine {
  return (engine ??= new AthenaEngine(athenaClient({}), awsBulkData(), {
    workGroup: requiredEnv('ATHENA_WORKGROUP'),
    dataBucket: requiredEnv('DATA_BUCKET'),
    database: requiredEnv('GLUE_DATABASE'),
    table: requiredEnv('GLUE_TABLE'),
  }));
}
