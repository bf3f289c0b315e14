// The functions' own AWS client: signatures identical to the AWS SDK's signer, the SDK's retry policy, a
// timeout on a silent service, and S3 object keys that survive encoding (the S3 emulator checks signatures).
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  AwsCallError,
  AwsClient,
  callJson,
  signedHeaders,
  uriEncode,
  type AwsCredentials,
  type SigningRequest,
} from '../../shared/adapters/aws/aws-client.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';

/** The SDK signer's hash: SHA-256, or HMAC-SHA-256 when given a key. */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: SourceData) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

const credentials: AwsCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+=',
};
const now = new Date('2026-12-01T10:20:30.456Z');

async function sdkAuthorization(service: string, request: SigningRequest, uriEscapePath: boolean): Promise<string> {
  const signer = new SignatureV4({ service, region: 'eu-west-1', credentials, sha256: Sha256, uriEscapePath });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'https:',
      hostname: request.host,
      path: request.path,
      query: Object.fromEntries(request.query),
      headers: { ...request.headers, host: request.host },
      body: request.body,
    },
    { signingDate: now },
  );
  return signed.headers.authorization!;
}

describe('request signing', () => {
  it('signs a JSON-protocol call exactly as the AWS SDK signer does', async () => {
    const request: SigningRequest = {
      method: 'POST',
      host: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      query: [],
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
      body: Buffer.from('{"TableName":"t","Key":{"pk":{"S":"SPACE#Main"}}}'),
    };
    const ours = signedHeaders(request, { service: 'dynamodb', region: 'eu-west-1', credentials, now });
    expect(ours.authorization).toBe(await sdkAuthorization('dynamodb', request, true));
    expect(ours['x-amz-security-token']).toBe(credentials.sessionToken);
  });

  it('signs an S3 path and query with reserved characters exactly as the AWS SDK signer does', async () => {
    const key = 'spaces/Main/runs/a b+c&d=é~(1).json';
    const request: SigningRequest = {
      method: 'GET',
      host: 'data.s3.eu-west-1.amazonaws.com',
      path: `/${key.split('/').map(uriEncode).join('/')}`,
      query: [
        ['prefix', 'spaces/Main/ runs*'],
        ['marker', "it's+done"],
      ],
      headers: {},
      body: new Uint8Array(),
    };
    const ours = signedHeaders(request, { service: 's3', region: 'eu-west-1', credentials, now });
    expect(ours.authorization).toBe(await sdkAuthorization('s3', request, false));
  });
});

/** A service that answers each call by the test's rule, recording what it was sent. */
let server: Server;
let answer: (call: number, req: IncomingMessage) => { status: number; body: unknown } | 'silence';
const received: { headers: IncomingMessage['headers']; body: string }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const reply = answer(received.length, req);
      if (reply === 'silence') return;
      res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  received.length = 0;
});

const client = (idleTimeoutMs?: number) =>
  new AwsClient('dynamodb', {
    region: 'eu-west-1',
    credentials,
    endpoints: { dynamodb: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    idleTimeoutMs,
  });
const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (e: unknown) => e as AwsCallError,
  );

