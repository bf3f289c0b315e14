// `cdk synth` / `cdk deploy` entry point (cdk.json "app"). The configuration file is named by the
// `replayConfig` context value, relative to the project root.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { CONFIG_CONTEXT_KEY, ConfigError, EXAMPLE_CONFIG, loadDeploymentConfig } from './deployment-config.ts';
import { addReplayStacks } from './replay-app.ts';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

try {
  const app = new App();
  const configPath = resolve(projectRoot, String(app.node.tryGetContext(CONFIG_CONTEXT_KEY) ?? EXAMPLE_CONFIG));
  addReplayStacks(app, {
    config: loadDeploymentConfig(configPath),
    dashboardDir: resolve(projectRoot, 'dashboard/dist'),
    checks: true,
  });
  app.synth();
} catch (error) {
  // A wrong configuration is the operator's to fix: the schema's sentence, without a stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
