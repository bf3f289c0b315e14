// Host keys from Secrets Manager. Ingest asks for every declared sender's key at once for each delivery
// (docs/contract.md §3), so the keys asked for together are read together: up to 20 secrets a
// BatchGetSecretValue call instead of a GetSecretValue each, which at 200 hosts is 10 calls where it was 200.
// Each value is kept CACHE_SECONDS, as before, so a key put or removed is used within that time. A secret
// holds the key itself, or {"current","previous"} during a rotation. Per secret, as with one call each:
// a missing secret (or one with no value yet) is an unpaired host, asked again next time; a secret the call
// could not read fails that host's lookup only; a call that fails fails the lookups it carried.
import {
  BatchGetSecretValueCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { AWS_CALLS } from '#core/operations.ts';
import type { KeySource, PairingCheck } from '#core/ports.ts';
import { keySecretName } from '#shared/key-names.ts';
import { errorNameOf, withinDeadline } from './sdk-settings.ts';

const CACHE_SECONDS = 300;
/** The most secrets one BatchGetSecretValue call reads by name. */
export const SECRETS_PER_BATCH = 20;

/** A secret's value as text (null: no such secret, or no value yet), or why it could not be read. */
type Read = { value: string | null } | { error: Error };

const NOT_FOUND = 'ResourceNotFoundException';

const textOf = (found: { SecretString?: string; SecretBinary?: Uint8Array }): string =>
  found.SecretString ?? (found.SecretBinary ? Buffer.from(found.SecretBinary).toString('utf8') : '');

export class SecretsManagerKeySource implements KeySource {
  private readonly cache = new Map<string, { value: string; until: number }>();
  /** The secrets asked for since the last batch went out, and who waits for each. */
  private waiting = new Map<string, ((read: Read) => void)[]>();

  /** `secretPrefix`: what a named deployment's secret names start with (`NAME/`; nothing for the default deployment). */
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretPrefix = '',
    private readonly now: () => number = Date.now,
  ) {}

  async keysFor(secretConfigKey: string, host: string): Promise<string[]> {
    const secretId = `${this.secretPrefix}${keySecretName(secretConfigKey, host)}`;
    const cached = this.cache.get(secretId);
    if (cached && cached.until > this.now()) return parseSecretValue(cached.value);
    const read = await this.batched(secretId);
    if ('error' in read) throw read.error;
    // An unpaired host (no secret, or no value yet) simply has no key.
    return read.value === null ? [] : parseSecretValue(read.value);
  }

  /** The secret's value from the next batch: lookups started in the same turn of the event loop share it. */
  private batched(secretId: string): Promise<Read> {
    if (this.waiting.size === 0) queueMicrotask(() => void this.sendBatches());
    return new Promise((resolve) => {
      const list = this.waiting.get(secretId);
      if (list) list.push(resolve);
      else this.waiting.set(secretId, [resolve]);
    });
  }

  private async sendBatches(): Promise<void> {
    const waiting = this.waiting;
    this.waiting = new Map();
    const ids = [...waiting.keys()];
    const batches = Array.from({ length: Math.ceil(ids.length / SECRETS_PER_BATCH) }, (_, i) =>
      ids.slice(i * SECRETS_PER_BATCH, (i + 1) * SECRETS_PER_BATCH),
    );
    await Promise.all(
      batches.map(async (batch) => {
        const reads = await this.readBatch(batch);
        for (const id of batch) for (const resolve of waiting.get(id)!) resolve(reads.get(id)!);
      }),
    );
  }

  private async readBatch(secretIds: string[]): Promise<Map<string, Read>> {
    const reads = new Map<string, Read>();
    let answer;
    try {
      answer = await withinDeadline('Secrets Manager BatchGetSecretValue', AWS_CALLS.standard, (options) =>
        this.client.send(new BatchGetSecretValueCommand({ SecretIdList: secretIds }), options),
      );
    } catch (error) {
      // A call that names a secret Secrets Manager does not know may be refused whole: each is then read alone,
      // so a host not paired yet never costs the others their keys.
      if (errorNameOf(error) === NOT_FOUND) {
        await Promise.all(secretIds.map(async (id) => reads.set(id, await this.readOne(id))));
        return reads;
      }
      for (const id of secretIds) reads.set(id, { error: error as Error });
      return reads;
    }
    for (const found of answer.SecretValues ?? [])
      if (found.Name !== undefined) reads.set(found.Name, this.kept(found.Name, textOf(found)));
    for (const failed of answer.Errors ?? []) {
      if (failed.SecretId === undefined || reads.has(failed.SecretId)) continue;
      reads.set(
        failed.SecretId,
        failed.ErrorCode === NOT_FOUND
          ? { value: null }
          : { error: Object.assign(new Error(failed.ErrorCode ?? 'Error'), { name: failed.ErrorCode ?? 'Error' }) },
      );
    }
    // A secret the answer neither returned nor reported is read again next time, as one not found.
    for (const id of secretIds) if (!reads.has(id)) reads.set(id, { value: null });
    return reads;
  }

  private kept(secretId: string, value: string): Read {
    this.cache.set(secretId, { value, until: this.now() + CACHE_SECONDS * 1000 });
    return { value };
  }

  private async readOne(secretId: string): Promise<Read> {
    try {
      const found = await withinDeadline('Secrets Manager GetSecretValue', AWS_CALLS.standard, (options) =>
        this.client.send(new GetSecretValueCommand({ SecretId: secretId }), options),
      );
      return this.kept(secretId, textOf(found));
    } catch (error) {
      return errorNameOf(error) === NOT_FOUND ? { value: null } : { error: error as Error };
    }
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
