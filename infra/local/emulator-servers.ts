// Worker-thread entry that runs the three emulators, so their work happens on another core than the
// handlers'. They are reached only over HTTP, exactly like the AWS services they stand in for.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { startFauxqs } from 'fauxqs';

export interface EmulatorPorts {
  dynamodb: number;
  s3: number;
  sqs: number;
}

const { dataDir } = workerData as { dataDir: string };
const dynamoDir = join(dataDir, 'dynamodb');
const s3Dir = join(dataDir, 's3');
mkdirSync(dynamoDir, { recursive: true });
mkdirSync(s3Dir, { recursive: true });

const dynamo: Server = dynalite({ path: dynamoDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
await new Promise<void>((resolve) => dynamo.listen(0, '127.0.0.1', resolve));
const s3 = new S3rver({ port: 0, address: '127.0.0.1', directory: s3Dir, silent: true });
const s3Address = await s3.run();
const sqs = await startFauxqs({ port: 0, logger: false });

parentPort!.on('message', async (message: string) => {
  if (message !== 'stop') return;
  await sqs.stop();
  await s3.close();
  await new Promise<void>((resolve) => dynamo.close(() => resolve()));
  parentPort!.postMessage('stopped');
});
parentPort!.postMessage({ dynamodb: (dynamo.address() as AddressInfo).port, s3: s3Address.port, sqs: sqs.port } satisfies EmulatorPorts);
