// The inbox reconciler's dependencies, in AWS and in local mode alike (functions/platform-resources.ts).
import type { ReconcileDeps } from '#core/landing/reconcile-inbox.ts';
import type { LeaseStore } from '#core/ports.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (
  r: Pick<PlatformResources, 'inbox' | 'landingQueue' | 'landingDeadLetters' | 'reenqueueLedger' | 'leases' | 'clock'>,
): ReconcileDeps & { leases: LeaseStore } => ({
  inbox: r.inbox,
  landingQueue: r.landingQueue,
  landingDeadLetters: r.landingDeadLetters,
  ledger: r.reenqueueLedger,
  leases: r.leases,
  clock: r.clock,
});
