// Signed calls to AWS's HTTP APIs, without the SDK clients (docs/contract.md §8). The functions make a dozen
// operations on four services. The SDK clients for them cost every cold start some 100 ms of compiling
// 350 KB of code (endpoint rule sets, every operation's schema, a credential chain for environments a
// Lambda function never runs in), and even the SDK's own signer imports most of @smithy/core. What those
// calls need is small and stable, and all of it is here: SigV4 signing with node:crypto, the service's
// regional endpoint or a configured one (AWS_ENDPOINT_URL_<SERVICE>, as the SDKs read it), the role credentials Lambda puts in the environment, the SDK's
// standard retry policy (three attempts, jittered exponential backoff on throttling, 5xx and dropped
// connections) and an idle timeout per attempt. Local mode and the tests send the same requests to the
// emulators, and the S3 emulator checks every signature.
import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { sha256Hex } from '../../sha256.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Where the calls go. Empty in AWS: the function's region and role credentials, from its environment. */
export interface AwsConnection {
  region?: string;
  credentials?: AwsCredentials;
  endpoints?: Partial<Record<AwsService, string>>;
  /** Emulators: buckets addressed by path rather than by host name. */
  s3Emulated?: boolean;
  /** How long a silent socket may hold an attempt before it is ended and retried (default 10 s). */
  idleTimeoutMs?: number;
}

export type AwsService = 'dynamodb' | 's3' | 'sqs' | 'secretsManager';

export interface AwsRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Prepended to the endpoint's host name (an S3 bucket addressed by host). */
  hostPrefix?: string;
  /** Already URI-encoded, as it goes on the wire. */
  path: string;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface AwsResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An AWS error answer (its `name` is the service's error code) or a call that never got one. */
export class AwsCallError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const SIGNING_NAMES: Record<AwsService, string> = {
  dynamodb: 'dynamodb',
  s3: 's3',
  sqs: 'sqs',
  secretsManager: 'secretsmanager',
};
/** The SDKs' service-specific endpoint variables (AWS_ENDPOINT_URL_<SERVICE>), honoured as the SDK does. */
const ENDPOINT_VARIABLES: Record<AwsService, string> = {
  dynamodb: 'DYNAMODB',
  s3: 'S3',
  sqs: 'SQS',
  secretsManager: 'SECRETS_MANAGER',
};
const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 20_000;
/** A socket silent this long ends the attempt; a large object keeps its socket busy, so it is not cut short. */
const IDLE_TIMEOUT_MS = 10_000;
const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'SlowDown',
  'TransactionInProgressException',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const TRANSIENT_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', 'EAI_AGAIN']);

const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

export class AwsClient {
  readonly endpoint: URL;
  private readonly region: string;

  constructor(
    readonly service: AwsService,
    private readonly connection: AwsConnection,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    const region = connection.region ?? env.AWS_REGION;
    if (!region) throw new Error('No AWS region: set AWS_REGION or pass one in the connection.');
    this.region = region;
    this.endpoint = new URL(
      connection.endpoints?.[service] ??
        env[`AWS_ENDPOINT_URL_${ENDPOINT_VARIABLES[service]}`] ??
        env.AWS_ENDPOINT_URL ??
        regionalEndpoint(service, region),
    );
  }

  /** A signed request, retried by the standard policy; an error answer throws AwsCallError, after its retries. */
  async send(
    request: AwsRequest,
    parseError: (response: AwsResponse) => { code: string; message: string },
  ): Promise<AwsResponse> {
    for (let attempt = 1; ; attempt++) {
      let failure: AwsCallError;
      try {
        const response = await this.attempt(request);
        if (response.status < 300) return response;
        const { code, message } = parseError(response);
        failure = new AwsCallError(
          code,
          message,
          response.status,
          response.status >= 500 || response.status === 429 || THROTTLING.has(code),
        );
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if (error instanceof AwsCallError) failure = error;
        else if (TRANSIENT_SOCKET_ERRORS.has(code))
          failure = new AwsCallError('NetworkingError', `${SIGNING_NAMES[this.service]}: ${code}`, null, true);
        else throw error;
      }
      if (!failure.retryable || attempt === MAX_ATTEMPTS) throw failure;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)),
      );
    }
  }

  private attempt(request: AwsRequest): Promise<AwsResponse> {
    const body = typeof request.body === 'string' ? Buffer.from(request.body) : (request.body ?? new Uint8Array());
    const host = `${request.hostPrefix ?? ''}${this.endpoint.host}`;
    const query = Object.entries(request.query ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    );
    const headers = signedHeaders(
      { method: request.method, host, path: request.path, query, headers: request.headers ?? {}, body },
      { service: SIGNING_NAMES[this.service], region: this.region, credentials: this.credentials(), now: new Date() },
    );
    const search = canonicalQuery(query);
    const send = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    const idleTimeoutMs = this.connection.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    return new Promise<AwsResponse>((resolve, reject) => {
      const req = send(
        {
          protocol: this.endpoint.protocol,
          hostname: `${request.hostPrefix ?? ''}${this.endpoint.hostname}`,
          port: this.endpoint.port || undefined,
          method: request.method,
          path: `${request.path}${search ? `?${search}` : ''}`,
          headers: { ...headers, 'content-length': String(body.byteLength) },
          agent: agents[this.endpoint.protocol as keyof typeof agents],
          timeout: idleTimeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(
          new AwsCallError(
            'TimeoutError',
            `${SIGNING_NAMES[this.service]}: no answer for ${idleTimeoutMs} ms`,
            null,
            true,
          ),
        ),
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The connection's own, else the role's: Lambda keeps them in the environment, refreshed per sandbox. */
  private credentials(): AwsCredentials {
    if (this.connection.credentials) return this.connection.credentials;
    const {
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_SESSION_TOKEN: sessionToken,
    } = this.env;
    if (!accessKeyId || !secretAccessKey)
      throw new Error('No AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set.');
    return { accessKeyId, secretAccessKey, sessionToken };
  }
}

function regionalEndpoint(service: AwsService, region: string): string {
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://${SIGNING_NAMES[service]}.${region}.${suffix}`;
}

/** RFC 3986 percent-encoding, as SigV4 asks for: everything but letters, digits and `-._~`. */
export const uriEncode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const canonicalQuery = (query: [string, string][]) =>
  query
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

export interface SigningRequest {
  method: string;
  host: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface SigningContext {
  service: string;
  region: string;
  credentials: AwsCredentials;
  now: Date;
}

/**
 * The request's headers with AWS Signature Version 4 added: every header given is signed, with host, the
 * date, the payload's hash and the session token. Paths are signed as sent, encoded once: S3 wants exactly
 * that, and the other services' paths are `/`.
 */
export function signedHeaders(request: SigningRequest, context: SigningContext): Record<string, string> {
  const amzDate = context.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(request.body);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value])),
    host: request.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
    ...(context.credentials.sessionToken ? { 'x-amz-security-token': context.credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonicalRequest = [
    request.method,
    request.path,
    canonicalQuery(request.query),
    names.map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, ' ')}\n`).join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/${context.region}/${context.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${context.credentials.secretAccessKey}`, day), context.region), context.service),
    'aws4_request',
  );
  const signature = hmac(key, stringToSign).toString('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${context.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return headers;
}

