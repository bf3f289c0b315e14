// The AWS stand-ins local mode starts in-process (in a worker thread): dynalite (DynamoDB wire protocol,
// LevelDB on disk), s3rver (S3 wire protocol, files on disk) and fauxqs (SQS JSON protocol with visibility
// timeouts, receive counts and DLQ redrive; in memory, so the durable inbox is replayed on start). This
// module then creates the table, buckets and queues through the AWS SDK, as the CDK stack does in AWS. The
// functions' own adapters reach them through `connection`, built exactly as in AWS but for the endpoints.
import { randomBytes, randomInt } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  ScanCommand,
  type CreateTableCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { clientSettings, type AwsConnection } from '#adapters/aws/sdk-settings.ts';
import { s3Client } from '#adapters/aws/s3-object-store.ts';
import { sqsClient } from '#adapters/aws/sqs-queue.ts';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import { INDEXES, TABLE_KEYS, type TableIndex } from '#core/storage-layout.ts';
import type { EmulatorPorts, EmulatorWorkerData } from './emulator-servers.mjs';

/**
 * Whether the S3 emulator keeps an object under `key`: it keeps each part between slashes as a file name (255
 * bytes), the last with its longest suffix ("._S3rver_metadata.json") after it.
 */
export const s3rverKeyFits = (key: string): boolean => {
  const parts = key.split('/').map((part) => Buffer.byteLength(part));
  return parts.every((bytes) => bytes <= 255) && parts.at(-1)! + '._S3rver_metadata.json'.length <= 255;
};

export interface LocalNames {
  table: string;
  inboxBucket: string;
  dataBucket: string;
  landingQueue: string;
  judgeQueue: string;
}

export const LOCAL_NAMES: LocalNames = {
  table: 'replay-bench',
  inboxBucket: 'replay-inbox',
  dataBucket: 'replay-data',
  landingQueue: 'replay-landing',
  judgeQueue: 'replay-judge',
};

export interface QueueSettings {
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
}

export interface Emulators {
  /** How the adapters reach the emulators (endpoints, region, the local credentials). */
  connection: AwsConnection;
  /** The limits of a call to the emulators, for every client and adapter built on them. */
  timeouts: AwsCallTimeouts;
  /** The table, buckets and queues this local mode uses. */
  names: LocalNames;
  /** SDK clients for setting up, polling and the adapters, shared by everything in this local mode. */
  dynamo: DynamoDBClient;
  s3: S3Client;
  sqs: SQSClient;
  queueUrls: { landing: string; judge: string; landingDlq: string; judgeDlq: string };
  /** Where the S3 emulator keeps its buckets on disk (the analytics engine reads the run dataset there). */
  s3Directory: string;
  stop(): Promise<void>;
}

/** The three emulator servers, running in a worker thread, and how to reach them. */
export interface EmulatorServers {
  connection: AwsConnection;
  s3Directory: string;
  stop(): Promise<void>;
}

/** Emulator servers already running (a test runner shares one set), and the names of a local mode's resources. */
export interface RunningEmulators {
  connection: AwsConnection;
  s3Directory: string;
  names: LocalNames;
}

/**
 * Starts the emulators on `dataDir` and creates local mode's table, buckets and queues in them. Given
 * `running` servers, creates them there instead, under its names, and leaves the servers running at stop.
 */
export async function startEmulators(
  dataDir: string,
  queues: QueueSettings,
  running?: RunningEmulators,
): Promise<Emulators> {
  if (running) return openEmulators(running.connection, running.s3Directory, queues, running.names);
  const servers = await startEmulatorServers(dataDir);
  const emulators = await openEmulators(servers.connection, servers.s3Directory, queues, LOCAL_NAMES);
  return {
    ...emulators,
    async stop() {
      await servers.stop();
      await emulators.stop();
    },
  };
}

