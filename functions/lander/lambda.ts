// The lander's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type JudgeMessage } from '../../shared/ports.ts';
import { requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { DynamoStore, dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { S3ObjectStore, s3Client } from '../../shared/adapters/aws/s3-object-store.ts';
import { SqsQueue, sqsClient } from '../../shared/adapters/aws/sqs-queue.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createLanderHandler } from './handler.ts';

const store = new DynamoStore(dynamoClient({}), requiredEnv('TABLE_NAME'));
const s3 = s3Client({});

export const handler = createLanderHandler(
  {
    runs: store,
    attempts: store,
    issues: store,
    hosts: store,
    objects: new S3ObjectStore(s3, requiredEnv('DATA_BUCKET')),
    inbox: new S3ObjectStore(s3, requiredEnv('INBOX_BUCKET')),
    judgeQueue: new SqsQueue<JudgeMessage>(sqsClient({}), requiredEnv('JUDGE_QUEUE_URL')),
    clock: systemClock,
  },
  instrumentation('lander'),
);
