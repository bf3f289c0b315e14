// The lander's dependencies, in AWS and in local mode alike (functions/platform-resources.ts).
import type { LandingDeps } from '#core/landing/land.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (r: Pick<PlatformResources, 'table' | 'data' | 'inbox' | 'judgeQueue' | 'clock'>): LandingDeps => ({
  runs: r.table,
  attempts: r.table,
  issues: r.table,
  hosts: r.table,
  objects: r.data,
  inbox: r.inbox,
  judgeQueue: r.judgeQueue,
  clock: r.clock,
});
