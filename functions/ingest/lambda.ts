// The ingest function in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start.
import { instrumentation } from '#adapters/aws/observability.ts';
import { systemClock } from '#core/ports.ts';
import { LANDING_MESSAGE_MAX_BYTES } from '#schema/messages.ts';
import { awsConfig, awsHostKeys, awsInbox, awsLandingQueue, awsTable } from '../aws-resources.ts';
import { createIngestHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createIngestHandler(
  wire({
    config: awsConfig(),
    hostKeys: awsHostKeys(),
    inbox: awsInbox(),
    landingQueue: awsLandingQueue(),
    landingMessageMaxBytes: LANDING_MESSAGE_MAX_BYTES,
    table: awsTable(),
    clock: systemClock,
  }),
  instrumentation('ingest'),
);
