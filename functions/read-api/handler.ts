// GET /api/*: runs, columns, statistics, comparisons, budget, exports, issues, hosts. Rules live in shared/read.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { answerRead } from '../../shared/read/read-api.ts';
import { jsonError } from '../../shared/http.ts';
import { systemClock } from '../../shared/ports.ts';
import { bucketStore, configFromEnv, pairingCheck, tableStore } from '../../shared/adapters/aws/runtime.ts';
import { toApiGateway } from '../../shared/adapters/aws/api-gateway.ts';
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
  budget: store,
  clock: systemClock,
};

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    const answer = await answerRead(deps, event.requestContext.http.method, event.rawPath, event.rawQueryString ?? '', event.headers);
    return toApiGateway(answer);
  } catch (error) {
    logger.error('read failed', { path: event.rawPath, error: (error as Error).message });
    return toApiGateway(jsonError(500, 'internal', 'The request could not be answered; retry later.'));
  }
}
