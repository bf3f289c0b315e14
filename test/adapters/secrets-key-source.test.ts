// The Secrets Manager adapters against a local server speaking the Secrets Manager JSON protocol.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerKeySource, SecretsManagerPairingCheck } from '../../shared/adapters/aws/secrets-key-source.ts';

const secrets: Record<string, string> = {
  'Hosting/ModuleReportSecret/mac-studio-1': 'plain-key',
  'Hosting/ModuleReportSecret/mac-mini-2': JSON.stringify({ current: 'new-key', previous: 'old-key' }),
};
const calls: { target: string; id: string }[] = [];
let server: Server;
let client: SecretsManagerClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']).replace('secretsmanager.', '');
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      calls.push({ target, id: SecretId });
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (!(SecretId in secrets)) {
        res.writeHead(400);
        return res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
      }
      if (target === 'GetSecretValue') return res.end(JSON.stringify({ Name: SecretId, SecretString: secrets[SecretId], VersionStages: ['AWSCURRENT'] }));
      if (target === 'DescribeSecret') return res.end(JSON.stringify({ Name: SecretId, VersionIdsToStages: { v1: ['AWSCURRENT'] } }));
      res.writeHead(400);
      res.end(JSON.stringify({ __type: 'InvalidRequestException', message: target }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
    maxAttempts: 1,
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('host keys from Secrets Manager', () => {
  it('reads a plain secret value as the key, by the mapped secret name', async () => {
    expect(await new SecretsManagerKeySource(client).keysFor('Hosting:ModuleReportSecret', 'mac-studio-1')).toEqual(['plain-key']);
    expect(calls.at(-1)).toEqual({ target: 'GetSecretValue', id: 'Hosting/ModuleReportSecret/mac-studio-1' });
  });

  it('reads both keys during a rotation', async () => {
    expect(await new SecretsManagerKeySource(client).keysFor('Hosting:ModuleReportSecret', 'mac-mini-2')).toEqual(['new-key', 'old-key']);
  });

  it('treats a missing secret as an unpaired host', async () => {
    expect(await new SecretsManagerKeySource(client).keysFor('Hosting:ModuleReportSecret', 'unpaired')).toEqual([]);
  });

  it('caches keys so a busy ingest does not call Secrets Manager per request', async () => {
    const source = new SecretsManagerKeySource(client);
    const before = calls.length;
    for (let i = 0; i < 5; i++) await source.keysFor('Hosting:ModuleReportSecret', 'mac-studio-1');
    expect(calls.length - before).toBe(1);
  });

  it('tells pairing from metadata alone, never reading the value', async () => {
    const pairing = new SecretsManagerPairingCheck(client);
    const before = calls.length;
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'mac-studio-1')).toBe(true);
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'unpaired')).toBe(false);
    expect(calls.slice(before).map((c) => c.target)).toEqual(['DescribeSecret', 'DescribeSecret']);
  });
});
