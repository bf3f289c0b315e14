// The Secrets Manager adapters against a local server speaking the Secrets Manager JSON protocol.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsManagerKeySource, SecretsManagerPairingCheck } from '#adapters/aws/secrets-key-source.ts';
import { SecretValues } from '#adapters/aws/secret-values.ts';
import {
  secretNotFound,
  startSecretsManagerStandIn,
  type SecretsManagerStandIn,
} from '../helpers/secrets-manager-stand-in.ts';

const secrets: Record<string, string> = {
  'Hosting/ModuleReportSecret/mac-studio-1': 'plain-key',
  'Hosting/ModuleReportSecret/mac-mini-2': JSON.stringify({ current: 'new-key', previous: 'old-key' }),
  'blue/Hosting/ModuleReportSecret/mac-studio-1': 'blue-key',
};
let standIn: SecretsManagerStandIn;
let client: SecretsManagerClient;
let calls: SecretsManagerStandIn['calls'];

beforeAll(async () => {
  standIn = await startSecretsManagerStandIn((target, id) => {
    if (!(id in secrets)) return secretNotFound;
    if (target === 'GetSecretValue')
      return { status: 200, body: { SecretString: secrets[id], VersionStages: ['AWSCURRENT'] } };
    if (target === 'DescribeSecret') return { status: 200, body: { VersionIdsToStages: { v1: ['AWSCURRENT'] } } };
    return { status: 400, body: { __type: 'InvalidRequestException', message: target } };
  });
  ({ client, calls } = standIn);
});
afterAll(() => standIn.stop());

describe('host keys from Secrets Manager', () => {
  it('reads a plain secret value as the key, by the mapped secret name', async () => {
    expect(await new SecretsManagerKeySource(client).keysFor('Hosting:ModuleReportSecret', 'mac-studio-1')).toEqual([
      'plain-key',
    ]);
    expect(calls.at(-1)).toEqual({ target: 'GetSecretValue', id: 'Hosting/ModuleReportSecret/mac-studio-1' });
  });

  it('reads both keys during a rotation', async () => {
    expect(await new SecretsManagerKeySource(client).keysFor('Hosting:ModuleReportSecret', 'mac-mini-2')).toEqual([
      'new-key',
      'old-key',
    ]);
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

  it("reads a named stage's keys under its prefix, never the default stage's", async () => {
    expect(
      await new SecretsManagerKeySource(client, 'blue/').keysFor('Hosting:ModuleReportSecret', 'mac-studio-1'),
    ).toEqual(['blue-key']);
    expect(calls.at(-1)).toEqual({ target: 'GetSecretValue', id: 'blue/Hosting/ModuleReportSecret/mac-studio-1' });
    expect(
      await new SecretsManagerKeySource(client, 'blue/').keysFor('Hosting:ModuleReportSecret', 'mac-mini-2'),
    ).toEqual([]);
    const pairing = new SecretsManagerPairingCheck(client, 'blue/');
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'mac-studio-1')).toBe(true);
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'mac-mini-2')).toBe(false);
  });

  it('tells pairing from metadata alone, never reading the value', async () => {
    const pairing = new SecretsManagerPairingCheck(client);
    const before = calls.length;
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'mac-studio-1')).toBe(true);
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'unpaired')).toBe(false);
    expect(calls.slice(before).map((c) => c.target)).toEqual(['DescribeSecret', 'DescribeSecret']);
  });
});

describe('secret values', () => {
  it('are read again once their cache time has passed, and a missing secret is asked for every time', async () => {
    let now = 0;
    const values = new SecretValues(client, () => now);
    const reads = () => calls.filter((c) => c.target === 'GetSecretValue').length;
    const before = reads();
    expect(await values.text('Hosting/ModuleReportSecret/mac-studio-1', 60)).toBe('plain-key');
    now += 59_000;
    await values.text('Hosting/ModuleReportSecret/mac-studio-1', 60);
    expect(reads() - before).toBe(1);
    now += 2_000;
    await values.text('Hosting/ModuleReportSecret/mac-studio-1', 60);
    expect(reads() - before).toBe(2);
    expect(await values.text('Hosting/ModuleReportSecret/unpaired', 60)).toBeNull();
    expect(await values.text('Hosting/ModuleReportSecret/unpaired', 60)).toBeNull();
    expect(reads() - before).toBe(4);
  });
});
