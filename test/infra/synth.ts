// Builds the deployment the way `cdk synth` does (same cdk.json context and feature flags) but without
// bundling the functions or building the dashboard, so a test file synthesizes in well under a second.
// `bundled-synth.test.ts` runs the real `cdk synth` entry point once, with both.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { parseConfig, type ReplayConfig } from '#schema/config.ts';
import { addReplayStacks } from '#infra/aws/replay-app.ts';
import { DeploymentNames } from '#infra/aws/deployment-names.ts';
import { ReplayFunction } from '#infra/aws/constructs/replay-function.ts';
import { PROJECT_ROOT } from './paths.ts';

export { PROJECT_ROOT };
export const EXAMPLE_CONFIG_PATH = `${PROJECT_ROOT}replay.config.example.json`;
const cdkContext = (JSON.parse(readFileSync(`${PROJECT_ROOT}cdk.json`, 'utf8')) as { context: Record<string, unknown> })
  .context;

export const exampleConfig = (): ReplayConfig => parseConfig(JSON.parse(readFileSync(EXAMPLE_CONFIG_PATH, 'utf8')));

export interface Synthesized {
  app: App;
  state: Template;
  pipeline: Template;
  /** Every stack of the deployment, by stack name. */
  templates: Map<string, Template>;
  /** The template of the stack that holds a cockpit. */
  cockpitTemplate(name: string): Template;
  /** The configuration each function finds in its bundle, by the function's logical id. */
  bundledConfigs: Map<string, ReplayConfig>;
}

/** Stands in for `npm run build:dashboard` output; the dashboard's own build is tested elsewhere. */
export function standInDashboard(html = '<!doctype html><title>stand-in dashboard</title>'): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
  writeFileSync(join(dir, 'index.html'), html);
  return dir;
}
let sharedStandIn: string | undefined;
export const sharedDashboard = () => (sharedStandIn ??= standInDashboard());

/**
 * An app with cdk.json's context that bundles nothing. CloudFormation's own template validation costs
 * seconds per synth; it runs in the real `cdk synth` (bundled-synth.test.ts), not in the files that only read
 * resources. Those files read templates, never the debugging aids a real synth records beside them: the
 * stack trace of every resource's creation and the construct tree (tree.json), a fifth of a synth.
 */
export const testApp = () =>
  new App({
    context: { ...cdkContext, 'aws:cdk:bundling-stacks': [], 'aws:cdk:disable-creation-stack-traces': true },
    builtinCloudFormationValidation: false,
    treeMetadata: false,
  });

/**
 * Runs `build` with Node's own stack trace depth (10 frames, as in `cdk synth`) rather than jest's 100:
 * aws-cdk-lib captures a trace with every acknowledged finding, and jest maps each frame through source maps.
 */
function withNodeStackTraces<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 10;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Every stack's template by stack name, from one synth of the app (Template.fromStack walks the whole
 * construct tree again for each stack it is given).
 */
export function templatesOf(app: App): Map<string, Template> {
  const assembly = withNodeStackTraces(() => app.synth());
  return new Map(
    app.node.children
      .filter((c) => c instanceof Stack)
      .map((stack) => [stack.stackName, Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template)]),
  );
}

/**
 * Each distinct (configuration, options) is synthesized once per test file: the templates, the app and the
 * bundled configurations are only read, never changed, by the tests that share them.
 */
const synthesized = new Map<string, Synthesized>();

export function synthesize(
  config: ReplayConfig = exampleConfig(),
  options: { dashboardDir?: string; deployment?: string } = {},
): Synthesized {
  const key = JSON.stringify([config, options]);
  let result = synthesized.get(key);
  if (!result) {
    result = withNodeStackTraces(() => build(config, options));
    synthesized.set(key, result);
  }
  return result;
}

function build(config: ReplayConfig, options: { dashboardDir?: string; deployment?: string }): Synthesized {
  const app = testApp();
  const stacks = addReplayStacks(app, {
    config,
    names: new DeploymentNames(options.deployment),
    dashboardDir: options.dashboardDir ?? sharedDashboard(),
    checks: false,
  });
  const bundledConfigs = new Map<string, ReplayConfig>();
  for (const fn of [stacks.pipeline, ...stacks.cockpits].flatMap((stack) => stack.node.findAll())) {
    if (fn instanceof ReplayFunction && fn.config)
      bundledConfigs.set(Stack.of(fn).getLogicalId(fn.lambda.node.defaultChild as CfnFunction), fn.config);
  }
  const templates = templatesOf(app);
  return {
    app,
    state: templates.get(stacks.state.stackName)!,
    pipeline: templates.get(stacks.pipeline.stackName)!,
    templates,
    cockpitTemplate: (name) => templates.get(stacks.cockpits.find((stack) => stack.cockpits.has(name))!.stackName)!,
    bundledConfigs,
  };
}

/**
 * Two spaces with different key prefixes, a host that sends to both, a signed-in cockpit and a published
 * one: the shape that tells "granted to the right host keys" apart from "granted to all of them".
 */
export const richConfig = (): ReplayConfig =>
  parseConfig({
    spaces: {
      SmallModelsMeasurements: { senders: ['mac-studio-1', 'mac-mini-2'], repos: ['acme/widgets'] },
      PublicDemo: {
        senders: ['mac-mini-2', 'mac-mini-3'],
        secretConfigKey: 'Hosting:DemoSecret',
        repos: ['acme/demo'],
        judge: { model: 'claude-haiku-4-5', dailyCap: 50 },
      },
    },
    cockpits: {
      SmallModelsBenchmarks: { space: 'SmallModelsMeasurements' },
      Demo: { space: 'PublicDemo', public: true },
    },
    alarms: { email: 'ops@example.com' },
  });
