// EventBridge schedule → the sweeper: due judge retries, next-day budget and held spaces' probes go back
// on the judge queue. A sweep that could not send everything fails after sending the rest, and the next one redoes
// it. `lambda.ts` wires AWS.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { sweep, type SweepDeps } from '#core/judge/sweep.ts';
import { METRICS } from '#core/operations.ts';
import { instrumented, type Instrumentation, type LambdaHandler } from '#adapters/aws/observability.ts';

export type SweeperHandler = LambdaHandler<ScheduledEvent, void>;

export function createSweeperHandler(deps: SweepDeps, instrumentation: Instrumentation): SweeperHandler {
  const { logger, metrics } = instrumentation;
  return instrumented(instrumentation, async () => {
    const results = await sweep(deps);
    for (const result of results) {
      metrics.addMetric(METRICS.runsRequeued, MetricUnit.Count, result.queued);
      if (result.failures) logger.error('sweep of a space incomplete', { ...result });
      else if (result.queued) logger.info('queued due runs for the judge', { ...result });
    }
    // Failed once everything else went, so the failing-sweeper alarm counts it.
    const failed = results.flatMap(({ space, failures }) => (failures ? [`${space} (${failures.join('; ')})`] : []));
    if (failed.length > 0) throw new Error(`The sweep was incomplete: ${failed.join(', ')}.`);
  });
}
