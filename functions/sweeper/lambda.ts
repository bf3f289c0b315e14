// The sweeper's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { bundledConfig, requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { SqsQueue, sqsClient } from '../../shared/adapters/aws/sqs-queue.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createSweeperHandler } from './handler.ts';

const store = new DynamoStore(dynamoClient({}), requiredEnv('TABLE_NAME'));

export const handler = createSweeperHandler(
  {
    config: bundledConfig(),
    runs: store,
    judging: store,
    judgeQueue: new SqsQueue<JudgeMessage>(sqsClient({}), requiredEnv('JUDGE_QUEUE_URL')),
    clock: systemClock,
  },
  instrumentation('sweeper'),
);
