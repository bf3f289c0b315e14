// Named deployments (`-c deployment=NAME`, infra/aws/deployment-names.ts): the default deployment keeps the names
// deployments had before names, so a deployed stack is updated in place; two named deployments deploy side by side
// in one account without a name in common.
import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { addReplayStacks } from '#infra/aws/replay-app.ts';
import { DeploymentNames, deploymentNamesFrom } from '#infra/aws/deployment-names.ts';
import { ConfigError } from '#schema/config.ts';
import { ACCOUNT, DeploymentRenderer, REGION } from './rendered-policies.ts';
import { richConfig, sharedDashboard, synthesize, templatesOf, testApp } from './synth.ts';
import { functionsByService, ofType, onlyFunction } from './template-queries.ts';

const config = richConfig();

/**
 * Every name that must be unique in an account or region, by where it comes from: the stacks' names and
 * each resource's explicitly chosen name, rendered as CloudFormation would.
 */
function accountNames(templates: Map<string, Template>): string[] {
  const renderer = new DeploymentRenderer(templates);
  const chosen: Record<string, (p: Record<string, unknown>) => unknown> = {
    'AWS::SecretsManager::Secret': (p) => p.Name,
    'AWS::Cognito::UserPoolDomain': (p) => p.Domain,
    'AWS::CloudFront::ResponseHeadersPolicy': (p) => (p.ResponseHeadersPolicyConfig as { Name: unknown }).Name,
    'AWS::CloudFront::OriginAccessControl': (p) => (p.OriginAccessControlConfig as { Name: unknown }).Name,
    'AWS::DynamoDB::Table': (p) => p.TableName,
    'AWS::S3::Bucket': (p) => p.BucketName,
    'AWS::SQS::Queue': (p) => p.QueueName,
    'AWS::SNS::Topic': (p) => p.TopicName,
    'AWS::Lambda::Function': (p) => p.FunctionName,
    'AWS::IAM::Role': (p) => p.RoleName,
    'AWS::IAM::ManagedPolicy': (p) => p.ManagedPolicyName,
    'AWS::Logs::LogGroup': (p) => p.LogGroupName,
    'AWS::CloudWatch::Alarm': (p) => p.AlarmName,
    'AWS::ApiGatewayV2::DomainName': (p) => p.DomainName,
  };
  const names = [...templates.keys()];
  for (const stack of renderer.stackNames())
    for (const resource of Object.values(renderer.resources(stack))) {
      const name = chosen[resource.Type]?.(resource.Properties ?? {});
      if (name !== undefined) names.push(String(renderer.render(stack, name)));
    }
  return names;
}

describe('the default deployment', () => {
  const { templates, state } = synthesize(config);

  it('keeps the stack, secret, Cognito domain and CloudFront policy names deployments already have', () => {
    expect([...templates.keys()]).toEqual([
      'ReplayBench-State',
      'ReplayBench-Pipeline',
      ...Array.from({ length: 10 }, (_, i) => `ReplayBench-Cockpits-${i}`),
      'ReplayBench-Pairing',
    ]);
    const names = accountNames(templates);
    expect(names).toEqual(
      expect.arrayContaining([
        'Hosting/ModuleReportSecret/mac-studio-1',
        'Hosting/DemoSecret/mac-mini-3',
        'ReplayBench/AnthropicApiKey',
        'ReplayBench/GitHubApp',
        `replay-bench-${ACCOUNT}`,
        'ReplayBench-CockpitHeaders-SignedIn',
        'ReplayBench-CockpitHeaders-Public',
      ]),
    );
  });

  // The ids a deployment made before named deployments has (read off a synth of that code): a changed id would make
  // CloudFormation create a new table, bucket or secret beside the retained old one.
  it('keeps the logical ids of everything retained, so CloudFormation updates rather than replaces it', () => {
    const retained = Object.entries(
      (state.toJSON() as { Resources: Record<string, { Type: string; DeletionPolicy?: string }> }).Resources,
    )
      .filter(([, r]) => r.DeletionPolicy === 'Retain')
      .map(([id, r]) => `${r.Type} ${id}`)
      .sort();
    expect(retained).toEqual([
      'AWS::Cognito::UserPool Analysts9E5870EE',
      'AWS::DynamoDB::Table TableCD117FA1',
      'AWS::S3::Bucket AccessLogs8B620ECA',
      'AWS::S3::Bucket Data666C94C7',
      'AWS::S3::Bucket InboxA8E05DC3',
      'AWS::SQS::Queue LandingDlq05C4DBC8',
      'AWS::SQS::Queue LandingQueueFF3F2FA0',
      'AWS::SecretsManager::Secret AnthropicApiKeyC9C806DA',
      'AWS::SecretsManager::Secret GitHubApp9387A822',
      'AWS::SecretsManager::Secret HostKeyHostingDemoSecretmacmini2662EDD50',
      'AWS::SecretsManager::Secret HostKeyHostingDemoSecretmacmini33D18D605',
      'AWS::SecretsManager::Secret HostKeyHostingModuleReportSecretmacmini20ABACF55',
      'AWS::SecretsManager::Secret HostKeyHostingModuleReportSecretmacstudio18D18E44B',
    ]);
  });

  it('tells no function of a secret prefix', () => {
    for (const fn of [...functionsByService(...templates.values()).values()].flat())
      expect(fn.environment.HOST_KEY_SECRET_PREFIX).toBeUndefined();
  });
});

