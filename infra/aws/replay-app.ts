// Builds the deployment's stacks from a parsed configuration. `app.ts` calls it for `cdk synth`; the
// infra tests call it with their own configurations.
import { Tags, Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { ReplayConfig } from './deployment-config.ts';
import { CockpitStack, cockpitsByStack } from './cockpit-stack.ts';
import { PairingStack } from './pairing-stack.ts';
import { PipelineStack } from './pipeline-stack.ts';
import { IngestFirewallStack } from './ingest-firewall-stack.ts';
import { StatefulStack } from './stateful-stack.ts';
import { DEPLOYMENT_TAG, DeploymentNames, STATEFUL_STACK } from './deployment-names.ts';

const PIPELINE_STACK = 'ReplayBench-Pipeline';
const COCKPIT_STACK = 'ReplayBench-Cockpits';
const PAIRING_STACK = 'ReplayBench-Pairing';
const FIREWALL_STACK = 'ReplayBench-IngestFirewall';

export interface ReplayAppOptions {
  config: ReplayConfig;
  /** The named deployment (`-c deployment=NAME`); by default the default deployment, which has no name. */
  names?: DeploymentNames;
  dashboardDir: string;
  /** cdk-nag's AwsSolutions pack: an unacknowledged finding fails the synth. */
  checks: boolean;
}

export function addReplayStacks(
  app: App,
  options: ReplayAppOptions,
): { state: StatefulStack; pipeline: PipelineStack; cockpits: CockpitStack[]; pairing: PairingStack } {
  const { config, names = new DeploymentNames() } = options;
  const cockpitStackName = (index: number) => names.prefixed(`${COCKPIT_STACK}-${index}`);
  const cockpitsOfStacks = cockpitsByStack(config, cockpitStackName);
  // Environment-agnostic on purpose: the template is the same offline, in CI and at deploy time, and
  // nothing in it needs a lookup.
  const state = new StatefulStack(app, names.prefixed(STATEFUL_STACK), {
    config,
    names,
    description: 'replay-bench: table, buckets, queues, secrets (retained)',
    // Deleting this stack by mistake would orphan everything stored; teardown turns this off first.
    terminationProtection: true,
  });
  const firewall = config.ingest.waf
    ? new IngestFirewallStack(app, names.prefixed(FIREWALL_STACK), {
        config,
        names,
        description: 'replay-bench: the ingest firewall, an AWS WAF web ACL (us-east-1, where CloudFront takes them)',
      })
    : undefined;
  const pipeline = new PipelineStack(app, names.prefixed(PIPELINE_STACK), {
    config,
    state,
    names,
    firewall,
    description: 'replay-bench: functions, ingest endpoint, schedule, alarms',
  });
  const cockpits = cockpitsOfStacks.map(
    (names, index) =>
      new CockpitStack(app, cockpitStackName(index), {
        config,
        state,
        headers: pipeline.cockpitHeaders,
        alarms: pipeline.alarms,
        dashboardDir: options.dashboardDir,
        cockpits: names,
        description: `replay-bench: cockpits, ${names.length} of them (their URLs are the outputs)`,
      }),
  );
  const pairing = new PairingStack(app, names.prefixed(PAIRING_STACK), {
    config,
    names,
    description: 'replay-bench: one policy per host key for whoever pairs that host',
  });
  // Cost-allocation tags on every resource that takes tags (activate them once in the Billing console).
  for (const stack of [state, pipeline, ...cockpits, pairing, ...(firewall ? [firewall] : [])]) {
    Tags.of(stack).add('project', 'replay-bench');
    Tags.of(stack).add(DEPLOYMENT_TAG, names.tagValue);
  }
  if (options.checks) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { state, pipeline, cockpits, pairing };
}
