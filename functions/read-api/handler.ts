// GET /api/*: runs, one run, its patch and summary, issues, hosts. Rules live in shared/read.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { answerRead } from '../../shared/read/read-api.ts';
import { jsonError } from '../../shared/http.ts';
import { systemClock } from '../../shared/ports.ts';
import { bucketStore, configFromEnv, pairingCheck, tableStore } from '../../shared/adapters/aws/runtime.ts';
import { toApiGateway, tokenGroups } from '../../shared/adapters/aws/api-gateway.ts';
import { groupRefusal } from '../../shared/read/cockpit-access.ts';
import { observability } from '../../shared/adapters/aws/observability.ts';

const { logger } = observability('read-api');
const store = tableStore();
const deps = {
  config: configFromEnv(),
  runs: store,
  issues: store,
  hosts: store,
  objects: bucketStore('DATA_BUCKET'),
  pairing: pairingCheck(),
  clock: systemClock,
};
/** Set by the deployment for a private cockpit (ANALYST_GROUP); a public one and local mode have none. */
const requiredGroup = process.env.ANALYST_GROUP;

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const refusal = requiredGroup ? groupRefusal(requiredGroup, tokenGroups(event)) : null;
  if (refusal) return toApiGateway(refusal);
  try {
    const answer = await answerRead(deps, event.requestContext.http.method, event.rawPath, event.queryStringParameters ?? {}, event.headers);
    return toApiGateway(answer);
  } catch (error) {
    logger.error('read failed', { path: event.rawPath, error: (error as Error).message });
    return toApiGateway(jsonError(500, 'internal', 'The request could not be answered; retry later.'));
  }
}
