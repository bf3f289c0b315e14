// Builds the deployment's stacks from a parsed configuration. `app.ts` calls it for `cdk synth`; the
// infra tests call it with their own configurations.
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { ReplayConfig } from './deployment-config.ts';
import { CockpitStack, cockpitsByStack } from './cockpit-stack.ts';
import { PipelineStack } from './pipeline-stack.ts';
import { StatefulStack } from './stateful-stack.ts';

const STATEFUL_STACK = 'ReplayBench-State';
const PIPELINE_STACK = 'ReplayBench-Pipeline';
const cockpitStackName = (index: number) => `ReplayBench-Cockpits-${index}`;
/** Prefixes the names that must be unique in the account. */
const NAME_PREFIX = 'ReplayBench-';

export interface ReplayAppOptions {
  config: ReplayConfig;
  dashboardDir: string;
  /** cdk-nag's AwsSolutions pack: an unacknowledged finding fails the synth. */
  checks: boolean;
}

export function addReplayStacks(
  app: App,
  options: ReplayAppOptions,
): { state: StatefulStack; pipeline: PipelineStack; cockpits: CockpitStack[] } {
  const { config } = options;
  const cockpitsOfStacks = cockpitsByStack(config, cockpitStackName);
  // Environment-agnostic on purpose: the template is the same offline, in CI and at deploy time, and
  // nothing in it needs a lookup.
  const state = new StatefulStack(app, STATEFUL_STACK, {
    config,
    description: 'replay-bench: table, buckets, queues, secrets (retained)',
  });
  const pipeline = new PipelineStack(app, PIPELINE_STACK, {
    config,
    state,
    namePrefix: NAME_PREFIX,
    description: 'replay-bench: functions, ingest endpoint, schedule, alarms',
  });
  const cockpits = cockpitsOfStacks.map(
    (names, index) =>
      new CockpitStack(app, cockpitStackName(index), {
        config,
        state,
        headers: pipeline.cockpitHeaders,
        dashboardDir: options.dashboardDir,
        cockpits: names,
        description: `replay-bench: cockpits, ${names.length} of them (their URLs are the outputs)`,
      }),
  );
  if (options.checks) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { state, pipeline, cockpits };
}
