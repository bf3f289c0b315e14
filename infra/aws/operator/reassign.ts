// `npm run reassign -- <space> <runId> <host>` (docs/deploy.md, "Reassigning a run"): gives a run id that another
// sender of the space landed first to the host named, in the deployed table (its name from the outputs file).
import { parseArgs } from 'node:util';
import { reassignRun, ReassignError } from '#core/landing/reassign.ts';
import type { AttemptStore, RunStore } from '#core/ports.ts';
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

/** The table's name from the outputs; the run store is built for it by the caller (bin/reassign.ts). */
export function tableNameOf(outputsFile: string): string {
  const name = outputOf(readOutputs(outputsFile), 'TableName');
  if (!name) throw new OperatorError(`${outputsFile} names no TableName: did the deploy finish?`);
  return name;
}

export async function reassign(
  options: Reassign,
  table: (tableName: string) => RunStore & Pick<AttemptStore, 'listAttempts' | 'archiveAttempt'>,
): Promise<string> {
  const config = readConfigFile(deploymentConfigPath(options.configFile, process.env, undefined, DEPLOY_CONFIG_OPTION));
  try {
    const store = table(tableNameOf(options.outputsFile));
    const outcome = await reassignRun(
      { config, runs: store, attempts: store, clock: { now: () => new Date() } },
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
