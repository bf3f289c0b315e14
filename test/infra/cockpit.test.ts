import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#schema/config.ts';
import { COCKPIT_STACKS } from '#infra/aws/cockpit-stack.ts';
import { exampleConfig, standInDashboard, synthesize } from './synth.ts';
import { logicalIdOf, mentions, ofType, one } from './template-queries.ts';

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

describe('a cockpit that requires sign-in (the default)', () => {
  const { state, pipeline: shared, cockpitTemplate } = synthesize(exampleConfig());
  const stack = cockpitTemplate('SmallModelsBenchmarks');
  const distributionId = ofType(stack, 'AWS::CloudFront::Distribution')[0]![0];
  const readApiId = logicalIdOf(stack, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('read API'));
  const siteId = ofType(stack, 'AWS::S3::Bucket')[0]![0];
  const config = (ofType(stack, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig ?? {}) as Record<
    string,
    unknown
  >;

  it('queries the run dataset in its own Athena workgroup: results encrypted under its prefix, settings enforced, scans cut off at 10 GB', () => {
    const [, workGroup] = one(stack, 'AWS::Athena::WorkGroup');
    expect(workGroup.Properties.Name).toBe('ReplayBench-SmallModelsBenchmarks');
    const settings = workGroup.Properties.WorkGroupConfiguration as {
      EnforceWorkGroupConfiguration: boolean;
      BytesScannedCutoffPerQuery: number;
      ResultConfiguration: { OutputLocation: unknown; EncryptionConfiguration: unknown };
    };
    expect(settings.EnforceWorkGroupConfiguration).toBe(true);
    expect(settings.BytesScannedCutoffPerQuery).toBe(10 * 1024 ** 3);
    expect(settings.ResultConfiguration.EncryptionConfiguration).toEqual({ EncryptionOption: 'SSE_S3' });
    expect(JSON.stringify(settings.ResultConfiguration.OutputLocation)).toContain(
      '/athena-results/SmallModelsMeasurements/SmallModelsBenchmarks/',
    );
  });

  it('serves the dashboard from a private bucket through Origin Access Control', () => {
    const origins = config.Origins as {
      Id: string;
      DomainName: unknown;
      OriginAccessControlId?: unknown;
      S3OriginConfig?: { OriginAccessIdentity: string };
    }[];
    const s3 = origins.find((o) => mentions(o.DomainName, siteId))!;
    expect(s3.OriginAccessControlId).toBeDefined();
    expect(s3.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    stack.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: siteId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Condition: { StringEquals: { 'AWS:SourceArn': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('caches nothing of its API, the hosts list included: its answers depend on who asks', () => {
    const behaviors = (config.CacheBehaviors as { PathPattern: string }[]).map((b) => b.PathPattern);
    expect(behaviors).toEqual(['/api/*']);
    shared.resourceCountIs('AWS::CloudFront::CachePolicy', 0);
  });

  it('sends /api/* uncached to its read API over HTTPS', () => {
    const origins = config.Origins as {
      Id: string;
      DomainName: unknown;
      CustomOriginConfig?: { OriginProtocolPolicy: string };
    }[];
    const api = origins.find((o) => mentions(o.DomainName, readApiId))!;
    expect(api.CustomOriginConfig?.OriginProtocolPolicy).toBe('https-only');
    expect(config.CacheBehaviors).toEqual([
      expect.objectContaining({
        PathPattern: '/api/*',
        TargetOriginId: api.Id,
        CachePolicyId: CACHING_DISABLED,
        AllowedMethods: ['GET', 'HEAD'],
      }),
    ]);
  });

  it("forwards the viewer's Accept-Encoding (and Authorization) to the read API, so gzip answers reach the browser", () => {
    const [api] = config.CacheBehaviors as { CachePolicyId: string; OriginRequestPolicyId: string }[];
    // CachingDisabled leaves CloudFront's own Accept-Encoding normalisation off, so the header is an
    // ordinary viewer header: the origin request policy decides, and AWS's managed AllViewerExceptHostHeader
    // passes every one but Host, without taking one of the account's 20 custom policies.
    expect(api!.CachePolicyId).toBe(CACHING_DISABLED);
    expect(api!.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    for (const template of [shared, stack]) template.resourceCountIs('AWS::CloudFront::OriginRequestPolicy', 0);
  });

  it('sends security headers and redirects to HTTPS, from the policy all signed-in cockpits share', () => {
    expect(config.DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https' });
    stack.resourceCountIs('AWS::CloudFront::ResponseHeadersPolicy', 0);
    const [policyId, policy] = one(shared, 'AWS::CloudFront::ResponseHeadersPolicy');
    expect(policy.Properties.ResponseHeadersPolicyConfig).toMatchObject({
      Name: 'ReplayBench-CockpitHeaders-SignedIn',
      SecurityHeadersConfig: {
        StrictTransportSecurity: expect.objectContaining({ AccessControlMaxAgeSec: 31536000 }),
        FrameOptions: { FrameOption: 'DENY', Override: true },
        ContentTypeOptions: { Override: true },
        ContentSecurityPolicy: expect.objectContaining({ Override: true }),
      },
    });
    expect(JSON.stringify(policy)).toContain("frame-ancestors 'none'");
    expect(
      mentions((config.DefaultCacheBehavior as { ResponseHeadersPolicyId: unknown }).ResponseHeadersPolicyId, policyId),
    ).toBe(true);
  });

  it('logs every request to the access-log bucket', () => {
    const accessLogsId = logicalIdOf(
      state,
      'AWS::S3::Bucket',
      (p) =>
        (p.OwnershipControls as { Rules: { ObjectOwnership: string }[] }).Rules[0]!.ObjectOwnership ===
        'BucketOwnerPreferred',
    );
    expect(mentions((config.Logging as { Bucket: unknown }).Bucket, accessLogsId)).toBe(true);
  });

  it("checks a Cognito JWT on every read route, issued for this cockpit's client", () => {
    const clientId = ofType(stack, 'AWS::Cognito::UserPoolClient')[0]![0];
    const userPoolId = ofType(state, 'AWS::Cognito::UserPool')[0]![0];
    const [authorizerId, authorizer] = one(stack, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      JwtConfiguration: { Audience: [{ Ref: clientId }] },
    });
    expect(mentions((authorizer.Properties.JwtConfiguration as { Issuer: unknown }).Issuer, userPoolId)).toBe(true);
    const routes = ofType(stack, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, readApiId));
    expect(
      routes.map(([, r]) => [r.Properties.RouteKey, r.Properties.AuthorizationType, r.Properties.AuthorizerId]),
    ).toEqual([['GET /api/{proxy+}', 'JWT', { Ref: authorizerId }]]);
  });

  it('answers only analysts in its own Cognito group, kept with the user pool', () => {
    const userPoolId = ofType(state, 'AWS::Cognito::UserPool')[0]![0];
    const [, group] = one(state, 'AWS::Cognito::UserPoolGroup');
    expect(group.Properties).toMatchObject({
      GroupName: 'cockpit-SmallModelsBenchmarks',
      UserPoolId: { Ref: userPoolId },
    });
    const readFunction = ofType(stack, 'AWS::Lambda::Function').find(([, f]) =>
      String(f.Properties.Description).startsWith('GET /api/*'),
    )![1];
    expect(
      (readFunction.Properties.Environment as { Variables: Record<string, unknown> }).Variables.ANALYST_GROUP,
    ).toBe('cockpit-SmallModelsBenchmarks');
  });

  it('signs in with the authorization code flow, back to its own address only', () => {
    stack.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
      GenerateSecret: false,
      CallbackURLs: [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] }],
    });
  });
});

describe('a cockpit published with "public": true', () => {
  const {
    state,
    pipeline: shared,
    cockpitTemplate,
  } = synthesize(
    parseConfig({
      spaces: { Demo: { senders: ['mac-mini-3'], repos: ['acme/demo'] } },
      cockpits: { DemoBoard: { space: 'Demo', public: true } },
    }),
  );
  const stack = cockpitTemplate('DemoBoard');

  it('has no sign-in anywhere', () => {
    state.resourceCountIs('AWS::Cognito::UserPool', 0);
    state.resourceCountIs('AWS::Cognito::UserPoolGroup', 0);
    stack.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    stack.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
  });

  it('serves its read route without an authorizer, GET only', () => {
    const readApiId = logicalIdOf(stack, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('read API'));
    const routes = ofType(stack, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, readApiId));
    expect(routes.map(([, r]) => [r.Properties.RouteKey, r.Properties.AuthorizationType])).toEqual([
      ['GET /api/{proxy+}', 'NONE'],
    ]);
  });

  it('keeps the private bucket, OAC and security headers', () => {
    stack.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    stack.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: Match.objectLike({ RestrictPublicBuckets: true }),
    });
    const [, policy] = one(shared, 'AWS::CloudFront::ResponseHeadersPolicy');
    expect((policy.Properties.ResponseHeadersPolicyConfig as { Name: string }).Name).toBe(
      'ReplayBench-CockpitHeaders-Public',
    );
    expect(JSON.stringify(policy)).not.toContain('amazoncognito');
  });

  it('caches its hosts list a minute at the edge, matched before the uncached /api/*, with a policy of the deployment', () => {
    const behaviors = (
      one(stack, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig as {
        CacheBehaviors: { PathPattern: string; CachePolicyId: unknown; TargetOriginId: string }[];
      }
    ).CacheBehaviors;
    expect(behaviors.map((b) => b.PathPattern)).toEqual(['/api/spaces/*/hosts', '/api/*']);
    expect(behaviors[0]!.TargetOriginId).toBe(behaviors[1]!.TargetOriginId);
    const [policyId, policy] = one(shared, 'AWS::CloudFront::CachePolicy');
    expect(JSON.stringify(behaviors[0]!.CachePolicyId)).toContain(policyId);
    expect(policy.Properties.CachePolicyConfig).toMatchObject({
      Name: 'ReplayBench-CockpitHeaders-PublicHostsCache',
      MinTTL: 60,
      DefaultTTL: 60,
      MaxTTL: 60,
      ParametersInCacheKeyAndForwardedToOrigin: {
        HeadersConfig: { HeaderBehavior: 'none' },
        CookiesConfig: { CookieBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'none' },
      },
    });
  });
});

