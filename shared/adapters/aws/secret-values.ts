// Secret values from Secrets Manager, each kept for a few minutes so a busy function does not call Secrets
// Manager per request, and a value changed in the console is used once its cache time has passed.
import { AwsCallError, callJson, type AwsClient } from './aws-client.ts';

export class SecretValues {
  private readonly cache = new Map<string, { value: string; until: number }>();

  constructor(
    private readonly client: AwsClient,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A secret's current value as text; null when the secret does not exist or has no value yet (a secret the
   * stack created empty): that is "not configured", not an outage, and it is asked again next time.
   */
  async text(secretId: string, maxAgeSeconds: number): Promise<string | null> {
    const cached = this.cache.get(secretId);
    if (cached && cached.until > this.now()) return cached.value;
    let answer: { SecretString?: string; SecretBinary?: string };
    try {
      answer = await callJson(this.client, 'GetSecretValue', { SecretId: secretId });
    } catch (error) {
      if (error instanceof AwsCallError && error.name === 'ResourceNotFoundException') return null;
      throw error;
    }
    const value =
      answer.SecretString ?? (answer.SecretBinary ? Buffer.from(answer.SecretBinary, 'base64').toString('utf8') : '');
    this.cache.set(secretId, { value, until: this.now() + maxAgeSeconds * 1000 });
    return value;
  }
}
