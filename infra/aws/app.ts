// `cdk synth` / `cdk deploy` entry point (cdk.json "app"). Reads the configuration by local mode's rule
// (see deployment-config.ts) and builds the dashboard into the cloud assembly, so every synth ships the
// current cockpit. The stacks (every aws-cdk-lib module they use, and cdk-nag) and the dashboard's esbuild
// load only once the configuration has been read: a wrong or missing one is reported without waiting
// seconds for them.
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { readConfigFile } from '#schema/config.ts';
import { CONFIG_CONTEXT_KEY, ConfigError, deploymentConfigPath } from './deployment-config.ts';
import { DEPLOYMENT_CONTEXT_KEY, deploymentNamesFrom, RETIRED_CONTEXT_KEY } from './deployment-names.ts';

try {
  const app = new App();
  const config = readConfigFile(deploymentConfigPath(app.node.tryGetContext(CONFIG_CONTEXT_KEY)));
  const names = deploymentNamesFrom(
    app.node.tryGetContext(DEPLOYMENT_CONTEXT_KEY),
    app.node.tryGetContext(RETIRED_CONTEXT_KEY),
  );
  const [{ buildDashboard }, { addReplayStacks }] = await Promise.all([
    import('#dashboard/build-dashboard.ts'),
    import('./replay-app.ts'),
  ]);
  const dashboardDir = join(app.outdir, 'dashboard');
  await buildDashboard(dashboardDir);
  addReplayStacks(app, { config, names, dashboardDir, checks: true });
  app.synth();
} catch (error) {
  // A wrong or missing configuration is the operator's to fix: one sentence, without a stack trace.
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
