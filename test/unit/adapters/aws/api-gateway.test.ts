import { describe, expect, it } from '@jest/globals';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { rawBody, toApiGateway } from '#adapters/aws/api-gateway.ts';

const event = (body: string | undefined, isBase64Encoded: boolean) =>
  ({ body, isBase64Encoded }) as APIGatewayProxyEventV2;

describe('API Gateway mapping', () => {
  it('decodes base64 bodies to the exact bytes that were signed', () => {
    const bytes = Buffer.from('{"a":"é"}\n');
    expect(rawBody(event(bytes.toString('base64'), true)).equals(bytes)).toBe(true);
  });

  it('takes plain bodies as UTF-8 and a missing body as empty', () => {
    expect(rawBody(event('{"a":"é"}', false)).equals(Buffer.from('{"a":"é"}'))).toBe(true);
    expect(rawBody(event(undefined, false)).length).toBe(0);
  });

  it('serialises JSON answers and passes text through with its content type', () => {
    expect(toApiGateway({ status: 202, body: { ok: true } })).toEqual({
      statusCode: 202,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
    expect(toApiGateway({ status: 200, body: 'diff', contentType: 'text/x-diff' })).toMatchObject({
      headers: { 'content-type': 'text/x-diff' },
      body: 'diff',
    });
  });
});