describe('several private cockpits', () => {
  const config = parseConfig({
    spaces: {
      Alpha: { senders: ['mac-studio-1'], repos: ['acme/alpha'] },
      Beta: { senders: ['mac-studio-1'], repos: ['acme/beta'] },
    },
    cockpits: { AlphaBoard: { space: 'Alpha' }, BetaBoard: { space: 'Beta' } },
  });
  const { state, pipeline: shared, cockpitTemplate } = synthesize(config);

  it('share one user pool, with a group per cockpit, and each read API requires its own group only', () => {
    state.resourceCountIs('AWS::Cognito::UserPool', 1);
    expect(
      ofType(state, 'AWS::Cognito::UserPoolGroup')
        .map(([, g]) => g.Properties.GroupName)
        .sort(),
    ).toEqual(['cockpit-AlphaBoard', 'cockpit-BetaBoard']);
    const required = [...new Set(['AlphaBoard', 'BetaBoard'].map(cockpitTemplate))]
      .flatMap((template) => ofType(template, 'AWS::Lambda::Function'))
      .filter(([, f]) => String(f.Properties.Description).startsWith('GET /api/*'))
      .map(([, f]) => [
        /cockpit (\w+):/.exec(String(f.Properties.Description))![1],
        (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables.ANALYST_GROUP,
      ]);
    expect(required.sort()).toEqual([
      ['AlphaBoard', 'cockpit-AlphaBoard'],
      ['BetaBoard', 'cockpit-BetaBoard'],
    ]);
  });

  it('share one response headers policy', () => {
    one(shared, 'AWS::CloudFront::ResponseHeadersPolicy');
  });
});

describe('cockpit stacks', () => {
  it('are all synthesized, those without a cockpit holding one no-op resource, so a removed cockpit is deleted', () => {
    const { templates, cockpitTemplate } = synthesize(exampleConfig());
    const cockpitStacks = [...templates].filter(([name]) => name.startsWith('ReplayBench-Cockpits-'));
    expect(cockpitStacks).toHaveLength(COCKPIT_STACKS);
    const holding = cockpitTemplate('SmallModelsBenchmarks');
    for (const [name, template] of cockpitStacks) {
      if (template === holding) continue;
      const types = Object.values((template.toJSON() as { Resources: Record<string, { Type: string }> }).Resources);
      expect({ name, types: types.map((r) => r.Type) }).toEqual({
        name,
        types: ['AWS::CloudFormation::WaitConditionHandle'],
      });
    }
  });
});

describe('names', () => {
  it('of the longest allowed length still fit the AWS fields they appear in', () => {
    const name = 'C'.repeat(200);
    const { state, cockpitTemplate } = synthesize(
      parseConfig({
        spaces: { ['S'.repeat(200)]: { senders: ['h'.repeat(200)], repos: ['acme/widgets'] } },
        cockpits: { [name]: { space: 'S'.repeat(200) } },
      }),
    );
    const stack = cockpitTemplate(name);
    const [, distribution] = one(stack, 'AWS::CloudFront::Distribution');
    expect(String(one(state, 'AWS::Cognito::UserPoolGroup')[1].Properties.GroupName).length).toBeLessThanOrEqual(128);
    expect(
      String((distribution.Properties.DistributionConfig as { Comment: string }).Comment).length,
    ).toBeLessThanOrEqual(128);
    for (const [, fn] of ofType(stack, 'AWS::Lambda::Function'))
      expect(String(fn.Properties.Description ?? '').length).toBeLessThanOrEqual(256);
    expect(String(one(stack, 'AWS::ApiGatewayV2::Api')[1].Properties.Name).length).toBeLessThanOrEqual(128);
  });

  it('of the HTTP APIs say what each is, with the deployment name in front', () => {
    const apiNames = (s: ReturnType<typeof synthesize>) =>
      [...s.templates.values()].flatMap((t) => ofType(t, 'AWS::ApiGatewayV2::Api').map(([, a]) => a.Properties.Name));
    expect(apiNames(synthesize(exampleConfig())).sort()).toEqual([
      'ReplayBench-CockpitRead-SmallModelsBenchmarks',
      'ReplayBench-Ingest',
    ]);
    expect(apiNames(synthesize(exampleConfig(), { deployment: 'staging' })).sort()).toEqual([
      'staging-ReplayBench-CockpitRead-SmallModelsBenchmarks',
      'staging-ReplayBench-Ingest',
    ]);
  });
});

describe('the dashboard deployment', () => {
  it("logs to a log group of its stack, kept a month and deleted with the stack, not Lambda's own that keeps logs for ever", () => {
    const stack = synthesize(exampleConfig()).cockpitTemplate('SmallModelsBenchmarks');
    // The library's handler: the one function that is not ours (ours all name their Powertools service).
    const handlers = ofType(stack, 'AWS::Lambda::Function').filter(
      ([, fn]) => !JSON.stringify(fn.Properties.Environment ?? {}).includes('POWERTOOLS_SERVICE_NAME'),
    );
    expect(handlers).toHaveLength(1);
    const logGroupId = (handlers[0]![1].Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    const logGroup = (
      stack.toJSON() as {
        Resources: Record<string, { Type: string; Properties: { RetentionInDays: number }; DeletionPolicy: string }>;
      }
    ).Resources[logGroupId]!;
    expect(logGroup).toMatchObject({
      Type: 'AWS::Logs::LogGroup',
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'Delete',
    });
  });
});

describe('the dashboard build', () => {
  /** The index.html files the cockpit deployment would upload, as staged in the cloud assembly. */
  const stagedPages = (app: App): string[] => {
    const dir = app.synth().directory;
    return readdirSync(dir)
      .filter((entry) => entry.startsWith('asset.') && existsSync(join(dir, entry, 'index.html')))
      .map((entry) => readFileSync(join(dir, entry, 'index.html'), 'utf8'));
  };

  it('is required: without it there is no cockpit to synthesize, so no deploy ships a placeholder', () => {
    const missing = join(tmpdir(), 'no-such-dashboard');
    expect(() => synthesize(exampleConfig(), { dashboardDir: missing })).toThrow(
      `The dashboard is not built in ${missing}`,
    );
  });

  it('is deployed as built', () => {
    const { app } = synthesize(exampleConfig(), {
      dashboardDir: standInDashboard('<!doctype html><title>built</title>'),
    });
    expect(stagedPages(app)).toEqual(['<!doctype html><title>built</title>']);
  });
});
