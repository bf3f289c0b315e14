// One host's unreadable key (a secret being deleted, a throttled lookup) refuses only that host (docs/contract.md §3):
// ingest with the real Secrets Manager SDK client against a local server speaking its protocol; the inbox and the
// table are in memory (their wiring is the emulator suites').
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerKeySource } from '#adapters/aws/secrets-key-source.ts';
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { parseConfig } from '#schema/config.ts';
import type { LandingMessage } from '#core/ports.ts';
import { InMemoryObjectStore, InMemoryTable, RecordingQueue } from '../helpers/in-memory-ports.ts';
import { runDelivery, signedDeliveryHeaders } from '../helpers/deliveries.ts';
import {
  secretNotFound,
  startSecretsManagerStandIn,
  type SecretsManagerStandIn,
  type SecretsAnswer,
} from '../helpers/secrets-manager-stand-in.ts';

// How Secrets Manager answers for each host's secret.
const answers: Record<string, SecretsAnswer> = {
  'Hosting/ModuleReportSecret/healthy': {
    status: 200,
    body: { SecretString: 'healthy-key', VersionStages: ['AWSCURRENT'] },
  },
  'Hosting/ModuleReportSecret/being-deleted': {
    status: 400,
    body: {
      __type: 'InvalidRequestException',
      message: "You can't perform this operation on the secret because it was marked for deletion.",
    },
  },
  'Hosting/ModuleReportSecret/throttled': {
    status: 400,
    body: { __type: 'ThrottlingException', message: 'Rate exceeded' },
  },
};

let standIn: SecretsManagerStandIn;
let client: SecretsManagerClient;
beforeAll(async () => {
  standIn = await startSecretsManagerStandIn((_target, id) => answers[id] ?? secretNotFound);
  client = standIn.client;
});
afterAll(() => standIn.stop());

const NOW = new Date('2026-11-30T12:00:00Z');
const config = parseConfig({ spaces: { Main: { senders: ['healthy', 'being-deleted', 'throttled'] } } });

function ingest(unreadable: string[]) {
  const queue = new RecordingQueue<LandingMessage>();
  const table = new InMemoryTable();
  const deps: IngestDeps = {
    config,
    keys: new SecretsManagerKeySource(client),
    inbox: new InMemoryObjectStore(),
    landingQueue: queue,
    runs: table,
    issueOwners: table,
    clock: { now: () => NOW },
    unreadableKey: (host) => unreadable.push(host),
  };
  return { deps, queue };
}

const signedRequest = (host: string, key: string) => {
  const rawBody = Buffer.from(JSON.stringify(runDelivery({ host, taskId: `from-${host}` })));
  return { space: 'Main', rawBody, headers: signedDeliveryHeaders('Main', rawBody, key, { at: NOW }) };
};

describe('a host whose key cannot be read', () => {
  it("does not stop another host's delivery from being accepted", async () => {
    const unreadable: string[] = [];
    const { deps, queue } = ingest(unreadable);
    const before = standIn.calls.length;
    const answer = await acceptDelivery(deps, signedRequest('healthy', 'healthy-key'));
    expect(answer.status).toBe(202);
    expect(queue.sent).toHaveLength(1);
    expect(unreadable.sort()).toEqual(['being-deleted', 'throttled']);
    // The three senders' keys in one call, whatever each secret's answer.
    expect(standIn.calls.slice(before).map((c) => c.target)).toEqual(['BatchGetSecretValue']);
  });

  it('has no key for that request: its own delivery answers 401, never 500', async () => {
    const { deps } = ingest([]);
    const answer = await acceptDelivery(deps, signedRequest('throttled', 'whatever-it-was'));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'bad-signature', signature: 'invalid' });
  });

  it("is reported by host name only, never with a key or the provider's message", async () => {
    const reported: unknown[][] = [];
    const { deps } = ingest([]);
    await acceptDelivery(
      { ...deps, unreadableKey: (...args) => reported.push(args) },
      signedRequest('healthy', 'healthy-key'),
    );
    expect(JSON.stringify(reported)).not.toMatch(/healthy-key|Rate exceeded|marked for deletion/);
  });
});
