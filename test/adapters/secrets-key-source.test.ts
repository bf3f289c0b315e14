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
  // A fleet of 25 hosts, read together.
  ...Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`Hosting/ModuleReportSecret/fleet-${i}`, `key-${i}`])),
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
    expect(calls.at(-1)).toEqual({ target: 'BatchGetSecretValue', id: 'Hosting/ModuleReportSecret/mac-studio-1' });
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
    expect(calls.at(-1)).toEqual({
      target: 'BatchGetSecretValue',
      id: 'blue/Hosting/ModuleReportSecret/mac-studio-1',
    });
    expect(
      await new SecretsManagerKeySource(client, 'blue/').keysFor('Hosting:ModuleReportSecret', 'mac-mini-2'),
    ).toEqual([]);
    const pairing = new SecretsManagerPairingCheck(client, 'blue/');
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'mac-studio-1')).toBe(true);
    expect(await pairing.isPaired('Hosting:ModuleReportSecret', 'mac-mini-2')).toBe(false);
  });

  it('reads the keys asked for together, 20 secrets a call: 25 hosts and an unpaired one in 2 calls', async () => {
    const source = new SecretsManagerKeySource(client);
    const hosts = [...Array.from({ length: 25 }, (_, i) => `fleet-${i}`), 'unpaired'];
    const before = calls.length;
    const keys = await Promise.all(hosts.map((host) => source.keysFor('Hosting:ModuleReportSecret', host)));
    expect(keys).toEqual([...Array.from({ length: 25 }, (_, i) => [`key-${i}`]), []]);
    const made = calls.slice(before);
    expect(made.map((c) => [c.target, c.id.split(',').length])).toEqual([
      ['BatchGetSecretValue', 20],
      ['BatchGetSecretValue', 6],
    ]);
    // Within the cache time the keys found are not read again; the unpaired host is asked again.
    await Promise.all(hosts.map((host) => source.keysFor('Hosting:ModuleReportSecret', host)));
    expect(calls.slice(before + 2)).toEqual([
      { target: 'BatchGetSecretValue', id: 'Hosting/ModuleReportSecret/unpaired' },
    ]);
  });

  it('uses a key put after it was read once 300 s have passed, never later: a revoked key stops verifying', async () => {
    let now = 0;
    const source = new SecretsManagerKeySource(client, '', () => now);
    const id = 'Hosting/ModuleReportSecret/mac-studio-1';
    expect(await source.keysFor('Hosting:ModuleReportSecret', 'mac-studio-1')).toEqual(['plain-key']);
    secrets[id] = 'replacing-key';
    try {
      now += 299_000;
      expect(await source.keysFor('Hosting:ModuleReportSecret', 'mac-studio-1')).toEqual(['plain-key']);
      now += 1_000;
      expect(await source.keysFor('Hosting:ModuleReportSecret', 'mac-studio-1')).toEqual(['replacing-key']);
    } finally {
      secrets[id] = 'plain-key';
    }
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

describe('a batch Secrets Manager refuses whole', () => {
  it('because it names a secret it does not know: each secret is read alone, the others keep their keys', async () => {
    const refusing = await startSecretsManagerStandIn(
      (target, id) => (id in secrets ? { status: 200, body: { SecretString: secrets[id] } } : secretNotFound),
      (ids) => (ids.every((id) => id in secrets) ? null : secretNotFound),
    );
    try {
      const source = new SecretsManagerKeySource(refusing.client);
      const keys = await Promise.all(
        ['mac-studio-1', 'unpaired'].map((host) => source.keysFor('Hosting:ModuleReportSecret', host)),
      );
      expect(keys).toEqual([['plain-key'], []]);
      expect(refusing.calls.map((c) => c.target)).toEqual(['BatchGetSecretValue', 'GetSecretValue', 'GetSecretValue']);
    } finally {
      await refusing.stop();
    }
  });

  it('for any other cause: every lookup it carried fails, none is taken for an absent key', async () => {
    const throttled = await startSecretsManagerStandIn(
      () => secretNotFound,
      () => ({ status: 400, body: { __type: 'ThrottlingException', message: 'Rate exceeded' } }),
    );
    try {
      const source = new SecretsManagerKeySource(throttled.client);
      const lookups = ['mac-studio-1', 'mac-mini-2'].map((host) =>
        source.keysFor('Hosting:ModuleReportSecret', host).catch((e: Error) => e.name),
      );
      expect(await Promise.all(lookups)).toEqual(['ThrottlingException', 'ThrottlingException']);
    } finally {
      await throttled.stop();
    }
  });
});