const JSON_PROTOCOLS: Partial<Record<AwsService, { targetPrefix: string; contentType: string }>> = {
  dynamodb: { targetPrefix: 'DynamoDB_20120810', contentType: 'application/x-amz-json-1.0' },
  sqs: { targetPrefix: 'AmazonSQS', contentType: 'application/x-amz-json-1.0' },
  secretsManager: { targetPrefix: 'secretsmanager', contentType: 'application/x-amz-json-1.1' },
};

/** One operation of a service on the AWS JSON protocol (DynamoDB, SQS, Secrets Manager). */
export async function callJson<T>(client: AwsClient, operation: string, input: object): Promise<T> {
  const protocol = JSON_PROTOCOLS[client.service];
  if (!protocol) throw new Error(`${client.service} does not speak the AWS JSON protocol.`);
  const response = await client.send(
    {
      method: 'POST',
      path: '/',
      headers: { 'content-type': protocol.contentType, 'x-amz-target': `${protocol.targetPrefix}.${operation}` },
      body: JSON.stringify(input),
    },
    jsonError,
  );
  return (response.body.byteLength ? JSON.parse(response.body.toString('utf8')) : {}) as T;
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` (or with `:…` after it) → the bare code. */
function jsonError(response: AwsResponse): { code: string; message: string } {
  let parsed: { __type?: string; code?: string; message?: string; Message?: string } = {};
  try {
    parsed = JSON.parse(response.body.toString('utf8')) as typeof parsed;
  } catch {
    // an answer that is not JSON: the status says what there is to say
  }
  const raw = String(response.headers['x-amzn-errortype'] ?? parsed.__type ?? parsed.code ?? `Http${response.status}`);
  const code = raw.split(':')[0]!.split('#').pop()!;
  return { code, message: parsed.message ?? parsed.Message ?? `HTTP ${response.status}` };
}
