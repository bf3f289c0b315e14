// POST /hooks/{space}/ingest: verify the host's signature over the raw bytes, check the delivery, queue it
// durably (in its message, or in the inbox with a claim check), answer 202. All rules live in core/ingest;
// `lambda.ts` wires AWS.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { jsonError, matchRoute } from '#core/http.ts';
import { METRICS } from '#core/operations.ts';
import { rawBody, toApiGateway } from '#adapters/aws/api-gateway.ts';
import { correlate, instrumented, type Instrumentation, type LambdaHandler } from '#adapters/aws/observability.ts';

export type IngestHandler = LambdaHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

const ROUTES = [{ method: 'POST', path: '/hooks/:space/ingest' }];

export function createIngestHandler(coreDeps: IngestDeps, instrumentation: Instrumentation): IngestHandler {
  const { logger, metrics } = instrumentation;
  const deps: IngestDeps = {
    ...coreDeps,
    identified: correlate,
    unreadableKey: (host, errorName) => {
      logger.warn('a host key could not be read; that host has no key for this request', { host, errorName });
      metrics.addMetric(METRICS.hostKeyUnreadable, MetricUnit.Count, 1);
    },
    weakKey: (host) => {
      logger.info('a host signs with a key shorter than 32 bytes; pair it anew with a longer key', { host });
      metrics.addMetric(METRICS.weakHostKey, MetricUnit.Count, 1);
    },
    keyTooShort: (host, minKeyBytes) => {
      logger.warn('key too short: a host signed with a key shorter than the space allows; answered 401', {
        host,
        minKeyBytes,
      });
    },
  };
  return instrumented(instrumentation, async (event: APIGatewayProxyEventV2) => {
    const match = matchRoute(ROUTES, event.requestContext.http.method, event.rawPath);
    if (match.kind === 'bad-path')
      return toApiGateway(jsonError(400, 'bad-path', 'The space in the path is not valid percent-encoding.'));
    if (match.kind === 'no-route') return toApiGateway(jsonError(404, 'not-found', `No route ${event.rawPath}.`));
    if (match.kind === 'wrong-method')
      return toApiGateway({
        ...jsonError(405, 'not-found', 'Deliveries are sent with POST.'),
        headers: { allow: 'POST' },
      });
    const space = match.params.space!;
    try {
      const answer = await acceptDelivery(deps, {
        space,
        rawBody: rawBody(event),
        headers: event.headers,
      });
      const body = answer.body as { error?: string; id?: string };
      logger.info('delivery answered', { status: answer.status, error: body.error, id: body.id });
      // A check (200) is neither: it stores nothing and refuses nothing.
      if (answer.status === 202) metrics.addMetric(METRICS.deliveryAccepted, MetricUnit.Count, 1);
      else if (answer.status >= 400) metrics.addMetric(METRICS.deliveryRefused, MetricUnit.Count, 1);
      return toApiGateway(answer);
    } catch (error) {
      logger.error('delivery could not be stored', { error: (error as Error).message });
      return toApiGateway(jsonError(500, 'internal', 'The delivery could not be stored; retry later.'));
    }
  });
}
