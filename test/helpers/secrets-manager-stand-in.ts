// A local server speaking the Secrets Manager JSON protocol (x-amz-target, application/x-amz-json-1.1), and
// the functions' Secrets Manager client pointed at it: each call is recorded and answered by the test's own rule.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secretsManagerClient } from '#adapters/aws/secret-values.ts';

/** An answer: the HTTP status and the JSON body (an error carries `__type` and `message`). */
export interface SecretsAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface SecretsManagerStandIn {
  client: SecretsManagerClient;
  /** Every call, in order: the operation ("GetSecretValue", …) and the secret asked for. */
  calls: { target: string; id: string }[];
  stop(): Promise<void>;
}

export const secretNotFound: SecretsAnswer = {
  status: 400,
  body: { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." },
};

export async function startSecretsManagerStandIn(
  answer: (target: string, secretId: string) => SecretsAnswer,
): Promise<SecretsManagerStandIn> {
  const calls: SecretsManagerStandIn['calls'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']).replace('secretsmanager.', '');
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      calls.push({ target, id: SecretId });
      const { status, body: answerBody } = answer(target, SecretId);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(status === 200 ? { Name: SecretId, ...answerBody } : answerBody));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = secretsManagerClient({
    region: 'us-east-1',
    endpoints: { secretsManager: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  return {
    client,
    calls,
    async stop() {
      client.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
