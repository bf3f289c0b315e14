// EventBridge schedule → accepted deliveries that outlived their queue message go back on the landing queue
// (core/landing/reconcile-inbox.ts), one run at a time under a lease. A failed run is redone by the next
// one. `lambda.ts` wires AWS.
import type { ScheduledEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { reconcileInbox, type ReconcileDeps } from '#core/landing/reconcile-inbox.ts';
import { LEASES, METRICS } from '#core/operations.ts';
import type { LeaseStore } from '#core/ports.ts';
import { withLease } from '#core/lease.ts';
import { instrumented, type Instrumentation, type LambdaHandler } from '#adapters/aws/observability.ts';

export type InboxReconcilerHandler = LambdaHandler<ScheduledEvent, void>;

export function createInboxReconcilerHandler(
  deps: ReconcileDeps & { leases: LeaseStore },
  instrumentation: Instrumentation,
): InboxReconcilerHandler {
  const { logger, metrics } = instrumentation;
  return instrumented(instrumentation, async () => {
    const run = await withLease(deps.leases, deps.clock, LEASES.inboxReconciler, () => reconcileInbox(deps));
    if (!run.ran) return logger.info('an earlier reconciliation still holds the lease; this run steps aside');
    const { stale, reenqueued, deadLettered, foreign } = run.value;
    metrics.addMetric(METRICS.inboxReenqueued, MetricUnit.Count, reenqueued);
    metrics.addMetric(METRICS.inboxDeadLettered, MetricUnit.Count, deadLettered);
    if (stale) logger.warn('accepted deliveries outlived their queue message', { stale, reenqueued, deadLettered });
    if (foreign.length) logger.warn('inbox keys no ingest wrote are left alone', { foreign: foreign.length });
  });
}
