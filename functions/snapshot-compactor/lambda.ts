// The snapshot compactor in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start.
import { instrumentation } from '#adapters/aws/observability.ts';
import { systemClock } from '#core/ports.ts';
import { awsBulkData, awsConfig, awsLeases, awsTable } from '../aws-resources.ts';
import { createSnapshotCompactorHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createSnapshotCompactorHandler(
  wire({ config: awsConfig(), table: awsTable(), bulkData: awsBulkData(), leases: awsLeases(), clock: systemClock }),
  instrumentation('snapshot-compactor'),
);
