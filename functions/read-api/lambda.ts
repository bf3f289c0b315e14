// The read API's AWS wiring, built once per cold start from the environment the stack sets. Its data bucket
// holds whole snapshots (tens of MB for a big space): those reads get the bulk limits.
import { systemClock } from '../../shared/ports.ts';
import { bundledConfig, hostKeySecretPrefix, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { S3LinkedDownloads } from '../../shared/adapters/aws/s3-linked-downloads.ts';
import { S3ObjectStore, s3Client } from '../../shared/adapters/aws/s3-object-store.ts';
import { secretsManagerClient } from '../../shared/adapters/aws/secret-values.ts';
import { SecretsManagerPairingCheck } from '../../shared/adapters/aws/secrets-key-source.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { AWS_CALLS, LAMBDA_ANSWER_BYTES } from '../../shared/operations.ts';
import { createReadApiHandler } from './handler.ts';

const store = new DynamoStore(dynamoClient({}), requiredEnv('TABLE_NAME'));
const data = s3Client({}, AWS_CALLS.bulk);

export const handler = createReadApiHandler(
  {
    config: bundledConfig(),
    runs: store,
    attempts: store,
    issues: store,
    hosts: store,
    objects: new S3ObjectStore(data, requiredEnv('DATA_BUCKET'), AWS_CALLS.bulk),
    downloads: new S3LinkedDownloads(data, requiredEnv('DATA_BUCKET')),
    pairing: new SecretsManagerPairingCheck(secretsManagerClient({}), hostKeySecretPrefix()),
    budget: store,
    clock: systemClock,
    maxAnswerBytes: LAMBDA_ANSWER_BYTES,
  },
  instrumentation('read-api'),
  process.env.ANALYST_GROUP,
);
