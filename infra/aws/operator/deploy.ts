// `npm run deploy`: the whole deploy in one command (docs/deploy.md, "Deploy"). It checks the configuration
// before anything else (a wrong file stops here with the schema's sentence), bootstraps the account and
// region if CDK's toolkit stack is missing, shows `cdk diff`, deploys every stack with an outputs file,
// adds each space's ingest URL to that file, and prints the URLs a runner host and an analyst need.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DescribeStacksCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { readConfigFile, type ReplayConfig } from '../../../shared/schema/config.ts';
import { CONFIG_CONTEXT_KEY, deploymentConfigPath } from '../deployment-config.ts';
import { STAGE_CONTEXT_KEY, stageNamesFrom } from '../stage-names.ts';
import { OperatorError } from './operator-command.ts';
import { cockpitUrls, INGEST_URLS, readOutputs, withIngestUrls } from './outputs.ts';

export interface DeployOptions {
  /** `-c replayConfig=FILE`, relative to the project root; else REPLAY_CONFIG or replay.config.json. */
  configFile?: string;
  stage?: string;
  outputsFile: string;
}

export interface DeployPorts {
  /** Runs a command with the terminal attached; resolves to its exit code. */
  run(command: string, args: string[]): Promise<number>;
  /** Whether CDK's toolkit stack is in place in the target account and region. */
  bootstrapped(): Promise<boolean>;
  print(line: string): void;
}

const USAGE = 'usage: npm run deploy -- [--config FILE] [--stage NAME] [--outputs FILE]';

export function parseDeployArgs(args: string[]): DeployOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { config: { type: 'string' }, stage: { type: 'string' }, outputs: { type: 'string' } },
    });
  } catch (e) {
    throw new OperatorError(`${(e as Error).message} ${USAGE}`);
  }
  const { config, stage, outputs } = parsed.values;
  return {
    configFile: config,
    stage,
    outputsFile: outputs ?? (stage ? `cdk-outputs.${stage}.json` : 'cdk-outputs.json'),
  };
}

export async function deploy(options: DeployOptions, ports: DeployPorts): Promise<void> {
  // Both refuse with a sentence before any AWS call.
  const config: ReplayConfig = readConfigFile(deploymentConfigPath(options.configFile));
  stageNamesFrom(options.stage);
  const context = [
    ...(options.configFile ? ['-c', `${CONFIG_CONTEXT_KEY}=${options.configFile}`] : []),
    ...(options.stage ? ['-c', `${STAGE_CONTEXT_KEY}=${options.stage}`] : []),
  ];
  const cdk = async (...args: string[]) => {
    const code = await ports.run('npx', ['cdk', ...args, ...context]);
    if (code !== 0) throw new OperatorError(`cdk ${args[0]} failed (exit ${code}); nothing after it ran.`);
  };

  if (!(await ports.bootstrapped())) {
    ports.print('CDK has not bootstrapped this account and region yet: bootstrapping.');
    await cdk('bootstrap');
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