export async function startEmulatorServers(dataDir: string): Promise<EmulatorServers> {
  // Generated per start: only this process (and what it hands the connection to) can use the emulators.
  const credentials = { accessKeyId: randomAccessKeyId(), secretAccessKey: randomBytes(30).toString('base64url') };
  // A JavaScript entry: the worker does not take this process's TypeScript loader (`npm start` runs under tsx).
  const worker = new Worker(new URL('./emulator-servers.mjs', import.meta.url), {
    execArgv: [],
    workerData: { dataDir, credentials } satisfies EmulatorWorkerData,
  });
  const ports = await new Promise<EmulatorPorts>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // After start an emulator failure would otherwise pass unseen, leaving every later call refused.
  worker.on('error', (error) =>
    console.error(`local emulators stopped: ${error.name}: ${error.message}\n${error.stack ?? ''}`),
  );
  return {
    // As emulator-servers.mjs lays out its folders.
    s3Directory: join(dataDir, 's3'),
    connection: {
      region: 'us-east-1',
      credentials,
      endpoints: {
        dynamodb: `http://127.0.0.1:${ports.dynamodb}`,
        s3: `http://127.0.0.1:${ports.s3}`,
        sqs: `http://127.0.0.1:${ports.sqs}`,
      },
    },
    async stop() {
      const stopped = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}

/**
 * Creates the table, buckets and queues named `names` on running emulators, keeping any that exist (a
 * restart finds them on disk). Stopping the result closes its clients; the servers keep running.
 */
async function openEmulators(
  connection: AwsConnection,
  s3Directory: string,
  queues: QueueSettings,
  names: LocalNames,
): Promise<Emulators> {
  const timeouts = AWS_CALLS.emulated;
  const dynamo = new DynamoDBClient(clientSettings(connection, 'dynamodb', timeouts));
  await createTable(dynamo, names.table);
  const s3 = s3Client(connection, timeouts);
  for (const bucket of [names.inboxBucket, names.dataBucket]) {
    await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch((e: { name?: string }) => {
      if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
    });
  }
  const sqs = sqsClient(connection, timeouts);
  const landing = await createQueueWithDlq(sqs, names.landingQueue, queues);
  const judge = await createQueueWithDlq(sqs, names.judgeQueue, queues);

  return {
    connection,
    s3Directory,
    timeouts,
    names,
    dynamo,
    s3,
    sqs,
    queueUrls: { landing: landing.url, judge: judge.url, landingDlq: landing.dlqUrl, judgeDlq: judge.dlqUrl },
    async stop() {
      for (const client of [dynamo, s3, sqs]) client.destroy();
    },
  };
}

/** Shaped like an AWS access key id (20 upper-case letters and digits), random per start. */
const randomAccessKeyId = () =>
  `LOCAL${Array.from({ length: 15 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[randomInt(32)]).join('')}`;

/**
 * Creates the table with today's indexes, or keeps it. A table a data folder kept from before an index changed
 * (the narrower indexes of storage-layout.ts) is rebuilt with them, items kept: dynalite adds no index to a table.
 * Its items are copied to `<table>-previous` first and the table is deleted only once that copy is whole, so a
 * start interrupted at any step finishes the rebuild at the next one.
 */
async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const previous = `${tableName}-previous`;
  const existing = await indexesOf(client, tableName);
  const copied = await indexesOf(client, previous);
  if (copied !== null && existing !== null && existing !== wantedIndexes()) {
    // The copy was not known to be whole when the last start stopped: begin it again.
    await client.send(new DeleteTableCommand({ TableName: previous }));
    await untilTable(client, previous, 'gone');
  } else if (copied !== null) {
    await createEmptyTable(client, tableName, Object.values(INDEXES));
    await copyItems(client, previous, tableName);
    await client.send(new DeleteTableCommand({ TableName: previous }));
    return;
  }
  if (existing !== null && existing !== wantedIndexes()) {
    await createEmptyTable(client, previous, []);
    await copyItems(client, tableName, previous);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    await untilTable(client, tableName, 'gone');
    return createTable(client, tableName);
  }
  await createEmptyTable(client, tableName, Object.values(INDEXES));
}

/** A table's indexes with their projections, as one comparable string; null when there is no such table. */
async function indexesOf(client: DynamoDBClient, tableName: string): Promise<string | null> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return describeIndexes(
      (Table?.GlobalSecondaryIndexes ?? []).map((i) => ({
        name: i.IndexName!,
        projection: i.Projection?.ProjectionType ?? 'ALL',
        include: i.Projection?.NonKeyAttributes ?? [],
      })),
    );
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return null;
    throw e;
  }
}
const describeIndexes = (indexes: { name: string; projection: string; include: readonly string[] }[]) =>
  JSON.stringify(indexes.map((i) => [i.name, i.projection, [...i.include].sort()]).sort());
const wantedIndexes = () => describeIndexes(Object.values(INDEXES));

/**
 * Waits until the emulator has the table active, or has it no more: its creation and deletion finish after it
 * answers, and it answers a write to a table still being created as a missing table.
 */
export async function untilTable(client: DynamoDBClient, tableName: string, state: 'active' | 'gone'): Promise<void> {
  for (;;) {
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (state === 'active' && Table?.TableStatus === 'ACTIVE') return;
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException) || state === 'active') throw e;
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function copyItems(client: DynamoDBClient, from: string, to: string): Promise<void> {
  let start: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await client.send(new ScanCommand({ TableName: from, ExclusiveStartKey: start, Limit: 25 }));
    for (const item of page.Items ?? []) await client.send(new PutItemCommand({ TableName: to, Item: item }));
    start = page.LastEvaluatedKey;
  } while (start);
}

/** The table local mode makes: the layout's keys and the given indexes, each projected as storage-layout.ts says. */
export function tableDefinition(tableName: string, indexes: TableIndex[]): CreateTableCommandInput {
  const attributes = new Set<string>([
    TABLE_KEYS.partitionKey,
    TABLE_KEYS.sortKey,
    ...indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ]);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ],
    ...(indexes.length > 0
      ? {
          GlobalSecondaryIndexes: indexes.map((i) => ({
            IndexName: i.name,
            KeySchema: [
              { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
              { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
            ],
            Projection: {
              ProjectionType: i.projection,
              ...(i.projection === 'INCLUDE' ? { NonKeyAttributes: [...i.include] } : {}),
            },
          })),
        }
      : {}),
  };
}

async function createEmptyTable(client: DynamoDBClient, tableName: string, indexes: TableIndex[]): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName, indexes)));
  } catch (e) {
    if (!(e instanceof ResourceInUseException)) throw e;
  }
  await untilTable(client, tableName, 'active');
}

async function createQueueWithDlq(
  client: SQSClient,
  name: string,
  settings: QueueSettings,
): Promise<{ url: string; dlqUrl: string }> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes!.QueueArn,
          maxReceiveCount: settings.maxReceiveCount,
        }),
      },
    }),
  );
  return { url: queue.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}
