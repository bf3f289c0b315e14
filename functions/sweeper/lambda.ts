// The sweeper's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { bundledConfig, queue, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { tableStore } from '../../shared/adapters/aws/dynamo-store.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createSweeperHandler } from './handler.ts';

const store = tableStore({}, requiredEnv('TABLE_NAME'));

export const handler = createSweeperHandler(
  {
    config: bundledConfig(),
    runs: store,
    judging: store,
    judgeQueue: queue<JudgeMessage>({}, requiredEnv('JUDGE_QUEUE_URL')),
    clock: systemClock,
  },
  instrumentation('sweeper'),
);
