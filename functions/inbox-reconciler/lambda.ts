// The inbox reconciler in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start.
import { instrumentation } from '#adapters/aws/observability.ts';
import { systemClock } from '#core/ports.ts';
import { awsInbox, awsLandingDeadLetters, awsLandingQueue, awsLeases, awsReenqueueLedger } from '../aws-resources.ts';
import { createInboxReconcilerHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createInboxReconcilerHandler(
  wire({
    inbox: awsInbox(),
    landingQueue: awsLandingQueue(),
    landingDeadLetters: awsLandingDeadLetters(),
    reenqueueLedger: awsReenqueueLedger(),
    leases: awsLeases(),
    clock: systemClock,
  }),
  instrumentation('inbox-reconciler'),
);
