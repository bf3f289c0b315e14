// One host's unreadable key (a secret being deleted, a throttled lookup) refuses only that host (docs/contract.md §3):
// ingest against a local server speaking the Secrets Manager protocol, with real S3 for the inbox.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerKeySource } from '../../shared/adapters/aws/secrets-key-source.ts';
import { acceptDelivery, type IngestDeps } from '../../shared/ingest/accept-delivery.ts';
import { sign } from '../../shared/ingest/signature.ts';
import { parseConfig } from '../../shared/schema/config.ts';
import type { LandingMessage } from '../../shared/ports.ts';
import { RecordingQueue } from '../helpers/in-memory-ports.ts';
import { runDelivery } from '../helpers/deliveries.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';

// How Secrets Manager answers for each host's secret.
const answers: Record<string, { status: number; body: Record<string, unknown> }> = {
  'Hosting/ModuleReportSecret/healthy': { status: 200, body: { SecretString: 'healthy-key', VersionStages: ['AWSCURRENT'] } },
  'Hosting/ModuleReportSecret/being-deleted': {
    status: 400,
    body: { __type: 'InvalidRequestException', message: "You can't perform this operation on the secret because it was marked for deletion." },
  },
  'Hosting/ModuleReportSecret/throttled': { status: 400, body: { __type: 'ThrottlingException', message: 'Rate exceeded' } },
};


let server: Server;
let stores: TestStores;
let client: SecretsManagerClient;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      const answer = answers[SecretId] ?? { status: 400, body: { __type: 'ResourceNotFoundException', message: 'not found' } };
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ Name: SecretId, ...answer.body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    maxAttempts: 1,
  });
  stores = await startTestStores();
});
afterAll(async () => {
  client.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  await stores.stop();
});

const config = parseConfig({ spaces: { Main: { senders: ['healthy', 'being-deleted', 'throttled'] } } });

function ingest(unreadable: string[]) {
  const queue = new RecordingQueue<LandingMessage>();
  const deps: IngestDeps = {
    config,
    keys: new SecretsManagerKeySource(client),
    inbox: stores.inbox,
    landingQueue: queue,
    clock: { now: () => new Date('2026-11-30T12:00:00Z') },
    unreadableKey: (host) => unreadable.push(host),
  };
  return { deps, queue };
}

const signedRequest = (host: string, key: string) => {
  const rawBody = Buffer.from(JSON.stringify(runDelivery({ host, taskId: `from-${host}` })));
  return { space: 'Main', rawBody, signature: sign(rawBody, key), deliveryHeader: undefined };
};

describe('a host whose key cannot be read', () => {
  it('does not stop another host\'s delivery from being accepted', async () => {
    const unreadable: string[] = [];
    const { deps, queue } = ingest(unreadable);
    const answer = await acceptDelivery(deps, signedRequest('healthy', 'healthy-key'));
    expect(answer.status).toBe(202);
    expect(queue.sent).toHaveLength(1);
    expect(unreadable.sort()).toEqual(['being-deleted', 'throttled']);
  });

  it('has no key for that request: its own delivery answers 401, never 500', async () => {
    const { deps } = ingest([]);
    const answer = await acceptDelivery(deps, signedRequest('throttled', 'whatever-it-was'));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'bad-signature', signature: 'invalid' });
  });

  it('is reported by host name only, never with a key or the provider\'s message', async () => {
    const reported: unknown[][] = [];
    const { deps } = ingest([]);
    await acceptDelivery({ ...deps, unreadableKey: (...args) => reported.push(args) }, signedRequest('healthy', 'healthy-key'));
    expect(JSON.stringify(reported)).not.toMatch(/healthy-key|Rate exceeded|marked for deletion/);
  });
});
