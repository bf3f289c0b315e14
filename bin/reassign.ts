// `npm run reassign -- <space> <runId> <host>` (docs/deploy.md, "Reassigning a run").
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { S3ObjectStore, s3Client } from '#adapters/aws/s3-object-store.ts';
import { parseReassignArgs, reassign } from '#infra/aws/operator/reassign.ts';
import { runOperatorCommand } from '#infra/aws/operator/operator-command.ts';

await runOperatorCommand(() =>
  reassign(parseReassignArgs(process.argv.slice(2)), ({ tableName, dataBucketName }) => ({
    table: new DynamoStore(dynamoClient({}), tableName),
    data: new S3ObjectStore(s3Client({}), dataBucketName),
  })),
);