describe('two named deployments in one account', () => {
  const app = testApp();
  for (const name of ['blue', 'green'])
    addReplayStacks(app, { config, names: new DeploymentNames(name), dashboardDir: sharedDashboard(), checks: false });
  const stacks = app.node.children.filter((c): c is Stack => c instanceof Stack);
  const templates = templatesOf(app);
  const ofDeployment = (deployment: string) =>
    new Map([...templates].filter(([name]) => name.startsWith(`${deployment}-`)));
  const blue = ofDeployment('blue');
  const green = ofDeployment('green');

  it('synthesize side by side in one app, each with all its stacks', () => {
    expect(stacks).toHaveLength(26);
    expect([...blue.keys()]).toContain('blue-ReplayBench-State');
    expect([...green.keys()]).toContain('green-ReplayBench-Cockpits-9');
  });

  it('share no name that must be unique in an account, and start each of theirs with the deployment name', () => {
    const blueNames = accountNames(blue);
    const greenNames = accountNames(green);
    expect(blueNames.filter((name) => greenNames.includes(name))).toEqual([]);
    expect(blueNames).toEqual(
      expect.arrayContaining([
        'blue/Hosting/ModuleReportSecret/mac-studio-1',
        'blue/ReplayBench/AnthropicApiKey',
        `blue-replay-bench-${ACCOUNT}`,
        'blue-ReplayBench-CockpitHeaders-SignedIn',
      ]),
    );
    const secrets = (names: Map<string, Template>) =>
      [...names.values()].flatMap((t) => ofType(t, 'AWS::SecretsManager::Secret').map(([, s]) => s.Properties.Name));
    for (const name of secrets(blue)) expect(String(name)).toMatch(/^blue\//);
  });

  it("grant each deployment's functions its own host keys only, and tell them the prefix", () => {
    const pipeline = blue.get('blue-ReplayBench-Pipeline')!;
    const ingest = onlyFunction(pipeline, 'ingest');
    expect(ingest.environment.HOST_KEY_SECRET_PREFIX).toBe('blue/');
    const role = new DeploymentRenderer(blue).roles().find((r) => r.roleId === ingest.roleId)!;
    const resources = JSON.stringify(role.inline);
    expect(resources).toContain(`arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:blue/Hosting/ModuleReportSecret/*`);
    expect(resources).not.toContain(`secret:Hosting/`);
  });
});

describe('deployment names', () => {
  it.each(['blue', 'staging-eu', 'a1'])('accept %s', (name) => {
    expect(deploymentNamesFrom(name).name).toBe(name);
  });

  it('are absent for the default deployment', () => {
    expect(deploymentNamesFrom(undefined).name).toBeUndefined();
    expect(deploymentNamesFrom('').name).toBeUndefined();
  });

  it.each(['Blue', 'blue_green', '-blue', 'blue-', '1blue', 'a'.repeat(21)])('refuse %s with a sentence', (name) => {
    expect(() => deploymentNamesFrom(name)).toThrow(ConfigError);
    expect(() => deploymentNamesFrom(name)).toThrow(/is not a deployment name: use up to 20 lower-case letters/);
  });

  it('refuse the retired -c stage=NAME, naming the key to use, rather than deploying the default deployment', () => {
    expect(() => deploymentNamesFrom(undefined, 'staging')).toThrow(/-c stage=staging is now -c deployment=staging/);
  });
});
