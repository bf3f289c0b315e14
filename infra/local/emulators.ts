// The AWS stand-ins local mode starts in-process (in a worker thread): dynalite (DynamoDB wire protocol,
// LevelDB on disk), s3rver (S3 wire protocol, files on disk) and fauxqs (SQS JSON protocol with visibility
// timeouts, receive counts and DLQ redrive; in memory, so the durable inbox is replayed on start). This
// module then creates the table, buckets and queues through the AWS SDK, as the CDK stack does in AWS.
import { Worker } from 'node:worker_threads';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { INDEXES, TABLE_KEYS } from '../../shared/adapters/aws/table-layout.ts';
import type { EmulatorPorts } from './emulator-servers.ts';

export const LOCAL_NAMES = {
  table: 'replay-bench',
  inboxBucket: 'replay-inbox',
  dataBucket: 'replay-data',
  landingQueue: 'replay-landing',
  judgeQueue: 'replay-judge',
} as const;

export interface QueueSettings {
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

export interface Emulators {
  env: Record<string, string>;
  queueUrls: { landing: string; judge: string; landingDlq: string; judgeDlq: string };
  stop(): Promise<void>;
}

export async function startEmulators(dataDir: string, queues: QueueSettings): Promise<Emulators> {
  // The worker registers tsx itself, so its TypeScript entry loads whichever way this process was started.
  const entry = new URL('./emulator-servers.ts', import.meta.url).href;
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { dataDir } });
  const ports = await new Promise<EmulatorPorts>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });

  const env: Record<string, string> = {
    AWS_REGION: 'us-east-1',
    // s3rver accepts only its own fixed credentials; the other emulators accept any.
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${ports.dynamodb}`,
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${ports.s3}`,
    AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${ports.sqs}`,
    // s3rver predates the SDK's default integrity checksums.
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    S3_FORCE_PATH_STYLE: 'true',
    TABLE_NAME: LOCAL_NAMES.table,
    INBOX_BUCKET: LOCAL_NAMES.inboxBucket,
    DATA_BUCKET: LOCAL_NAMES.dataBucket,
  };
  const clientConfig = { region: env.AWS_REGION, credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! } };

  await createTable(new DynamoDBClient({ ...clientConfig, endpoint: env.AWS_ENDPOINT_URL_DYNAMODB }));
  const s3Client = new S3Client({ ...clientConfig, endpoint: env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
  for (const bucket of [LOCAL_NAMES.inboxBucket, LOCAL_NAMES.dataBucket]) {
    await s3Client.send(new CreateBucketCommand({ Bucket: bucket })).catch((e: { name?: string }) => {
      if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
    });
  }
  const sqsClient = new SQSClient({ ...clientConfig, endpoint: env.AWS_ENDPOINT_URL_SQS, useQueueUrlAsEndpoint: false });
  const landing = await createQueueWithDlq(sqsClient, LOCAL_NAMES.landingQueue, queues);
  const judge = await createQueueWithDlq(sqsClient, LOCAL_NAMES.judgeQueue, queues);
  env.LANDING_QUEUE_URL = landing.url;
  env.JUDGE_QUEUE_URL = judge.url;

  return {
    env,
    queueUrls: { landing: landing.url, judge: judge.url, landingDlq: landing.dlqUrl, judgeDlq: judge.dlqUrl },
    async stop() {
      const stopped = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}

async function createTable(client: DynamoDBClient): Promise<void> {
  const indexes = Object.values(INDEXES);
  const attributes = new Set<string>([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: LOCAL_NAMES.table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: indexes.map((i) => ({
          IndexName: i.name,
          KeySchema: [
            { AttributeName: i.partitionKey, KeyType: 'HASH' },
            { AttributeName: i.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: i.projection },
        })),
      }),
    );
  } catch (e) {
    if (!(e instanceof ResourceInUseException)) throw e;
  }
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: LOCAL_NAMES.table }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function createQueueWithDlq(client: SQSClient, name: string, settings: QueueSettings): Promise<{ url: string; dlqUrl: string }> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: settings.maxReceiveCount }),
      },
    }),
  );
  return { url: queue.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}
