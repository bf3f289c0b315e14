// Secret values from Secrets Manager through the SDK's client, each kept for a few minutes so a busy function
// does not call Secrets Manager per request, and a value changed in the console is used once its cache
// time has passed.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AWS_CALLS } from '#core/operations.ts';
import { clientSettings, errorNameOf, withinDeadline, type AwsConnection } from './sdk-settings.ts';

export const secretsManagerClient = (connection: AwsConnection): SecretsManagerClient =>
  new SecretsManagerClient(clientSettings(connection, 'secretsManager', AWS_CALLS.standard));

export class SecretValues {
  private readonly cache = new Map<string, { value: string; until: number }>();

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A secret's current value as text; null when the secret does not exist or has no value yet (a secret the
   * stack created empty): that is "not configured", not an outage, and it is asked again next time.
   */
  async text(secretId: string, maxAgeSeconds: number): Promise<string | null> {
    const cached = this.cache.get(secretId);
    if (cached && cached.until > this.now()) return cached.value;
    let answer: { SecretString?: string; SecretBinary?: Uint8Array };
    try {
      answer = await withinDeadline('Secrets Manager GetSecretValue', AWS_CALLS.standard, (options) =>
        this.client.send(new GetSecretValueCommand({ SecretId: secretId }), options),
      );
    } catch (error) {
      if (errorNameOf(error) === 'ResourceNotFoundException') return null;
      throw error;
    }
    const value = answer.SecretString ?? (answer.SecretBinary ? Buffer.from(answer.SecretBinary).toString('utf8') : '');
    this.cache.set(secretId, { value, until: this.now() + maxAgeSeconds * 1000 });
    return value;
  }
}
