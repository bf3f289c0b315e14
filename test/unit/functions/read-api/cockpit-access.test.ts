// Per-cockpit access where it is enforced: the read function of a private cockpit, behind API Gateway's JWT
// authorizer, answers only tokens that carry the cockpit's Cognito group.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from '@jest/globals';
import { createReadApiHandler } from '#functions/read-api/handler.ts';
import { tokenGroups } from '#adapters/aws/api-gateway.ts';
import { S3ObjectStore, s3Client } from '#adapters/aws/s3-object-store.ts';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { LocalKeySource } from '#adapters/local/env-key-source.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { analystGroupOf, MAX_GROUP_NAME_LENGTH } from '#core/read/cockpit-access.ts';
import { systemClock } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';

const config = parseConfig({
  spaces: { Alpha: { senders: ['mac-studio-1'] } },
  cockpits: { AlphaBoard: { space: 'Alpha' } },
});
// Real adapters aimed at a port nothing listens on: a request that reached the store would fail loudly.
const nowhere = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  endpoints: { dynamodb: 'http://127.0.0.1:9', s3: 'http://127.0.0.1:9' },
};
const store = new DynamoStore(dynamoClient(nowhere), 'table');
const keys = new LocalKeySource(mkdtempSync(join(tmpdir(), 'keys-')), {});
const deps = {
  config,
  runs: store,
  attempts: store,
  issues: store,
  hosts: store,
  objects: new S3ObjectStore(s3Client(nowhere), 'data'),
  pairing: keys,
  budget: store,
  clock: systemClock,
};
const read = createReadApiHandler(
  deps,
  instrumentation('read-api', { logLevel: 'ERROR', publishMetrics: false }),
  analystGroupOf('AlphaBoard'),
);

/** An HTTP API (payload 2.0) event as API Gateway sends it after the JWT authorizer accepted the token. */
function eventWith(claims: Record<string, string> | undefined, path = '/api/cockpits'): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'GET /api/{proxy+}',
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: 'Bearer eyJ...' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: 'GET /api/{proxy+}',
      stage: '$default',
      time: '01/Dec/2026:00:00:00 +0000',
      timeEpoch: 0,
      ...(claims ? { authorizer: { jwt: { claims, scopes: null } } } : {}),
    },
    isBase64Encoded: false,
  } as APIGatewayProxyEventV2;
}

describe("a private cockpit's read API", () => {
  it("refuses with 403 a signed-in analyst whose token lacks the cockpit's group", async () => {
    const answer = await read(eventWith({ sub: 'u1', 'cognito:groups': '[cockpit-BetaBoard]' }));
    expect(answer.statusCode).toBe(403);
    expect(JSON.parse(answer.body!)).toMatchObject({ error: 'not-in-cockpit-group' });
  });

  it('refuses a token with no groups at all, and a request that reached it without a verified token', async () => {
    expect((await read(eventWith({ sub: 'u1' }))).statusCode).toBe(403);
    expect((await read(eventWith(undefined))).statusCode).toBe(403);
  });

  it('refuses before reading anything, whatever the path', async () => {
    const answer = await read(eventWith({ 'cognito:groups': '[other]' }, '/api/spaces/Alpha/runs'));
    expect(answer.statusCode).toBe(403);
  });

  it('answers an analyst who is in the group, among others', async () => {
    const answer = await read(eventWith({ 'cognito:groups': '[cockpit-BetaBoard cockpit-AlphaBoard]' }));
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body!)).toEqual({
      cockpits: [{ name: 'AlphaBoard', space: 'Alpha', public: false, showReference: true, minN: 10, campaign: null }],
    });
  });

  it("does not take a group whose name merely contains the cockpit's", async () => {
    expect((await read(eventWith({ 'cognito:groups': '[cockpit-AlphaBoard2 xcockpit-AlphaBoard]' }))).statusCode).toBe(
      403,
    );
  });
});

describe('a cockpit without sign-in', () => {
  it('answers without any token', async () => {
    const open = createReadApiHandler(deps, instrumentation('read-api', { logLevel: 'ERROR', publishMetrics: false }));
    expect((await open(eventWith(undefined))).statusCode).toBe(200);
  });
});

describe('token groups', () => {
  it('are read from the bracketed string HTTP APIs pass, or from an array', () => {
    expect(tokenGroups(eventWith({ 'cognito:groups': '[a b  c]' }))).toEqual(['a', 'b', 'c']);
    expect(tokenGroups(eventWith({ 'cognito:groups': 'solo' }))).toEqual(['solo']);
    expect(tokenGroups(eventWith({ 'cognito:groups': ['x', 'y'] as unknown as string }))).toEqual(['x', 'y']);
    expect(tokenGroups(eventWith({ 'cognito:groups': '[]' }))).toEqual([]);
  });
});

describe('group names', () => {
  it("are cockpit-<name>, cut with a hash to Cognito's limit, never shared by two long names", () => {
    expect(analystGroupOf('AlphaBoard')).toBe('cockpit-AlphaBoard');
    const a = analystGroupOf(`${'C'.repeat(150)}-a`);
    const b = analystGroupOf(`${'C'.repeat(150)}-b`);
    expect([a.length, b.length]).toEqual([MAX_GROUP_NAME_LENGTH, MAX_GROUP_NAME_LENGTH]);
    expect(a).not.toBe(b);
    expect(analystGroupOf('C'.repeat(120))).toHaveLength(MAX_GROUP_NAME_LENGTH);
  });
});
