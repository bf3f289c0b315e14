// GET /api/*: runs, one run, its patch and summary, issues, hosts, the cockpit's columns, statistics,
// comparisons, budget and exports. The routes live in core/read; `lambda.ts` wires AWS.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { answerRead } from '#core/read/read-api.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import { jsonError } from '#core/http.ts';
import { toApiGateway, tokenGroups } from '#adapters/aws/api-gateway.ts';
import { groupRefusal } from '#core/read/cockpit-access.ts';
import { instrumented, type Instrumentation, type LambdaHandler } from '#adapters/aws/observability.ts';

export type ReadApiHandler = LambdaHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/**
 * `requiredGroup`: the Cognito group a private cockpit's analysts are in; every request whose verified token
 * lacks it is refused. A public cockpit and local mode (no sign-in) have none.
 */
export function createReadApiHandler(
  deps: ReadDeps,
  instrumentation: Instrumentation,
  requiredGroup?: string,
): ReadApiHandler {
  const { logger } = instrumentation;
  return instrumented(instrumentation, async (event: APIGatewayProxyEventV2) => {
    const refusal = requiredGroup ? groupRefusal(requiredGroup, tokenGroups(event)) : null;
    if (refusal) return toApiGateway(refusal);
    try {
      const answer = await answerRead(
        deps,
        event.requestContext.http.method,
        event.rawPath,
        event.rawQueryString ?? '',
        event.headers,
      );
      return toApiGateway(answer);
    } catch (error) {
      logger.error('read failed', { path: event.rawPath, error: (error as Error).message });
      return toApiGateway(jsonError(500, 'internal', 'The request could not be answered; retry later.'));
    }
  });
}
