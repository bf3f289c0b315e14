// The snapshot compactor's AWS wiring, built once per cold start from the environment the stack sets. It
// reads and writes whole snapshots (tens of MB for a big space): its data bucket gets the bulk limits.
import { systemClock } from '../../shared/ports.ts';
import { bundledConfig, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { S3ObjectStore, s3Client } from '../../shared/adapters/aws/s3-object-store.ts';
import { DynamoLeaseStore } from '../../shared/adapters/aws/dynamo-lease.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { AWS_CALLS } from '../../shared/operations.ts';
import { createSnapshotCompactorHandler } from './handler.ts';

const tableName = requiredEnv('TABLE_NAME');
const dynamo = dynamoClient({});
const store = new DynamoStore(dynamo, tableName);

export const handler = createSnapshotCompactorHandler(
  {
    config: bundledConfig(),
    runs: store,
    issues: store,
    objects: new S3ObjectStore(s3Client({}, AWS_CALLS.bulk), requiredEnv('DATA_BUCKET'), AWS_CALLS.bulk),
    leases: new DynamoLeaseStore(dynamo, tableName),
    clock: systemClock,
  },
  instrumentation('snapshot-compactor'),
);
