// `npm run reassign -- <space> <runId> <host>` (docs/deploy.md, "Reassigning a run").
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { parseReassignArgs, reassign } from '#infra/aws/operator/reassign.ts';
import { runOperatorCommand } from '#infra/aws/operator/operator-command.ts';

await runOperatorCommand(() =>
  reassign(parseReassignArgs(process.argv.slice(2)), (tableName) => new DynamoStore(dynamoClient({}), tableName)),
);
