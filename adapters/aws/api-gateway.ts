// Mapping between API Gateway HTTP API (v2) events and the core's transport-neutral answers.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HttpAnswer } from '#core/http.ts';

export function rawBody(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/**
 * The Cognito groups of the token API Gateway's JWT authorizer verified. HTTP APIs pass an array claim as
 * one string, `[group-a group-b]`; an array is accepted too. No authorizer, no claim: no groups.
 */
export function tokenGroups(event: APIGatewayProxyEventV2): string[] {
  const authorizer = (event.requestContext as { authorizer?: { jwt?: { claims?: Record<string, unknown> } } })
    .authorizer;
  const claim = authorizer?.jwt?.claims?.['cognito:groups'];
  if (Array.isArray(claim)) return claim.map(String);
  if (typeof claim !== 'string') return [];
  return claim.replace(/^\[/, '').replace(/\]$/, '').split(/\s+/).filter(Boolean);
}

export function toApiGateway(answer: HttpAnswer): APIGatewayProxyStructuredResultV2 {
  if (answer.body instanceof Uint8Array) {
    // Bytes (a gzip body) cross the Lambda boundary as base64, which API Gateway decodes for the client.
    return {
      statusCode: answer.status,
      headers: { 'content-type': answer.contentType ?? 'application/octet-stream', ...answer.headers },
      body: Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength).toString('base64'),
      isBase64Encoded: true,
    };
  }
  const isText = typeof answer.body === 'string';
  return {
    statusCode: answer.status,
    headers: {
      'content-type': answer.contentType ?? (isText ? 'text/plain; charset=utf-8' : 'application/json'),
      ...answer.headers,
    },
    body: isText ? (answer.body as string) : JSON.stringify(answer.body),
  };
}
