// The local stand-ins for AWS are reachable only from this machine and only with this start's credentials
// (docs/contract.md §9): another host on the network, or another user of this machine, can neither read nor purge them.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsCommand } from '@aws-sdk/client-s3';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { clientSettings, type AwsConnection } from '#adapters/aws/sdk-settings.ts';
import { S3ObjectStore, s3Client } from '#adapters/aws/s3-object-store.ts';
import { sqsClient } from '#adapters/aws/sqs-queue.ts';
import { AWS_CALLS } from '#core/operations.ts';
import { startEmulators, type Emulators } from '#infra/local/emulators.ts';

const dir = mkdtempSync(join(tmpdir(), 'replay-emulators-'));
let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators(dir, { visibilityTimeoutSeconds: 1, maxReceiveCount: 2 });
});
afterAll(async () => {
  await emulators.stop();
  rmSync(dir, { recursive: true, force: true });
});

const endpoints = () => Object.entries(emulators.connection.endpoints!) as [string, string][];
const portOf = (endpoint: string) => Number(new URL(endpoint).port);

/** Each service's cheapest listing call, through the real SDK, with the given credentials. */
async function listEach(connection: AwsConnection): Promise<Record<string, 'answered' | string>> {
  const outcome = async (call: () => Promise<unknown>) =>
    call().then(
      () => 'answered',
      (e: Error) => e.name,
    );
  const dynamo = new DynamoDBClient(clientSettings(connection, 'dynamodb', AWS_CALLS.standard));
  const s3 = s3Client(connection);
  const sqs = sqsClient(connection);
  try {
    return {
      dynamodb: await outcome(() => dynamo.send(new ListTablesCommand({}))),
      s3: await outcome(() => s3.send(new ListObjectsCommand({ Bucket: emulators.names.inboxBucket }))),
      sqs: await outcome(() => sqs.send(new ListQueuesCommand({}))),
    };
  } finally {
    for (const client of [dynamo, s3, sqs]) client.destroy();
  }
}

describe('the local AWS stand-ins', () => {
  it("answer requests signed with this start's credentials", async () => {
    expect(await listEach(emulators.connection)).toEqual({ dynamodb: 'answered', s3: 'answered', sqs: 'answered' });
  });

  it('use an access key id generated for this start, not a well-known one', () => {
    expect(emulators.connection.credentials!.accessKeyId).toMatch(/^[A-Z0-9]{20}$/);
    expect(emulators.connection.credentials!.accessKeyId).not.toBe('S3RVER');
  });

  it('refuse requests signed with any other access key id', async () => {
    const other = {
      ...emulators.connection,
      credentials: { accessKeyId: 'AKIAOTHERLOCALUSER01', secretAccessKey: 'guess' },
    };
    const answers = await listEach(other);
    for (const service of ['dynamodb', 's3', 'sqs']) expect(answers[service]).not.toBe('answered');
  });

  it.each(['dynamodb', 's3', 'sqs'])('refuse an unsigned request to %s with 403', async (service) => {
    const endpoint = emulators.connection.endpoints![service as 'dynamodb']!;
    const answers = await Promise.all([
      fetch(`${endpoint}/`, { method: 'GET' }),
      fetch(`${endpoint}/${emulators.names.inboxBucket}`, { method: 'GET' }),
      fetch(`${endpoint}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
        body: '{}',
      }),
      fetch(`${endpoint}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
        body: '{}',
      }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(await answer.text()).not.toMatch(
        new RegExp(`${emulators.names.landingQueue}|${emulators.names.table}|Contents`),
      );
    }
  });

  it('listen on the loopback interface only', async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && i.family === 'IPv4')
      .map((i) => i!.address);
    const reach = (host: string, port: number) =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, host);
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
    for (const [, endpoint] of endpoints()) {
      expect(new URL(endpoint).hostname).toBe('127.0.0.1');
      expect(await reach('127.0.0.1', portOf(endpoint))).toBe(true);
      for (const address of external) expect(await reach(address, portOf(endpoint))).toBe(false);
    }
  });

  it('keep listing and serving a bucket after a PUT was killed halfway, as a killed local mode leaves it', async () => {
    const inbox = new S3ObjectStore(emulators.s3, emulators.names.inboxBucket);
    await inbox.put('inbox/S/killed/whole.json', '{"whole":true}');
    const files = (d: string): string[] =>
      readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? files(join(d, f)) : [join(d, f)]));
    // What a PUT stopped mid-write leaves: its files, half-written, under their temporary names.
    for (const file of files(join(dir, 's3')).filter((f) => f.includes('whole.json')))
      writeFileSync(`${file}.0d9c.partial`, '{"content-ty');
    expect(await inbox.list('inbox/S/killed/')).toEqual(['inbox/S/killed/whole.json']);
    expect(await inbox.getText('inbox/S/killed/whole.json')).toBe('{"whole":true}');
    expect(files(join(dir, 's3')).filter((f) => f.endsWith('.partial') && !f.includes('.0d9c.'))).toEqual([]);
  });
});
