// The inbox reconciler's AWS wiring, built once per cold start from the environment the stack sets.
import { systemClock, type LandingMessage } from '../../shared/ports.ts';
import { requiredEnv } from '../../shared/adapters/aws/runtime.ts';
import { dynamoClient } from '../../shared/adapters/aws/dynamo-store.ts';
import { DynamoLeaseStore } from '../../shared/adapters/aws/dynamo-lease.ts';
import { DynamoReenqueueLedger } from '../../shared/adapters/aws/dynamo-reenqueue-ledger.ts';
import { S3ObjectStore, s3Client } from '../../shared/adapters/aws/s3-object-store.ts';
import { SqsQueue, sqsClient } from '../../shared/adapters/aws/sqs-queue.ts';
import { instrumentation } from '../../shared/adapters/aws/observability.ts';
import { createInboxReconcilerHandler } from './handler.ts';

const tableName = requiredEnv('TABLE_NAME');
const dynamo = dynamoClient({});
const sqs = sqsClient({});

export const handler = createInboxReconcilerHandler(
  {
    inbox: new S3ObjectStore(s3Client({}), requiredEnv('INBOX_BUCKET')),
    landingQueue: new SqsQueue<LandingMessage>(sqs, requiredEnv('LANDING_QUEUE_URL')),
    landingDeadLetters: new SqsQueue<LandingMessage>(sqs, requiredEnv('LANDING_DLQ_URL')),
    ledger: new DynamoReenqueueLedger(dynamo, tableName),
    leases: new DynamoLeaseStore(dynamo, tableName),
    clock: systemClock,
  },
  instrumentation('inbox-reconciler'),
);
