// Real emulators for adapter tests: the same ones local mode starts, in a temp dir, with the adapters
// pointed at them through local mode's own connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableStore, type DynamoStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { bucketStore } from '../../shared/adapters/aws/runtime.ts';
import type { S3ObjectStore } from '../../shared/adapters/aws/s3-object-store.ts';
import { LOCAL_NAMES, startEmulators, type Emulators } from '../../infra/local/emulators.ts';

export interface TestStores {
  emulators: Emulators;
  store: DynamoStore;
  data: S3ObjectStore;
  inbox: S3ObjectStore;
  stop(): Promise<void>;
}

export async function startTestStores(): Promise<TestStores> {
  const dir = mkdtempSync(join(tmpdir(), 'replay-test-'));
  const emulators = await startEmulators(dir, { visibilityTimeoutSeconds: 1, maxReceiveCount: 3 });
  return {
    emulators,
    store: tableStore(emulators.connection, LOCAL_NAMES.table),
    data: bucketStore(emulators.connection, LOCAL_NAMES.dataBucket),
    inbox: bucketStore(emulators.connection, LOCAL_NAMES.inboxBucket),
    async stop() {
      await emulators.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
