// The read API's dependencies, in AWS and in local mode alike (functions/platform-resources.ts). It reads whole
// snapshots, so it takes the data bucket with the bulk timeouts.
import type { ReadDeps } from '#core/read/read-deps.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (
  r: Pick<
    PlatformResources,
    'config' | 'table' | 'bulkData' | 'downloads' | 'pairing' | 'engine' | 'answerBytes' | 'clock'
  >,
): ReadDeps => ({
  config: r.config,
  runs: r.table,
  attempts: r.table,
  issues: r.table,
  hosts: r.table,
  objects: r.bulkData,
  ...(r.downloads ? { downloads: r.downloads } : {}),
  ...(r.engine ? { engine: r.engine } : {}),
  pairing: r.pairing,
  budget: r.table,
  clock: r.clock,
  ...(r.answerBytes === undefined ? {} : { maxAnswerBytes: r.answerBytes }),
});
