import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';

/**
 * A secret's current value as text, through the provider's cache; null when the secret does not exist or
 * has no value yet (a secret the stack created empty): that is "not configured", not an outage.
 */
export async function secretText(provider: SecretsProvider, secretId: string, maxAgeSeconds: number): Promise<string | null> {
  let value: unknown;
  try {
    value = await provider.get(secretId, { maxAge: maxAgeSeconds });
  } catch (error) {
    if ((error as { cause?: { name?: string } }).cause?.name === 'ResourceNotFoundException') return null;
    throw error;
  }
  return typeof value === 'string' ? value : value ? Buffer.from(value as Uint8Array).toString('utf8') : '';
}
