// EventBridge schedule → every space's persisted runs snapshot brought up to date (core/read/snapshot-store.ts):
// the one writer of the snapshot objects, one run at a time under a lease (core/lease.ts): a run that
// starts while the last one still works steps aside. A failed compaction is simply redone by the next one;
// readers meanwhile read the previous snapshot plus the table's `since` delta. `lambda.ts` wires AWS.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { compactSpace, type SnapshotDeps } from '#core/read/snapshot-store.ts';
import type { ReplayConfig } from '#schema/config.ts';
import { LEASES, METRICS } from '#core/operations.ts';
import type { LeaseStore } from '#core/ports.ts';
import { withLease } from '#core/lease.ts';
import { flushMetrics, type Instrumentation } from '#adapters/aws/observability.ts';

export type SnapshotCompactorHandler = (event: ScheduledEvent) => Promise<void>;

export function createSnapshotCompactorHandler(
  deps: SnapshotDeps & { config: ReplayConfig; leases: LeaseStore },
  { logger, metrics }: Instrumentation,
): SnapshotCompactorHandler {
  return async () => {
    const run = await withLease(deps.leases, deps.clock, LEASES.snapshotCompactor, () =>
      compactAll(deps, { logger, metrics }),
    );
    if (!run.ran) logger.info('an earlier compaction still holds the lease; this run steps aside');
  };
}

async function compactAll(
  deps: SnapshotDeps & { config: ReplayConfig },
  { logger, metrics }: Instrumentation,
): Promise<void> {
  try {
    for (const space of Object.keys(deps.config.spaces)) {
      const result = await compactSpace(deps, space);
      metrics.addMetric(METRICS.snapshotRunsChanged, MetricUnit.Count, result.changed);
      // A missing snapshot is how every space starts; a corrupt one is worth a look.
      if (result.source === 'corrupt') {
        metrics.addMetric(METRICS.snapshotRebuilt, MetricUnit.Count, 1);
        logger.warn('snapshot was unusable and is rebuilt from the table', { ...result });
      } else if (result.superseded)
        logger.info('another compaction replaced the manifest first; this one is dropped', { ...result });
      else if (result.written)
        logger.info(result.source === 'missing' ? 'snapshot created' : 'snapshot compacted', { ...result });
    }
  } finally {
    flushMetrics(metrics);
  }
}
