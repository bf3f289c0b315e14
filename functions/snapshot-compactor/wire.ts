// The snapshot compactor's dependencies, in AWS and in local mode alike (functions/platform-resources.ts).
import type { SnapshotDeps } from '#core/read/snapshot-store.ts';
import type { LeaseStore } from '#core/ports.ts';
import type { ReplayConfig } from '#schema/config.ts';
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
