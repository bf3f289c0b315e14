// Real emulators for adapter tests: the same ones local mode starts, in a temp dir, with clients pointed at them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store.ts';
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
  const { env } = emulators;
  const credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! };
  const dynamo = new DynamoDBClient({ region: env.AWS_REGION, endpoint: env.AWS_ENDPOINT_URL_DYNAMODB, credentials });
  const s3 = new S3Client({
    region: env.AWS_REGION,
    endpoint: env.AWS_ENDPOINT_URL_S3,
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    emulators,
    store: new DynamoStore(dynamo, LOCAL_NAMES.table),
    data: new S3ObjectStore(s3, LOCAL_NAMES.dataBucket),
    inbox: new S3ObjectStore(s3, LOCAL_NAMES.inboxBucket),
    async stop() {
      await emulators.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
