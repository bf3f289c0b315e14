import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../shared/schema/config.ts';
import { exampleConfig, synthesize } from './synth.ts';
import { logicalIdOf, mentions, ofType, one } from './template-queries.ts';

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';

describe('a cockpit that requires sign-in (the default)', () => {
  const { state, pipeline } = synthesize(exampleConfig());
  const distributionId = ofType(pipeline, 'AWS::CloudFront::Distribution')[0]![0];
  const readApiId = logicalIdOf(pipeline, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('read API'));
  const siteId = ofType(pipeline, 'AWS::S3::Bucket')[0]![0];
  const config = (ofType(pipeline, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig ?? {}) as Record<string, unknown>;

  it('serves the dashboard from a private bucket through Origin Access Control', () => {
    const origins = config.Origins as { Id: string; DomainName: unknown; OriginAccessControlId?: unknown; S3OriginConfig?: { OriginAccessIdentity: string } }[];
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
    const origins = config.Origins as { Id: string; DomainName: unknown; CustomOriginConfig?: { OriginProtocolPolicy: string } }[];
    const api = origins.find((o) => mentions(o.DomainName, readApiId))!;
    expect(api.CustomOriginConfig?.OriginProtocolPolicy).toBe('https-only');
    expect(config.CacheBehaviors).toEqual([
      expect.objectContaining({ PathPattern: '/api/*', TargetOriginId: api.Id, CachePolicyId: CACHING_DISABLED, AllowedMethods: ['GET', 'HEAD'] }),
    ]);
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
    expect(JSON.stringify(ofType(pipeline, 'AWS::CloudFront::ResponseHeadersPolicy')[0]![1])).toContain("frame-ancestors 'none'");
  });

  it('logs every request to the access-log bucket', () => {
    const accessLogsId = logicalIdOf(state, 'AWS::S3::Bucket', (p) => (p.OwnershipControls as { Rules: { ObjectOwnership: string }[] }).Rules[0]!.ObjectOwnership === 'BucketOwnerPreferred');
    expect(mentions((config.Logging as { Bucket: unknown }).Bucket, accessLogsId)).toBe(true);
  });

  it('checks a Cognito JWT on every read route, issued for this cockpit\'s client', () => {
    const clientId = ofType(pipeline, 'AWS::Cognito::UserPoolClient')[0]![0];
    const userPoolId = ofType(state, 'AWS::Cognito::UserPool')[0]![0];
    const [authorizerId, authorizer] = one(pipeline, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties).toMatchObject({ AuthorizerType: 'JWT', JwtConfiguration: { Audience: [{ Ref: clientId }] } });
    expect(mentions((authorizer.Properties.JwtConfiguration as { Issuer: unknown }).Issuer, userPoolId)).toBe(true);
    const routes = ofType(pipeline, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, readApiId));
    expect(routes.map(([, r]) => [r.Properties.RouteKey, r.Properties.AuthorizationType, r.Properties.AuthorizerId])).toEqual([
      ['GET /api/{proxy+}', 'JWT', { Ref: authorizerId }],
    ]);
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
    parseConfig({ spaces: { Demo: { senders: ['mac-mini-3'] } }, cockpits: { DemoBoard: { space: 'Demo', public: true } } }),
  );

  it('has no sign-in anywhere', () => {
    state.resourceCountIs('AWS::Cognito::UserPool', 0);
    pipeline.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    pipeline.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
  });

  it('serves its read route without an authorizer, GET only', () => {
    const readApiId = logicalIdOf(pipeline, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('read API'));
    const routes = ofType(pipeline, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, readApiId));
    expect(routes.map(([, r]) => [r.Properties.RouteKey, r.Properties.AuthorizationType])).toEqual([['GET /api/{proxy+}', 'NONE']]);
  });

  it('keeps the private bucket, OAC and security headers', () => {
    pipeline.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    pipeline.hasResourceProperties('AWS::S3::Bucket', { PublicAccessBlockConfiguration: Match.objectLike({ RestrictPublicBuckets: true }) });
    expect(JSON.stringify(ofType(pipeline, 'AWS::CloudFront::ResponseHeadersPolicy')[0]![1])).not.toContain('amazoncognito');
  });
});

describe('names', () => {
  it('of the longest allowed length still fit the AWS fields they appear in', () => {
    const name = 'C'.repeat(200);
    const { pipeline } = synthesize(parseConfig({ spaces: { ['S'.repeat(200)]: { senders: ['h'.repeat(200)] } }, cockpits: { [name]: { space: 'S'.repeat(200) } } }));
    const [, distribution] = one(pipeline, 'AWS::CloudFront::Distribution');
    expect(String((distribution.Properties.DistributionConfig as { Comment: string }).Comment).length).toBeLessThanOrEqual(128);
    for (const [, fn] of ofType(pipeline, 'AWS::Lambda::Function')) expect(String(fn.Properties.Description ?? '').length).toBeLessThanOrEqual(256);
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

  it('is optional at synth time: a placeholder page says how to build it', () => {
    const { app } = synthesize(exampleConfig(), { dashboardDir: join(tmpdir(), 'no-such-dashboard') });
    expect(stagedPages(app)).toEqual([expect.stringContaining('npm run build:dashboard')]);
  });

  it('is deployed when it exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>built</title>');
    const { app } = synthesize(exampleConfig(), { dashboardDir: dir });
    expect(stagedPages(app)).toEqual(['<!doctype html><title>built</title>']);
  });
});
