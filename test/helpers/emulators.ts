// Real emulators for adapter tests: the same ones local mode starts, in a temp dir, with the adapters
// pointed at them through local mode's own connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { S3ObjectStore } from '../../shared/adapters/aws/s3-object-store.ts';
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
  const { timeouts } = emulators;
  const documents = dynamoClient(emulators.connection, timeouts);
  return {
    emulators,
    store: new DynamoStore(documents, LOCAL_NAMES.table, timeouts),
    data: new S3ObjectStore(emulators.s3, LOCAL_NAMES.dataBucket, timeouts),
    inbox: new S3ObjectStore(emulators.s3, LOCAL_NAMES.inboxBucket, timeouts),
    async stop() {
      documents.destroy();
      await emulators.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