describe('a JSON-protocol call', () => {
  it('sends the operation as the target and returns the parsed answer', async () => {
    answer = () => ({ status: 200, body: { Item: { pk: { S: 'x' } } } });
    expect(await callJson(client(), 'GetItem', { TableName: 't' })).toEqual({ Item: { pk: { S: 'x' } } });
    expect(received[0]!.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(received[0]!.headers.authorization).toMatch(
      /SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token;x-amz-target,/,
    );
    expect(JSON.parse(received[0]!.body)).toEqual({ TableName: 't' });
  });

  it('retries server errors and succeeds on the third attempt', async () => {
    answer = (call) =>
      call < 3
        ? { status: 500, body: { __type: 'InternalServerError', message: 'try again' } }
        : { status: 200, body: {} };
    expect(await callJson(client(), 'PutItem', {})).toEqual({});
    expect(received).toHaveLength(3);
  });

  it('gives up on throttling after three attempts, naming the error', async () => {
    answer = () => ({
      status: 400,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate exceeded' },
    });
    const failure = await failureOf(callJson(client(), 'PutItem', {}));
    expect(failure).toBeInstanceOf(AwsCallError);
    expect([failure!.name, failure!.message, failure!.status]).toEqual(['ThrottlingException', 'Rate exceeded', 400]);
    expect(received).toHaveLength(3);
  });

  it('does not retry an error the caller must handle, and names it without its namespace', async () => {
    answer = () => ({
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
      },
    });
    const failure = await failureOf(callJson(client(), 'PutItem', {}));
    expect(failure!.name).toBe('ConditionalCheckFailedException');
    expect(received).toHaveLength(1);
  });

  it('ends an attempt the service never answers, and retries it before failing', async () => {
    answer = () => 'silence';
    const failure = await failureOf(callJson(client(50), 'GetItem', {}));
    expect(failure!.name).toBe('TimeoutError');
    expect(failure!.status).toBeNull();
    expect(received).toHaveLength(3);
  });
});

describe('the client settings', () => {
  it('refuse to start without a region, saying where one comes from', () => {
    expect(() => new AwsClient('sqs', { credentials }, {})).toThrow(
      'No AWS region: set AWS_REGION or pass one in the connection.',
    );
  });

  it('use the regional endpoint of the service by default', async () => {
    expect(new AwsClient('sqs', { region: 'eu-west-1' }, {}).endpoint.href).toBe(
      'https://sqs.eu-west-1.amazonaws.com/',
    );
    expect(new AwsClient('secretsManager', {}, { AWS_REGION: 'cn-north-1' }).endpoint.href).toBe(
      'https://secretsmanager.cn-north-1.amazonaws.com.cn/',
    );
  });

  it("take an endpoint from the SDKs' endpoint variables, the service's own first", () => {
    const env = {
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'http://localhost:4566',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://localhost:9000',
    };
    expect(new AwsClient('secretsManager', {}, env).endpoint.href).toBe('http://localhost:9000/');
    expect(new AwsClient('s3', {}, env).endpoint.href).toBe('http://localhost:4566/');
  });

  it('refuse a call without credentials, naming the variables Lambda sets', async () => {
    const noCredentials = new AwsClient(
      'dynamodb',
      { region: 'eu-west-1', endpoints: { dynamodb: 'http://127.0.0.1:9' } },
      {},
    );
    await expect(callJson(noCredentials, 'GetItem', {})).rejects.toThrow(
      'No AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set.',
    );
  });

  it('sign with the role credentials and session token from the environment', async () => {
    answer = () => ({ status: 200, body: {} });
    const env = {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'ASIAROLEKEY',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_SESSION_TOKEN: 'role-session',
    };
    await callJson(
      new AwsClient(
        'dynamodb',
        { endpoints: { dynamodb: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } },
        env,
      ),
      'GetItem',
      {},
    );
    expect(received[0]!.headers['x-amz-security-token']).toBe('role-session');
    expect(received[0]!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=ASIAROLEKEY\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, /,
    );
  });
});

describe('objects in S3 (the emulator checks every signature)', () => {
  let stores: TestStores;
  beforeAll(async () => {
    stores = await startTestStores();
  });
  afterAll(() => stores.stop());

  it('keep keys with spaces, reserved characters and non-ASCII letters, and list them back', async () => {
    const keys = ['odd/a b+c.json', 'odd/x&y=z;(1)!.json', "odd/it's~é.json"];
    for (const [i, key] of keys.entries()) await stores.data.put(key, `body ${i}`, 'application/json');
    for (const [i, key] of keys.entries()) expect(await stores.data.getText(key)).toBe(`body ${i}`);
    expect((await stores.data.list('odd/')).sort()).toEqual([...keys].sort());
    await stores.data.delete(keys[0]!);
    expect(await stores.data.getText(keys[0]!)).toBeNull();
  });
});
