// EventBridge schedule → the sweeper: due judge retries, next-day budget and held spaces' probes go back
// on the judge queue. A failed sweep is simply redone by the next one. `lambda.ts` wires AWS.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { sweep, type SweepDeps } from '#core/judge/sweep.ts';
import { METRICS } from '#core/operations.ts';
import { instrumented, type Instrumentation, type LambdaHandler } from '#adapters/aws/observability.ts';

export type SweeperHandler = LambdaHandler<ScheduledEvent, void>;

export function createSweeperHandler(deps: SweepDeps, instrumentation: Instrumentation): SweeperHandler {
  const { logger, metrics } = instrumentation;
  return instrumented(instrumentation, async () => {
    for (const result of await sweep(deps)) {
      metrics.addMetric(METRICS.runsRequeued, MetricUnit.Count, result.queued);
      if (result.queued) logger.info('queued due runs for the judge', { ...result });
    }
  });
}
