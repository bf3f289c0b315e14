// The synth nag.test.ts checks, run in a process of its own (`node --import tsx`, the cloud assembly into
// CDK_OUTDIR), where aws-cdk-lib loads at Node's own speed. Beside the default deployment, a named deployment with its
// own domain, hosted zone and monthly budget: its grants, names, certificates and budget are checked too; and
// a deployment with the ingest firewall.
// CloudFormation's template validation is not run here: the real `cdk synth` in bundled-synth.test.ts runs
// it over a deployment with the same kinds of resources.
import { parseConfig } from '#schema/config.ts';
import { addReplayStacks } from '#infra/aws/replay-app.ts';
import { DeploymentNames } from '#infra/aws/deployment-names.ts';
import { richConfig, sharedDashboard, testApp } from './synth.ts';

const app = testApp();
addReplayStacks(app, { config: richConfig(), dashboardDir: sharedDashboard(), checks: true });
addReplayStacks(app, {
  config: parseConfig({
    ...richConfig(),
    alarms: { email: 'ops@example.com', monthlyBudgetUsd: 300 },
    domain: {
      name: 'bench.example.com',
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      cockpitCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
    },
  }),
  names: new DeploymentNames('named'),
  dashboardDir: sharedDashboard(),
  // The checks already run over the whole app.
  checks: false,
});
// A deployment with the ingest firewall: its us-east-1 stack and the CloudFront front of ingest.
addReplayStacks(app, {
  config: parseConfig({ ...richConfig(), ingest: { waf: true } }),
  names: new DeploymentNames('guarded'),
  dashboardDir: sharedDashboard(),
  checks: false,
});
app.synth();
