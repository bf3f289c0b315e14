// The sweeper's dependencies, in AWS and in local mode alike (functions/platform-resources.ts).
import type { SweepDeps } from '#core/judge/sweep.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (r: Pick<PlatformResources, 'config' | 'table' | 'judgeQueue' | 'clock'>): SweepDeps => ({
  config: r.config,
  runs: r.table,
  judging: r.table,
  batches: r.table,
  judgeQueue: r.judgeQueue,
  clock: r.clock,
});
