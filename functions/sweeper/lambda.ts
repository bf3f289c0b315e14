// The sweeper in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start.
import { instrumentation } from '#adapters/aws/observability.ts';
import { systemClock } from '#core/ports.ts';
import { awsConfig, awsJudgeQueue, awsTable } from '../aws-resources.ts';
import { createSweeperHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createSweeperHandler(
  wire({ config: awsConfig(), table: awsTable(), judgeQueue: awsJudgeQueue(), clock: systemClock }),
  instrumentation('sweeper'),
);
