// The ingest function's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type LandingMessage } from '../../shared/ports.ts';
import { bucketStore, bundledConfig, keySource, queue, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { tableStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { rememberingMissingKeys } from '../../shared/ingest/missing-keys.ts';
import { createIngestHandler } from './handler.ts';

const table = tableStore({}, requiredEnv('TABLE_NAME'));

export const handler = createIngestHandler(
  {
    config: bundledConfig(),
    keys: rememberingMissingKeys(keySource({}), systemClock),
    inbox: bucketStore({}, requiredEnv('INBOX_BUCKET')),
    landingQueue: queue<LandingMessage>({}, requiredEnv('LANDING_QUEUE_URL')),
    runs: table,
    issueOwners: table,
    clock: systemClock,
  },
  instrumentation('ingest'),
);
