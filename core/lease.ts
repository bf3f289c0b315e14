// Scheduled jobs that must not overlap (the snapshot compactor: two writers of one snapshot would race on
// its manifest) take a lease first: a conditional write that succeeds only when nobody holds the lease or
// the last holder's has expired. A run that finds it held steps aside; the next scheduled run catches up.
// The lease outlives the job's longest possible run (its function timeout), so a holder that crashed or
// was cut off frees it by expiry. Reserved concurrency would do the same with an account-wide cost, and
// an account whose concurrency quota is 10 cannot reserve any.
import { randomUUID } from 'node:crypto';
import type { Clock, LeaseStore } from './ports.ts';

export interface Lease {
  name: string;
  /** How long a holder may keep it: longer than the job can run. */
  seconds: number;
}

export type LeasedRun<T> = { ran: true; value: T } | { ran: false };

/** Runs `work` while holding the lease, or not at all when another run holds it. */
export async function withLease<T>(
  leases: LeaseStore,
  clock: Clock,
  lease: Lease,
  work: () => Promise<T>,
): Promise<LeasedRun<T>> {
  const holder = randomUUID();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + lease.seconds * 1000);
  if (!(await leases.acquireLease(lease.name, holder, now, expiresAt))) return { ran: false };
  try {
    return { ran: true, value: await work() };
  } finally {
    await leases.releaseLease(lease.name, holder);
  }
}
