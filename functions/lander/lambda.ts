// The lander's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { bucketStore, queue, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { tableStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createLanderHandler } from './handler.ts';

const store = tableStore({}, requiredEnv('TABLE_NAME'));

export const handler = createLanderHandler(
  {
    runs: store,
    attempts: store,
    issues: store,
    hosts: store,
    objects: bucketStore({}, requiredEnv('DATA_BUCKET')),
    inbox: bucketStore({}, requiredEnv('INBOX_BUCKET')),
    judgeQueue: queue<JudgeMessage>({}, requiredEnv('JUDGE_QUEUE_URL')),
    clock: systemClock,
  },
  instrumentation('lander'),
);
