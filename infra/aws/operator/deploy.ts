// `npm run deploy`: the whole deploy in one command (docs/deploy.md, "Deploy"). It checks the configuration
// before anything else (a wrong file stops here with the schema's sentence), finds the region and
// credentials (aws-target.ts; a missing one is a sentence and the command that fixes it), prints the
// account's Lambda concurrency (a warning below 100), bootstraps the account and region if CDK's toolkit
// stack is missing, moves a table made before the narrower indexes through its steps (one index per deploy),
// shows `cdk diff`, deploys every stack with an outputs file, adds each space's ingest URL to that file, and
// prints the URLs a runner host and an analyst need.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { indexMigrationSteps } from '#core/storage-layout.ts';
import { readConfigFile, type ReplayConfig } from '#schema/config.ts';
import { CONFIG_CONTEXT_KEY, DEPLOY_CONFIG_OPTION, deploymentConfigPath } from '../deployment-config.ts';
import { concurrencyReport, type AwsTarget, type LambdaConcurrency } from './aws-target.ts';
import {
  DEPLOYMENT_CONTEXT_KEY,
  deploymentNamesFrom,
  INDEX_STEP_CONTEXT_KEY,
  STATEFUL_STACK,
} from '../deployment-names.ts';
import { OperatorError } from './operator-command.ts';
import { cockpitUrls, INGEST_URLS, readOutputs, withIngestUrls } from './outputs.ts';

export interface DeployOptions {
  /** `-c replayConfig=FILE`, relative to the project root; else REPLAY_CONFIG or replay.config.json. */
  configFile?: string;
  /** A named deployment (`-c deployment=NAME`); none: the default deployment. */
  deployment?: string;
  outputsFile: string;
}

export interface DeployPorts {
  /** Runs a command with the terminal attached and these variables added to its environment; its exit code. */
  run(command: string, args: string[], env: Record<string, string>): Promise<number>;
  /** The region and credentials (aws-target.ts `resolveAwsTarget`); an OperatorError names what is missing. */
  target(): Promise<AwsTarget>;
  /** The account's Lambda concurrency in the target region. */
  concurrency(target: AwsTarget): Promise<LambdaConcurrency>;
  /** Whether CDK's toolkit stack is in place in the target account and region. */
  bootstrapped(target: AwsTarget): Promise<boolean>;
  /** The index names of the table the stateful stack made; null before the first deploy. */
  tableIndexes(target: AwsTarget, stateStack: string): Promise<string[] | null>;
  print(line: string): void;
}

const USAGE = 'usage: npm run deploy -- [--config FILE] [--deployment NAME] [--outputs FILE]';

export function parseDeployArgs(args: string[]): DeployOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        config: { type: 'string' },
        deployment: { type: 'string' },
        outputs: { type: 'string' },
        // Read only to say what it is called now: deploying the default deployment instead would be a surprise.
        stage: { type: 'string' },
      },
    });
  } catch (e) {
    throw new OperatorError(`${(e as Error).message} ${USAGE}`);
  }
  const { config, deployment, outputs, stage } = parsed.values;
  if (stage !== undefined) throw new OperatorError(`--stage ${stage} is now --deployment ${stage}. ${USAGE}`);
  return {
    configFile: config,
    deployment,
    outputsFile: outputs ?? (deployment ? `cdk-outputs.${deployment}.json` : 'cdk-outputs.json'),
  };
}

