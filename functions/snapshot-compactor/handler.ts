// EventBridge schedule → every space's persisted runs snapshot brought up to date (shared/read/snapshot-store.ts):
// the one writer of the snapshot objects. A failed compaction is simply redone by the next one; readers
// meanwhile read the previous snapshot plus the table's `since` delta.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { compactSpace } from '../../shared/read/snapshot-store.ts';
import { systemClock } from '../../shared/ports.ts';
import { bucketStore, configFromEnv, tableStore } from '../../shared/adapters/aws/runtime.ts';
import { flushMetrics, observability } from '../../shared/adapters/aws/observability.ts';

const { logger, metrics } = observability('snapshot-compactor');
const config = configFromEnv();
const deps = { runs: tableStore(), objects: bucketStore('DATA_BUCKET'), clock: systemClock };

export async function handler(_event: ScheduledEvent): Promise<void> {
  try {
    for (const space of Object.keys(config.spaces)) {
      const result = await compactSpace(deps, space);
      metrics.addMetric('SnapshotRunsChanged', MetricUnit.Count, result.changed);
      if (result.source !== 'persisted') logger.warn('snapshot rebuilt from the table', { ...result });
      else if (result.written) logger.info('snapshot compacted', { ...result });
    }
  } finally {
    flushMetrics(metrics);
  }
}
