// The judge in AWS: its wiring (wire.ts) over the deployment's resources, once per cold start.
import { instrumentation } from '#adapters/aws/observability.ts';
import { systemClock } from '#core/ports.ts';
import { awsConfig, awsData, awsSecrets, awsTable } from '../aws-resources.ts';
import { createJudgeHandler } from './handler.ts';
import { wire } from './wire.ts';

export const handler = createJudgeHandler(
  wire(
    { config: awsConfig(), table: awsTable(), data: awsData(), secrets: awsSecrets(), clock: systemClock },
    process.env,
  ),
  instrumentation('judge'),
);
