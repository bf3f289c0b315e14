// The ingest function's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type LandingMessage } from '../../shared/ports.ts';
import { bundledConfig, hostKeySecretPrefix, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { S3ObjectStore, s3Client } from '../../shared/adapters/aws/s3-object-store.ts';
import { SqsQueue, sqsClient } from '../../shared/adapters/aws/sqs-queue.ts';
import { secretsManagerClient } from '../../shared/adapters/aws/secret-values.ts';
import { SecretsManagerKeySource } from '../../shared/adapters/aws/secrets-key-source.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { rememberingMissingKeys } from '../../shared/core/ingest/missing-keys.ts';
import { createIngestHandler } from './handler.ts';

const s3 = s3Client({});
const sqs = sqsClient({});
const secrets = secretsManagerClient({});
const table = new DynamoStore(dynamoClient({}), requiredEnv('TABLE_NAME'));

export const handler = createIngestHandler(
  {
    config: bundledConfig(),
    keys: rememberingMissingKeys(new SecretsManagerKeySource(secrets, hostKeySecretPrefix()), systemClock),
    inbox: new S3ObjectStore(s3, requiredEnv('INBOX_BUCKET')),
    landingQueue: new SqsQueue<LandingMessage>(sqs, requiredEnv('LANDING_QUEUE_URL')),
    runs: table,
    issueOwners: table,
    clock: systemClock,
  },
  instrumentation('ingest'),
);
