// `npm run deploy -- [--config FILE] [--stage NAME] [--outputs FILE]` (docs/deploy.md, "Deploy").
import { spawn } from 'node:child_process';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { ConfigError } from '../shared/schema/config.ts';
import { deploy, parseDeployArgs, toolkitStackReady } from '../infra/aws/operator/deploy.ts';
import { OperatorError } from '../infra/aws/operator/operator-command.ts';
import { PROJECT_ROOT } from '../infra/config-file.ts';

try {
  const cloudFormation = new CloudFormationClient({});
  await deploy(parseDeployArgs(process.argv.slice(2)), {
    run: (command, args) =>
      new Promise((resolve, reject) =>
        spawn(command, args, { cwd: PROJECT_ROOT, stdio: 'inherit' })
          .on('error', reject)
          .on('exit', (code) => resolve(code ?? 1)),
      ),
    bootstrapped: () => toolkitStackReady(cloudFormation),
    print: (line) => console.log(line),
  });
} catch (error) {
  if (!(error instanceof OperatorError || error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 2;
}
