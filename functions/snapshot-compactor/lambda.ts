// The snapshot compactor's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock } from '../../shared/ports.ts';
import { bucketStore, bundledConfig, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { tableStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { tableLeases } from '../../shared/adapters/aws/dynamo-lease.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createSnapshotCompactorHandler } from './handler.ts';

const tableName = requiredEnv('TABLE_NAME');
const store = tableStore({}, tableName);

export const handler = createSnapshotCompactorHandler(
  {
    config: bundledConfig(),
    runs: store,
    issues: store,
    objects: bucketStore({}, requiredEnv('DATA_BUCKET')),
    leases: tableLeases({}, tableName),
    clock: systemClock,
  },
  instrumentation('snapshot-compactor'),
);
