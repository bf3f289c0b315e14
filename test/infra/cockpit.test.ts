import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../shared/schema/config.ts';
import { exampleConfig, standInDashboard, synthesize } from './synth.ts';
import { logicalIdOf, mentions, ofType, one } from './template-queries.ts';

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';

describe('a cockpit that requires sign-in (the default)', () => {
  const { state, pipeline } = synthesize(exampleConfig());
  const distributionId = ofType(pipeline, 'AWS::CloudFront::Distribution')[0]![0];
  const readApiId = logicalIdOf(pipeline, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('read API'));
  const siteId = ofType(pipeline, 'AWS::S3::Bucket')[0]![0];
  const config = (ofType(pipeline, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig ??
    {}) as Record<string, unknown>;

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
    pipeline.hasResourceProperties('AWS::S3::BucketPolicy', {
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
    const [api] = config.CacheBehaviors as { CachePolicyId: string; OriginRequestPolicyId: { Ref: string } }[];
    // CachingDisabled leaves CloudFront's own Accept-Encoding normalisation off, so the header is an
    // ordinary viewer header: the origin request policy decides, and ours passes every one but Host.
    expect(api!.CachePolicyId).toBe(CACHING_DISABLED);
    const policy = ofType(pipeline, 'AWS::CloudFront::OriginRequestPolicy').find(
      ([id]) => id === api!.OriginRequestPolicyId.Ref,
    )![1];
    const headers = (
      policy.Properties.OriginRequestPolicyConfig as { HeadersConfig: { HeaderBehavior: string; Headers?: string[] } }
    ).HeadersConfig;
    expect(headers.HeaderBehavior).toBe('allExcept');
    expect((headers.Headers ?? []).map((h) => h.toLowerCase())).toEqual(['host']);
  });

  it('sends security headers and redirects to HTTPS', () => {
    expect(config.DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https' });
    pipeline.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 31536000 }),
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ContentTypeOptions: { Override: true },
          ContentSecurityPolicy: Match.objectLike({ Override: true }),
        }),
      },
    });
    expect(JSON.stringify(ofType(pipeline, 'AWS::CloudFront::ResponseHeadersPolicy')[0]![1])).toContain(
      "frame-ancestors 'none'",
    );
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
    const clientId = ofType(pipeline, 'AWS::Cognito::UserPoolClient')[0]![0];
    const userPoolId = ofType(state, 'AWS::Cognito::UserPool')[0]![0];
    const [authorizerId, authorizer] = one(pipeline, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      JwtConfiguration: { Audience: [{ Ref: clientId }] },
    });
    expect(mentions((authorizer.Properties.JwtConfiguration as { Issuer: unknown }).Issuer, userPoolId)).toBe(true);
    const routes = ofType(pipeline, 'AWS::ApiGatewayV2::Route').filter(([, r]) =>
      mentions(r.Properties.ApiId, readApiId),
    );
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
    const readFunction = ofType(pipeline, 'AWS::Lambda::Function').find(([, f]) =>
      String(f.Properties.Description).startsWith('GET /api/*'),
    )![1];
    expect(
      (readFunction.Properties.Environment as { Variables: Record<string, unknown> }).Variables.ANALYST_GROUP,
    ).toBe('cockpit-SmallModelsBenchmarks');
  });

  it('signs in with the authorization code flow, back to its own address only', () => {
    pipeline.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
      GenerateSecret: false,
      CallbackURLs: [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] }],
    });
  });
});

describe('a cockpit published with "public": true', () => {
  const { state, pipeline } = synthesize(
    parseConfig({
      spaces: { Demo: { senders: ['mac-mini-3'], repos: ['acme/demo'] } },
      cockpits: { DemoBoard: { space: 'Demo', public: true } },
    }),
  );

  it('has no sign-in anywhere', () => {
    state.resourceCountIs('AWS::Cognito::UserPool', 0);
    state.resourceCountIs('AWS::Cognito::UserPoolGroup', 0);
    pipeline.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    pipeline.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
  });

  it('serves its read route without an authorizer, GET only', () => {
    const readApiId = logicalIdOf(pipeline, 'AWS::ApiGatewayV2::Api', (p) =>
      String(p.Description).includes('read API'),
    );
    const routes = ofType(pipeline, 'AWS::ApiGatewayV2::Route').filter(([, r]) =>
      mentions(r.Properties.ApiId, readApiId),
    );
    expect(routes.map(([, r]) => [r.Properties.RouteKey, r.Properties.AuthorizationType])).toEqual([
      ['GET /api/{proxy+}', 'NONE'],
    ]);
  });

  it('keeps the private bucket, OAC and security headers', () => {
    pipeline.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    pipeline.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: Match.objectLike({ RestrictPublicBuckets: true }),
    });
    expect(JSON.stringify(ofType(pipeline, 'AWS::CloudFront::ResponseHeadersPolicy')[0]![1])).not.toContain(
      'amazoncognito',
    );
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
  const { state, pipeline } = synthesize(config);

  it('share one user pool, with a group per cockpit, and each read API requires its own group only', () => {
    state.resourceCountIs('AWS::Cognito::UserPool', 1);
    expect(
      ofType(state, 'AWS::Cognito::UserPoolGroup')
        .map(([, g]) => g.Properties.GroupName)
        .sort(),
    ).toEqual(['cockpit-AlphaBoard', 'cockpit-BetaBoard']);
    const required = ofType(pipeline, 'AWS::Lambda::Function')
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
});

describe('names', () => {
  it('of the longest allowed length still fit the AWS fields they appear in', () => {
    const name = 'C'.repeat(200);
    const { state, pipeline } = synthesize(
      parseConfig({
        spaces: { ['S'.repeat(200)]: { senders: ['h'.repeat(200)], repos: ['acme/widgets'] } },
        cockpits: { [name]: { space: 'S'.repeat(200) } },
      }),
    );
    const [, distribution] = one(pipeline, 'AWS::CloudFront::Distribution');
    expect(String(one(state, 'AWS::Cognito::UserPoolGroup')[1].Properties.GroupName).length).toBeLessThanOrEqual(128);
    expect(
      String((distribution.Properties.DistributionConfig as { Comment: string }).Comment).length,
    ).toBeLessThanOrEqual(128);
    for (const [, fn] of ofType(pipeline, 'AWS::Lambda::Function'))
      expect(String(fn.Properties.Description ?? '').length).toBeLessThanOrEqual(256);
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
