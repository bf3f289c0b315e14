// The optional ingest firewall (`"ingest": {"waf": true}`): a web ACL in us-east-1 whose per-IP rate rule
// answers 429 with the protocol's JSON error, and a CloudFront front of the ingest API using it, which the
// runners' URL names. Without it, ingest is the API itself and nothing of the kind is deployed.
import { describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { parseConfig } from '#schema/config.ts';
import { ofType, one } from './template-queries.ts';
import { exampleConfig, synthesize } from './synth.ts';

const guardedConfig = () => parseConfig({ ...exampleConfig(), ingest: { waf: true, wafRequestsPer5Minutes: 600 } });
const guarded = synthesize(guardedConfig());
const plain = synthesize(exampleConfig());
const outputOf = (s: ReturnType<typeof synthesize>) =>
  JSON.stringify((s.pipeline.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs.IngestUrlTemplate);

describe('without ingest.waf', () => {
  it('deploys no firewall and no front: runners send to the API', () => {
    expect([...plain.templates.keys()]).not.toContain('ReplayBench-IngestFirewall');
    expect(ofType(plain.pipeline, 'AWS::CloudFront::Distribution')).toEqual([]);
    expect(outputOf(plain)).toContain('ApiEndpoint');
  });
});

describe('with ingest.waf', () => {
  const firewall = guarded.templates.get('ReplayBench-IngestFirewall')!;

  it('puts the web ACL in a stack of its own in us-east-1, where CloudFront takes them', () => {
    const stack = guarded.app.node.findChild('ReplayBench-IngestFirewall') as Stack;
    expect(stack.region).toBe('us-east-1');
    const [, acl] = one(firewall, 'AWS::WAFv2::WebACL');
    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
  });

  it('limits each IP address to the configured requests per 5 minutes, answering 429 with a JSON error runners retry', () => {
    const [, acl] = one(firewall, 'AWS::WAFv2::WebACL');
    const rules = acl.Properties.Rules as {
      Statement: { RateBasedStatement: Record<string, unknown> };
      Action: { Block: { CustomResponse: { ResponseCode: number; CustomResponseBodyKey: string } } };
    }[];
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Statement.RateBasedStatement).toEqual({
      Limit: 600,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'IP',
    });
    const { ResponseCode, CustomResponseBodyKey } = rules[0]!.Action.Block.CustomResponse;
    expect(ResponseCode).toBe(429);
    const bodies = acl.Properties.CustomResponseBodies as Record<string, { Content: string; ContentType: string }>;
    expect(JSON.parse(bodies[CustomResponseBodyKey]!.Content)).toEqual({ error: 'rate-limited' });
    expect(bodies[CustomResponseBodyKey]!.ContentType).toBe('APPLICATION_JSON');
  });

  it("puts CloudFront in front of the ingest API with that ACL, read from the firewall's parameter in us-east-1", () => {
    const [, parameter] = one(firewall, 'AWS::SSM::Parameter');
    const name = parameter.Properties.Name as string;
    const [, front] = one(guarded.pipeline, 'AWS::CloudFront::Distribution');
    const config = front.Properties.DistributionConfig as {
      WebACLId: unknown;
      DefaultCacheBehavior: Record<string, unknown>;
      Origins: { DomainName: unknown }[];
    };
    const [readerId, reader] = one(guarded.pipeline, 'Custom::AWS');
    expect(JSON.stringify(config.WebACLId)).toContain(readerId);
    const create = JSON.parse(JSON.stringify(reader.Properties.Create).replace(/^"|"$/g, '').replace(/\\"/g, '"')) as {
      service: string;
      action: string;
      region: string;
      parameters: { Name: string };
    };
    expect(create).toMatchObject({
      service: 'SSM',
      action: 'getParameter',
      region: 'us-east-1',
      parameters: { Name: name },
    });
    // Every method reaches the API uncached, with the viewer's headers (the signature's among them).
    expect(config.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      ViewerProtocolPolicy: 'https-only',
    });
    const [apiId] = one(guarded.pipeline, 'AWS::ApiGatewayV2::Api');
    expect(JSON.stringify(config.Origins[0]!.DomainName)).toContain(apiId);
  });

  it("gives runners the front's address, and deploys after the firewall", () => {
    const [frontId] = one(guarded.pipeline, 'AWS::CloudFront::Distribution');
    expect(outputOf(guarded)).toContain(frontId);
    const pipeline = guarded.app.node.findChild('ReplayBench-Pipeline') as Stack;
    expect(pipeline.dependencies.map((s) => s.stackName)).toContain('ReplayBench-IngestFirewall');
  });

  it('is refused beside a domain, whose ingest name would bypass it', () => {
    expect(() =>
      parseConfig({
        ...exampleConfig(),
        ingest: { waf: true },
        domain: { name: 'bench.example.com', hostedZoneId: 'Z0123456789ABCDEFGHIJ' },
      }),
    ).toThrow(/ingest\.waf: cannot be combined with "domain" yet/);
  });
});
