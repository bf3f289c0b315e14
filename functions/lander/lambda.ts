// The lander in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start.
import { instrumentation } from '#adapters/aws/observability.ts';
import { systemClock } from '#core/ports.ts';
import { awsData, awsInbox, awsJudgeQueue, awsTable } from '../aws-resources.ts';
import { createLanderHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createLanderHandler(
  wire({ table: awsTable(), data: awsData(), inbox: awsInbox(), judgeQueue: awsJudgeQueue(), clock: systemClock }),
  instrumentation('lander'),
);
