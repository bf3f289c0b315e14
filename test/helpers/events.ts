// Lambda events as AWS delivers them, for handler tests: API Gateway HTTP API (payload 2.0), SQS and an
// EventBridge schedule. Only what a test names varies; the rest is filled in the way the service fills it
// (lower-case header names, the query string both raw and parsed, one message id per record).
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, ScheduledEvent, SQSEvent, SQSRecord } from 'aws-lambda';

const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';
const EVENT_TIME = new Date('2026-11-29T12:00:00.000Z');

export interface HttpRequest {
  method?: string;
  /** The path with its query string, as a client sends it: `/api/spaces/S/runs?limit=3`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Send the body base64-encoded, as API Gateway does for bodies it does not treat as text. */
  base64?: boolean;
}

export function httpApiEvent({
  method = 'GET',
  path,
  headers = {},
  body,
  base64 = false,
}: HttpRequest): APIGatewayProxyEventV2 {
  const [rawPath = path, rawQueryString = ''] = path.split('?', 2);
  const query = new URLSearchParams(rawQueryString);
  const bytes = body === undefined ? undefined : Buffer.from(body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    queryStringParameters: query.size ? Object.fromEntries(query) : undefined,
    requestContext: {
      accountId: ACCOUNT,
      apiId: 'api1234567',
      domainName: 'api1234567.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'api1234567',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'replay-bench-tests' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: EVENT_TIME.toUTCString(),
      timeEpoch: EVENT_TIME.getTime(),
    },
    body: bytes === undefined ? undefined : bytes.toString(base64 ? 'base64' : 'utf8'),
    isBase64Encoded: base64,
  };
}

/** One SQS record carrying `body` (an object is sent as its JSON, a string verbatim). */
export function sqsRecord(body: unknown, queueName = 'replay-landing'): SQSRecord {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    messageId: randomUUID(),
    receiptHandle: `receipt-${randomUUID()}`,
    body: text,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(EVENT_TIME.getTime()),
      SenderId: 'AROAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(EVENT_TIME.getTime()),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(text).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${REGION}:${ACCOUNT}:${queueName}`,
    awsRegion: REGION,
  };
}

export const sqsEvent = (records: SQSRecord[]): SQSEvent => ({ Records: records });

export function scheduledEvent(time = EVENT_TIME): ScheduledEvent<Record<string, never>> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT,
    time: time.toISOString(),
    region: REGION,
    resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/replay-judge-sweep`],
    detail: {},
  };
}