export async function deploy(options: DeployOptions, ports: DeployPorts): Promise<void> {
  // Both refuse with a sentence before any AWS call.
  const config: ReplayConfig = readConfigFile(
    deploymentConfigPath(options.configFile, process.env, undefined, DEPLOY_CONFIG_OPTION),
  );
  const names = deploymentNamesFrom(options.deployment);
  const target = await ports.target();
  ports.print(
    `Deploying to ${target.region} (from ${target.regionFrom}) with the credentials of profile ${target.profile}.`,
  );
  for (const line of concurrencyReport(await ports.concurrency(target), target)) ports.print(line);
  const context = [
    ...(options.configFile ? ['-c', `${CONFIG_CONTEXT_KEY}=${options.configFile}`] : []),
    ...(options.deployment ? ['-c', `${DEPLOYMENT_CONTEXT_KEY}=${options.deployment}`] : []),
  ];
  const cdk = async (...args: string[]) => {
    // The CDK CLI would find the same region; saying it keeps every command on the one this command checked.
    const code = await ports.run('npx', ['cdk', ...args, ...context], {
      AWS_REGION: target.region,
      AWS_DEFAULT_REGION: target.region,
    });
    if (code !== 0) throw new OperatorError(`cdk ${args[0]} failed (exit ${code}); nothing after it ran.`);
  };

  if (!(await ports.bootstrapped(target))) {
    ports.print('CDK has not bootstrapped this account and region yet: bootstrapping.');
    await cdk('bootstrap');
  }
  // CloudFormation adds or removes one index per update: a table made before the narrower indexes takes its
  // steps first (an adopted table's indexes are the operator's: docs/deploy.md, "Narrower indexes").
  const stateStack = names.prefixed(STATEFUL_STACK);
  const steps = config.adopt?.table ? [] : indexMigrationSteps(await ports.tableIndexes(target, stateStack));
  for (const step of steps) {
    ports.print(
      `The table has indexes from before the narrower ones: step ${step} of 4 (docs/deploy.md, "Narrower indexes").`,
    );
    const atStep = ['-c', `${INDEX_STEP_CONTEXT_KEY}=${step}`, '--require-approval', 'broadening'];
    // Step 3 deploys the functions that read the new indexes; the others change the table only.
    if (step === 3) await cdk('deploy', '--all', '--outputs-file', options.outputsFile, ...atStep);
    else await cdk('deploy', stateStack, ...atStep);
  }
  await cdk('diff', '--all');
  await cdk('deploy', '--all', '--outputs-file', options.outputsFile, '--require-approval', 'broadening');

  const outputs = withIngestUrls(readOutputs(options.outputsFile), Object.keys(config.spaces));
  writeFileSync(options.outputsFile, `${JSON.stringify(outputs, null, 2)}\n`);
  ports.print(`Deployed. Outputs in ${options.outputsFile}.`);
  ports.print('Runner hosts send to:');
  for (const [space, url] of Object.entries(outputs[INGEST_URLS]!)) ports.print(`  ${space}: ${url}`);
  ports.print('Cockpits:');
  for (const [output, url] of cockpitUrls(outputs)) ports.print(`  ${output.replace(/^CockpitUrl/, '')}: ${url}`);
  ports.print(`Check it: npm run smoke -- ${options.outputsFile} --host <a paired host> --key-file <its key file>`);
}

/** CDK's toolkit stack (default qualifier) exists and is usable. */
export async function toolkitStackReady(client: CloudFormationClient, stackName = 'CDKToolkit'): Promise<boolean> {
  try {
    const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const status = Stacks[0]?.StackStatus ?? '';
    return /_COMPLETE$/.test(status) && !/^(ROLLBACK|DELETE)_COMPLETE$/.test(status);
  } catch (e) {
    if (e instanceof Error && e.name === 'ValidationError' && /does not exist/.test(e.message)) return false;
    throw e;
  }
}

/** The index names of the table a deployed stateful stack made (its `TableName` output); null when it has none. */
export async function deployedTableIndexes(
  cloudFormation: CloudFormationClient,
  dynamo: DynamoDBClient,
  stateStack: string,
): Promise<string[] | null> {
  let tableName: string | undefined;
  try {
    const { Stacks = [] } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stateStack }));
    tableName = Stacks[0]?.Outputs?.find((o) => o.OutputKey === 'TableName')?.OutputValue;
  } catch (e) {
    if (e instanceof Error && e.name === 'ValidationError' && /does not exist/.test(e.message)) return null;
    throw e;
  }
  if (!tableName) return null;
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  return (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName!);
}
