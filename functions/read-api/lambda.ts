// The read API in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start, Athena the
// engine above `engine.aboveRuns`; a private cockpit's function answers only its analysts' group (ANALYST_GROUP).
import { instrumentation } from '#adapters/aws/observability.ts';
import { LAMBDA_ANSWER_BYTES } from '#core/operations.ts';
import { systemClock } from '#core/ports.ts';
import { awsBulkData, awsConfig, awsDownloads, awsEngine, awsPairing, awsTable } from '../aws-resources.ts';
import { createReadApiHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createReadApiHandler(
  wire({
    config: awsConfig(),
    table: awsTable(),
    bulkData: awsBulkData(),
    downloads: awsDownloads(),
    engine: awsEngine(),
    pairing: awsPairing(),
    answerBytes: LAMBDA_ANSWER_BYTES,
    clock: systemClock,
  }),
  instrumentation('read-api'),
  process.env.ANALYST_GROUP,
);
