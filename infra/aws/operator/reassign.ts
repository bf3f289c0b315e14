// `npm run reassign -- <space> <runId> <host>` (docs/deploy.md, "Reassigning a run"): gives a run id that another
// sender of the space landed first to the host named, in the deployed table (its name from the outputs file).
import { parseArgs } from 'node:util';
import { reassignRun, ReassignError } from '#core/landing/reassign.ts';
import type { AttemptStore, ObjectStore, RunStore } from '#core/ports.ts';
import { readConfigFile } from '#schema/config.ts';
import { DEPLOY_CONFIG_OPTION, deploymentConfigPath } from '../deployment-config.ts';
import { OperatorError } from './operator-command.ts';
import { outputOf, readOutputs } from './outputs.ts';

const USAGE = 'usage: npm run reassign -- <space> <runId> <host> [--config FILE] [--outputs FILE]';

export interface Reassign {
  space: string;
  runId: string;
  host: string;
  configFile: string | undefined;
  outputsFile: string;
}

export function parseReassignArgs(args: string[]): Reassign {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { config: { type: 'string' }, outputs: { type: 'string' } },
    });
  } catch (e) {
    throw new OperatorError(`${(e as Error).message} ${USAGE}`);
  }
  const [space, runId, host, ...rest] = parsed.positionals;
  if (!space || !runId || !host || rest.length) throw new OperatorError(`Name a space, a run id and a host. ${USAGE}`);
  const { config, outputs } = parsed.values;
  return { space, runId, host, configFile: config, outputsFile: outputs ?? 'cdk-outputs.json' };
}

/** What the command reads and writes, named by the deployment's outputs. */
export interface DeploymentStores {
  table: RunStore & Pick<AttemptStore, 'listAttempts' | 'archiveAttempt'>;
  /** The data bucket, where a run's texts say whether an attempt carried a patch. */
  data: Pick<ObjectStore, 'getText'>;
}

/** The table's and the data bucket's names from the outputs; the stores are built for them by the caller (bin/reassign.ts). */
export function deploymentNamesOf(outputsFile: string): { tableName: string; dataBucketName: string } {
  const outputs = readOutputs(outputsFile);
  const [tableName, dataBucketName] = [outputOf(outputs, 'TableName'), outputOf(outputs, 'DataBucketName')];
  if (!tableName || !dataBucketName)
    throw new OperatorError(`${outputsFile} names no TableName or DataBucketName: did the deploy finish?`);
  return { tableName, dataBucketName };
}

export async function reassign(
  options: Reassign,
  open: (names: { tableName: string; dataBucketName: string }) => DeploymentStores,
): Promise<string> {
  const config = readConfigFile(deploymentConfigPath(options.configFile, process.env, undefined, DEPLOY_CONFIG_OPTION));
  try {
    const { table, data } = open(deploymentNamesOf(options.outputsFile));
    const outcome = await reassignRun(
      { config, runs: table, attempts: table, objects: data, clock: { now: () => new Date() } },
      options.space,
      options.runId,
      options.host,
    );
    return outcome === 'reassigned'
      ? `Run ${options.runId} of space ${options.space} now belongs to ${options.host}: its newest attempt is the ` +
          `run's, judged anew, and the former owner's is kept as a foreign attempt.`
      : `Run ${options.runId} of space ${options.space} already belongs to ${options.host}; nothing changed.`;
  } catch (e) {
    if (e instanceof ReassignError) throw new OperatorError(e.message);
    throw e;
  }
}
