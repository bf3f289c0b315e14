// EventBridge schedule → every space's persisted runs snapshot brought up to date (core/read/snapshot-store.ts):
// the one writer of the snapshot objects, one run at a time under a lease (core/lease.ts): a run that
// starts while the last one still works steps aside. A failed compaction is simply redone by the next one;
// readers meanwhile read the previous snapshot plus the table's `since` delta. `lambda.ts` wires AWS.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { compactSpace, type CompactionResult, type SnapshotDeps, type TimeLeft } from '#core/read/snapshot-store.ts';
import type { ReplayConfig } from '#schema/config.ts';
import { LEASES, METRICS } from '#core/operations.ts';
import type { LeaseStore } from '#core/ports.ts';
import { withLease } from '#core/lease.ts';
import { instrumented, type Instrumentation, type LambdaHandler } from '#adapters/aws/observability.ts';

export type SnapshotCompactorHandler = LambdaHandler<ScheduledEvent, void>;

export function createSnapshotCompactorHandler(
  deps: SnapshotDeps & { config: ReplayConfig; leases: LeaseStore },
  instrumentation: Instrumentation,
): SnapshotCompactorHandler {
  return instrumented(instrumentation, async (_event, context) => {
    // A rebuild stops short of the function's timeout, keeping how far it got (local mode's context has no limit).
    const timeLeft = context ? () => context.getRemainingTimeInMillis() : undefined;
    const run = await withLease(deps.leases, deps.clock, LEASES.snapshotCompactor, () =>
      compactAll(deps, instrumentation, timeLeft),
    );
    if (!run.ran) instrumentation.logger.info('an earlier compaction still holds the lease; this run steps aside');
  });
}

/** Every space, whatever fails before it: one space's failure never keeps the others' snapshots stale. */
async function compactAll(
  deps: SnapshotDeps & { config: ReplayConfig },
  { logger, metrics }: Instrumentation,
  timeLeft: TimeLeft | undefined,
): Promise<void> {
  const failed: string[] = [];
  for (const space of Object.keys(deps.config.spaces)) {
    let result: CompactionResult;
    try {
      result = await compactSpace(deps, space, undefined, undefined, timeLeft);
    } catch (error) {
      logger.error('compaction of a space failed', { space, error: error as Error });
      failed.push(space);
      continue;
    }
    metrics.addMetric(METRICS.snapshotRunsChanged, MetricUnit.Count, result.changed);
    // A missing snapshot is how every space starts; a corrupt one is worth a look.
    if (result.source === 'corrupt') {
      metrics.addMetric(METRICS.snapshotRebuilt, MetricUnit.Count, 1);
      logger.warn('snapshot was unusable and is rebuilt from the table', { ...result });
    } else if (result.superseded)
      logger.info('another compaction replaced the manifest first; this one is dropped', { ...result });
    else if (result.kind === 'rebuilding')
      logger.info('the rebuild stopped short of the time limit; the next compaction goes on', { ...result });
    else if (result.written)
      logger.info(result.source === 'missing' ? 'snapshot created' : 'snapshot compacted', { ...result });
  }
  // Failing the run raises the compactor's alarm, once every other space is done.
  if (failed.length > 0) throw new Error(`The compaction was incomplete: ${failed.join(', ')}.`);
}
