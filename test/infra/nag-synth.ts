// The synth nag.test.ts checks, run in a process of its own (`node --import tsx`, the cloud assembly into
// CDK_OUTDIR). aws-cdk-lib's built-in CloudFormation validation compiles a 9 MB WebAssembly module, and V8
// goes on optimizing it on background threads that a process waits for before it can exit: about a second,
// longer than jest gives a worker to exit before it kills the worker and reports a leak. Beside the default
// stage, a named stage with its own domain, hosted zone and monthly budget: its grants, names, certificates
// and budget are checked too.
import { parseConfig } from '../../shared/schema/config.ts';
import { addReplayStacks } from '../../infra/aws/replay-app.ts';
import { StageNames } from '../../infra/aws/stage-names.ts';
import { richConfig, sharedDashboard, testApp } from './synth.ts';

const app = testApp(true);
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
  names: new StageNames('named'),
  dashboardDir: sharedDashboard(),
  // The checks already run over the whole app.
  checks: false,
});
app.synth();
