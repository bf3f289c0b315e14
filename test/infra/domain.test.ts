// Stable endpoints (docs/deploy.md): without a domain, the outputs name the AWS addresses; with one, the
// ingest endpoint and each cockpit answer on their own names, with certificates and, given a hosted zone,
// alias records. Either way one output is the ingest URL with {space} left to fill in.
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#schema/config.ts';
import { DeploymentRenderer, REGION } from './rendered-policies.ts';
import { synthesize, type Synthesized } from './synth.ts';
import { one, ofType } from './template-queries.ts';

const spaces = { SmallModelsMeasurements: { senders: ['mac-studio-1'] } };
const cockpits = {
  SmallModelsBenchmarks: { space: 'SmallModelsMeasurements' },
  Public_Demo: { space: 'SmallModelsMeasurements', public: true },
};
const COCKPIT_CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const INGEST_CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/66666666-7777-8888-9999-000000000000';

const outputsOf = (synthesized: Synthesized) => {
  const renderer = new DeploymentRenderer(synthesized.templates);
  return Object.fromEntries(
    renderer.stackNames().flatMap((stack) =>
      Object.entries(
        (synthesized.templates.get(stack)!.toJSON() as { Outputs?: Record<string, { Value: unknown }> }).Outputs ?? {},
      )
        .filter(([name]) => !name.startsWith('PublishOutput'))
        .map(([name, output]) => [name, renderer.render(stack, output.Value)]),
    ),
  );
};

describe('without a domain', () => {
  const synthesized = synthesize(parseConfig({ spaces, cockpits }));

  it('outputs one ingest URL with {space} to fill in, on the API address, with no doubled slash', () => {
    expect(outputsOf(synthesized).IngestUrlTemplate).toMatch(
      new RegExp(`^https://[a-z0-9]+\\.execute-api\\.${REGION}\\.amazonaws\\.com/hooks/\\{space\\}/ingest$`),
    );
  });

  it('outputs each cockpit on its cloudfront.net address', () => {
    expect(outputsOf(synthesized).CockpitUrlSmallModelsBenchmarks).toMatch(/^https:\/\/d[0-9a-f]+\.cloudfront\.net\/$/);
    for (const template of synthesized.templates.values()) {
      template.resourceCountIs('AWS::Route53::RecordSet', 0);
      template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    }
  });
});

describe('with a domain and a hosted zone', () => {
  const synthesized = synthesize(
    parseConfig({
      spaces,
      cockpits,
      domain: {
        name: 'bench.example.com',
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        cockpitCertificateArn: COCKPIT_CERTIFICATE,
      },
    }),
  );
  const { pipeline } = synthesized;
  const cockpitStack = synthesized.cockpitTemplate('SmallModelsBenchmarks');

  it('serves ingest at ingest.{domain} with a certificate validated in the zone, and outputs that URL', () => {
    pipeline.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'ingest.bench.example.com',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: 'ingest.bench.example.com', HostedZoneId: 'Z0123456789ABCDEFGHIJ' }],
    });
    pipeline.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'ingest.bench.example.com' });
    one(pipeline, 'AWS::ApiGatewayV2::ApiMapping');
    const [, record] = one(pipeline, 'AWS::Route53::RecordSet');
    expect(record.Properties).toMatchObject({
      Name: 'ingest.bench.example.com.',
      Type: 'A',
      HostedZoneId: 'Z0123456789ABCDEFGHIJ',
    });
    expect(outputsOf(synthesized).IngestUrlTemplate).toBe('https://ingest.bench.example.com/hooks/{space}/ingest');
  });

  it('serves each cockpit at its own name with the us-east-1 certificate and TLS 1.2 at least, IPv4 and IPv6', () => {
    const [, distribution] = one(cockpitStack, 'AWS::CloudFront::Distribution', (p) =>
      JSON.stringify(p).includes('smallmodelsbenchmarks.bench.example.com'),
    );
    expect(distribution.Properties.DistributionConfig).toMatchObject({
      Aliases: ['smallmodelsbenchmarks.bench.example.com'],
      ViewerCertificate: {
        AcmCertificateArn: COCKPIT_CERTIFICATE,
        MinimumProtocolVersion: 'TLSv1.2_2025',
        SslSupportMethod: 'sni-only',
      },
    });
    const records = [...synthesized.templates.values()]
      .flatMap((t) => ofType(t, 'AWS::Route53::RecordSet'))
      .map(([, r]) => `${String(r.Properties.Name)} ${String(r.Properties.Type)}`)
      .sort();
    expect(records).toEqual([
      'ingest.bench.example.com. A',
      'public-demo.bench.example.com. A',
      'public-demo.bench.example.com. AAAA',
      'smallmodelsbenchmarks.bench.example.com. A',
      'smallmodelsbenchmarks.bench.example.com. AAAA',
    ]);
    expect(outputsOf(synthesized).CockpitUrlSmallModelsBenchmarks).toBe(
      'https://smallmodelsbenchmarks.bench.example.com/',
    );
  });

  it('signs analysts in back to the cockpit at its own name', () => {
    cockpitStack.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      CallbackURLs: ['https://smallmodelsbenchmarks.bench.example.com/'],
    });
  });
});

describe('with a domain and certificates but no hosted zone', () => {
  const synthesized = synthesize(
    parseConfig({
      spaces,
      cockpits,
      domain: {
        name: 'bench.example.com',
        ingestCertificateArn: INGEST_CERTIFICATE,
        cockpitCertificateArn: COCKPIT_CERTIFICATE,
      },
    }),
  );

  it('uses the named certificate and makes no DNS record, leaving them to the operator', () => {
    synthesized.pipeline.resourceCountIs('AWS::CertificateManager::Certificate', 0);
    synthesized.pipeline.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: INGEST_CERTIFICATE })],
    });
    for (const template of synthesized.templates.values()) template.resourceCountIs('AWS::Route53::RecordSet', 0);
  });
});
