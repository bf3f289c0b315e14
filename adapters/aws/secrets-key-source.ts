// Host keys from Secrets Manager, cached for a few minutes so a busy ingest does not call Secrets Manager
// per request. A secret holds the key itself, or {"current","previous"} during a rotation.
import { DescribeSecretCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AWS_CALLS } from '#core/operations.ts';
import type { KeySource, PairingCheck } from '#core/ports.ts';
import { keySecretName } from '#shared/key-names.ts';
import { errorNameOf, withinDeadline } from './sdk-settings.ts';
import { SecretValues } from './secret-values.ts';

const CACHE_SECONDS = 300;

export class SecretsManagerKeySource implements KeySource {
  private readonly secrets: SecretValues;

  /** `secretPrefix`: what a named deployment's secret names start with (`NAME/`; nothing for the default deployment). */
  constructor(
    client: SecretsManagerClient,
    private readonly secretPrefix = '',
  ) {
    this.secrets = new SecretValues(client);
  }

  async keysFor(secretConfigKey: string, host: string): Promise<string[]> {
    // An unpaired host (no secret, or no value yet) simply has no key.
    const value = await this.secrets.text(`${this.secretPrefix}${keySecretName(secretConfigKey, host)}`, CACHE_SECONDS);
    return value === null ? [] : parseSecretValue(value);
  }
}

export function parseSecretValue(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as { current?: unknown; previous?: unknown };
      return [parsed.current, parsed.previous].filter((k): k is string => typeof k === 'string' && k.length > 0);
    } catch {
      // not JSON after all: the whole value is the key
    }
  }
  return trimmed ? [trimmed] : [];
}

/** Pairing from the secret's metadata only (DescribeSecret): the read API never holds a key. */
export class SecretsManagerPairingCheck implements PairingCheck {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretPrefix = '',
  ) {}

  async isPaired(secretConfigKey: string, host: string): Promise<boolean> {
    try {
      const out = await withinDeadline('Secrets Manager DescribeSecret', AWS_CALLS.standard, (options) =>
        this.client.send(
          new DescribeSecretCommand({ SecretId: `${this.secretPrefix}${keySecretName(secretConfigKey, host)}` }),
          options,
        ),
      );
      return Object.values(out.VersionIdsToStages ?? {}).some((stages) => stages.includes('AWSCURRENT'));
    } catch (e) {
      if (errorNameOf(e) === 'ResourceNotFoundException') return false;
      throw e;
    }
  }
}
