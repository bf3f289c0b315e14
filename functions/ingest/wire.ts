// The ingest handler's dependencies, in AWS and in local mode alike (functions/platform-resources.ts).
import { rememberingMissingKeys } from '#core/ingest/missing-keys.ts';
import type { IngestDeps } from '#core/ingest/accept-delivery.ts';
import type { PlatformResources } from '../platform-resources.ts';

export const wire = (
  r: Pick<
    PlatformResources,
    'config' | 'hostKeys' | 'inbox' | 'landingQueue' | 'landingMessageMaxBytes' | 'objectKeyFits' | 'table' | 'clock'
  >,
): IngestDeps => ({
  config: r.config,
  keys: rememberingMissingKeys(r.hostKeys, r.clock),
  inbox: r.inbox,
  landingQueue: r.landingQueue,
  landingMessageMaxBytes: r.landingMessageMaxBytes,
  objectKeyFits: r.objectKeyFits,
  runs: r.table,
  issueOwners: r.table,
  clock: r.clock,
});
