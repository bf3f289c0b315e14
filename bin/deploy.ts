// `npm run deploy -- [--config FILE] [--deployment NAME] [--outputs FILE]` (docs/deploy.md, "Deploy").
import { spawn } from 'node:child_process';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { ConfigError } from '#schema/config.ts';
import { deployedTableIndexes, deploy, parseDeployArgs, toolkitStackReady } from '#infra/aws/operator/deploy.ts';
import { lambdaConcurrency, resolveAwsTarget, sdkResolvers } from '#infra/aws/operator/aws-target.ts';
import { OperatorError } from '#infra/aws/operator/operator-command.ts';
import { PROJECT_ROOT } from '#infra/config-file.ts';

try {
  await deploy(parseDeployArgs(process.argv.slice(2)), {
    run: (command, args, env) =>
      new Promise((resolve, reject) =>
        spawn(command, args, { cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, ...env } })
          .on('error', reject)
          .on('exit', (code) => resolve(code ?? 1)),
      ),
    target: () => resolveAwsTarget(process.env, sdkResolvers()),
    concurrency: (target) => lambdaConcurrency(new LambdaClient({ region: target.region }), target),
    bootstrapped: (target) => toolkitStackReady(new CloudFormationClient({ region: target.region })),
    tableIndexes: (target, stateStack) =>
      deployedTableIndexes(
        new CloudFormationClient({ region: target.region }),
        new DynamoDBClient({ region: target.region }),
        stateStack,
      ),
    print: (line) => console.log(line),
  });
} catch (error) {
  // A refusal is the operator's to fix: one sentence, no stack trace; anything else is named with its message.
  const refusal = error instanceof OperatorError || error instanceof ConfigError;
  console.error(refusal ? error.message : `${(error as Error).name}: ${(error as Error).message}`);
  process.exitCode = refusal ? 2 : 1;
}
