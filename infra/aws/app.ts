// `cdk synth` / `cdk deploy` entry point (cdk.json "app"). Reads the configuration by local mode's rule
// (see deployment-config.ts) and builds the dashboard into the cloud assembly, so every synth ships the
// current cockpit.
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildDashboard } from '../../dashboard/build-dashboard.ts';
import { readConfigFile } from '../../shared/schema/config.ts';
import { CONFIG_CONTEXT_KEY, ConfigError, deploymentConfigPath } from './deployment-config.ts';
import { addReplayStacks } from './replay-app.ts';
import { STAGE_CONTEXT_KEY, stageNamesFrom } from './stage-names.ts';

try {
  const app = new App();
  const config = readConfigFile(deploymentConfigPath(app.node.tryGetContext(CONFIG_CONTEXT_KEY)));
  const dashboardDir = join(app.outdir, 'dashboard');
  await buildDashboard(dashboardDir);
  addReplayStacks(app, {
    config,
    names: stageNamesFrom(app.node.tryGetContext(STAGE_CONTEXT_KEY)),
    dashboardDir,
    checks: true,
  });
  app.synth();
} catch (error) {
  // A wrong or missing configuration is the operator's to fix: one sentence, without a stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
