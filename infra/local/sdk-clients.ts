// AWS SDK clients for what only local mode and the tests do against the emulators: create the table,
// buckets and queues, and poll the queues as Lambda's event source mappings would. The functions
// themselves call AWS through shared/adapters/aws/aws-client.ts.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { AwsConnection } from '../../shared/adapters/aws/aws-client.ts';

const base = (connection: AwsConnection, endpoint: string | undefined) => ({
  region: connection.region,
  credentials: connection.credentials,
  endpoint,
});

export const dynamoClient = (connection: AwsConnection) =>
  new DynamoDBClient(base(connection, connection.endpoints?.dynamodb));

export const s3Client = (connection: AwsConnection) =>
  new S3Client({
    ...base(connection, connection.endpoints?.s3),
    forcePathStyle: connection.s3Emulated,
    ...(connection.s3Emulated
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
  });

// Requests go to the configured or regional endpoint with the queue URL as a parameter, so emulators whose
// queue URLs name an unresolvable host behave like AWS.
export const sqsClient = (connection: AwsConnection) =>
  new SQSClient({ ...base(connection, connection.endpoints?.sqs), useQueueUrlAsEndpoint: false });
