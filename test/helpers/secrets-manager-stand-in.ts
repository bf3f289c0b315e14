// A local server speaking the Secrets Manager JSON protocol (x-amz-target, application/x-amz-json-1.1), and
// the functions' Secrets Manager client pointed at it: each call is recorded and answered by the test's own rule.
// BatchGetSecretValue is answered as Secrets Manager does, from the rule's GetSecretValue answer for each secret:
// the values found in SecretValues, the others in Errors (ErrorCode, Message); `batch` may refuse a call whole.
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
  /** Every call, in order: the operation ("GetSecretValue", …) and the secret asked for (a batch's, joined by ","). */
  calls: { target: string; id: string }[];
  stop(): Promise<void>;
}

export const secretNotFound: SecretsAnswer = {
  status: 400,
  body: { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." },
};

export async function startSecretsManagerStandIn(
  answer: (target: string, secretId: string) => SecretsAnswer,
  batch: (secretIds: string[]) => SecretsAnswer | null = () => null,
): Promise<SecretsManagerStandIn> {
  const calls: SecretsManagerStandIn['calls'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target']).replace('secretsmanager.', '');
      const { SecretId, SecretIdList } = JSON.parse(body) as { SecretId?: string; SecretIdList?: string[] };
      const ids = SecretIdList ?? [SecretId!];
      calls.push({ target, id: ids.join(',') });
      const { status, body: answerBody } =
        target === 'BatchGetSecretValue' ? (batch(ids) ?? batchAnswer(ids, answer)) : answer(target, ids[0]!);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(status === 200 && SecretId ? { Name: SecretId, ...answerBody } : answerBody));
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

function batchAnswer(ids: string[], answer: (target: string, secretId: string) => SecretsAnswer): SecretsAnswer {
  const each = ids.map((id) => ({ id, ...answer('GetSecretValue', id) }));
  return {
    status: 200,
    body: {
      SecretValues: each.filter((a) => a.status === 200).map((a) => ({ Name: a.id, ...a.body })),
      Errors: each
        .filter((a) => a.status !== 200)
        .map((a) => ({ SecretId: a.id, ErrorCode: a.body.__type, Message: a.body.message })),
    },
  };
}
