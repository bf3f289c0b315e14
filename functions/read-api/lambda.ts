// The read API's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock } from '../../shared/ports.ts';
import { bucketStore, bundledConfig, pairingCheck, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { tableStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { LAMBDA_ANSWER_BYTES } from '../../shared/operations.ts';
import { createReadApiHandler } from './handler.ts';

const store = tableStore({}, requiredEnv('TABLE_NAME'));

export const handler = createReadApiHandler(
  {
    config: bundledConfig(),
    runs: store,
    attempts: store,
    issues: store,
    hosts: store,
    objects: bucketStore({}, requiredEnv('DATA_BUCKET')),
    pairing: pairingCheck({}),
    budget: store,
    clock: systemClock,
    maxAnswerBytes: LAMBDA_ANSWER_BYTES,
  },
  instrumentation('read-api'),
  process.env.ANALYST_GROUP,
);
