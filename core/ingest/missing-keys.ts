// Host keys with their absence remembered (docs/contract.md §3). Every delivery looks up the key of every listed
// sender; a host that has none (not paired yet, its secret not created) would cost a Secrets Manager call per
// delivery. Its absence is kept for a minute instead, so a key that appears is used within that minute. A lookup
// that fails is not an absence and is never remembered.
import type { Clock, KeySource } from '../ports.ts';

export const MISSING_KEY_SECONDS = 60;

export function rememberingMissingKeys(source: KeySource, clock: Clock, seconds = MISSING_KEY_SECONDS): KeySource {
  const missingUntil = new Map<string, number>();
  return {
    async keysFor(secretConfigKey: string, host: string): Promise<string[]> {
      const name = `${secretConfigKey}:${host}`;
      if ((missingUntil.get(name) ?? 0) > clock.now().getTime()) return [];
      const keys = await source.keysFor(secretConfigKey, host);
      if (keys.length) missingUntil.delete(name);
      else missingUntil.set(name, clock.now().getTime() + seconds * 1000);
      return keys;
    },
  };
}
