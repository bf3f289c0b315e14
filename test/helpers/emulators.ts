// Real emulators for adapter tests: the same ones local mode starts, with the adapters pointed at them
// through local mode's own connection. Under jest the servers are this worker's shared set
// (shared-emulators.ts) and the table, buckets and queues this file's own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { S3ObjectStore } from '#adapters/aws/s3-object-store.ts';
import { startEmulators, type Emulators } from '#infra/local/emulators.ts';
import type { LandingDeps } from '#core/landing/land.ts';
import type { Clock, JudgeMessage, MessageQueue } from '#core/ports.ts';
import { sharedEmulators } from './shared-emulators.ts';

export interface TestStores {
  emulators: Emulators;
  store: DynamoStore;
  data: S3ObjectStore;
  inbox: S3ObjectStore;
  stop(): Promise<void>;
}

export async function startTestStores(): Promise<TestStores> {
  const dir = mkdtempSync(join(tmpdir(), 'replay-test-'));
  const queues = { visibilityTimeoutSeconds: 1, maxReceiveCount: 3 };
  const emulators = await startEmulators(dir, queues, sharedEmulators());
  const { timeouts, names } = emulators;
  const documents = dynamoClient(emulators.connection, timeouts);
  return {
    emulators,
    store: new DynamoStore(documents, names.table, timeouts),
    data: new S3ObjectStore(emulators.s3, names.dataBucket, timeouts),
    inbox: new S3ObjectStore(emulators.s3, names.inboxBucket, timeouts),
    async stop() {
      documents.destroy();
      await emulators.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The lander's dependencies on the test stores: the table for every record, the data bucket and the inbox. */
export const landingDepsOf = <Q extends MessageQueue<JudgeMessage>>(
  t: TestStores,
  clock: Clock,
  judgeQueue: Q,
): LandingDeps & { judgeQueue: Q } => ({
  runs: t.store,
  attempts: t.store,
  issues: t.store,
  hosts: t.store,
  objects: t.data,
  inbox: t.inbox,
  judgeQueue,
  clock,
});
