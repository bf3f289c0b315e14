// EventBridge schedule → the sweeper: due judge retries, next-day budget and held spaces' probes go back
// on the judge queue. A failed sweep is simply redone by the next one.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { sweep } from '../../shared/judge/sweep.ts';
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { configFromEnv, queue, tableStore } from '../../shared/adapters/aws/runtime.ts';
import { flushMetrics, observability } from '../../shared/adapters/aws/observability.ts';

const { logger, metrics } = observability('sweeper');
const store = tableStore();
const deps = { config: configFromEnv(), runs: store, judging: store, judgeQueue: queue<JudgeMessage>('JUDGE_QUEUE_URL'), clock: systemClock };

export async function handler(_event: ScheduledEvent): Promise<void> {
  try {
    for (const result of await sweep(deps)) {
      metrics.addMetric('RunsRequeued', MetricUnit.Count, result.queued);
      if (result.queued) logger.info('queued due runs for the judge', { ...result });
    }
  } finally {
    flushMetrics(metrics);
  }
}
