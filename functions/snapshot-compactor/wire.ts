// The snapshot compactor's dependencies, in AWS and in local mode alike (functions/platform-resources.ts).
import type { SnapshotDeps } from '../../shared/core/read/snapshot-store.ts';
import type { LeaseStore } from '../../shared/ports.ts';
import type { ReplayConfig } from '../../shared/schema/config.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (
  r: Pick<PlatformResources, 'config' | 'table' | 'bulkData' | 'leases' | 'clock'>,
): SnapshotDeps & { config: ReplayConfig; leases: LeaseStore } => ({
  config: r.config,
  runs: r.table,
  issues: r.table,
  objects: r.bulkData,
  leases: r.leases,
  clock: r.clock,
});
