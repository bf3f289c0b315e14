// The ingest firewall (`"ingest": {"waf": true}`; docs/deploy.md, "Ingest firewall"): an AWS WAF web ACL
// whose rate rule answers 429 to an IP address past `ingest.wafRequestsPer5Minutes`, so unsigned floods
// stop at CloudFront's edge instead of sharing the ingest API's 20 requests a second with the runners. A
// web ACL for CloudFront exists in us-east-1 only, whatever the deployment's region, so it has a stack of
// its own pinned there; the stack publishes the ACL's ARN as an SSM parameter, which the pipeline stack's
// distribution reads across regions at deploy time (`readWebAclArn`).
import { Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { AwsCustomResource, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { ReplayConfig } from '#schema/config.ts';
import type { DeploymentNames } from './deployment-names.ts';

/** The uuid aws-cdk-lib gives the one handler of a stack's AwsCustomResources (its construct id follows from it). */
const AWS_CUSTOM_RESOURCE_HANDLER_UUID = '679f53fa-c002-430c-b0da-5b7982bd2287';
/** CloudFront takes web ACLs from this region only. */
export const FIREWALL_REGION = 'us-east-1';
/** What a blocked sender gets: the protocol's JSON error, with the status runners retry after a pause. */
export const RATE_LIMITED = { status: 429, body: '{"error":"rate-limited"}' } as const;

export interface IngestFirewallStackProps extends StackProps {
  config: ReplayConfig;
  names: DeploymentNames;
}

export class IngestFirewallStack extends Stack {
  readonly webAcl: CfnWebACL;
  /** The SSM parameter (in us-east-1) holding the web ACL's ARN. */
  readonly arnParameterName: string;

  constructor(scope: Construct, id: string, { config, names, ...props }: IngestFirewallStackProps) {
    super(scope, id, { ...props, env: { region: FIREWALL_REGION } });
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: names.prefixed(name),
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: names.prefixed('ReplayBench-Ingest'),
      description: 'replay-bench ingest: a per-IP rate limit in front of the ingest endpoint',
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      customResponseBodies: { RateLimited: { contentType: 'APPLICATION_JSON', content: RATE_LIMITED.body } },
      rules: [
        {
          name: 'RequestsPerIp',
          priority: 0,
          statement: {
            rateBasedStatement: {
              limit: config.ingest.wafRequestsPer5Minutes,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
            },
          },
          action: {
            block: { customResponse: { responseCode: RATE_LIMITED.status, customResponseBodyKey: 'RateLimited' } },
          },
          visibilityConfig: metric('ReplayBench-IngestRequestsPerIp'),
        },
      ],
      visibilityConfig: metric('ReplayBench-Ingest'),
    });
    this.arnParameterName = `/${names.prefixed('ReplayBench')}/IngestWebAclArn`;
    new StringParameter(this, 'WebAclArn', {
      parameterName: this.arnParameterName,
      description: "The ingest firewall's web ACL, read by the pipeline stack's CloudFront distribution.",
      stringValue: this.webAcl.attrArn,
    });
  }
}

/**
 * The firewall's web ACL ARN, read from its SSM parameter in us-east-1 at deploy time by an SDK call (a stack
 * in another region cannot reference it). The ACL's name is fixed, so CloudFormation never replaces it and its
 * ARN never changes: one read when the parameter's name does is enough.
 */
export function readWebAclArn(scope: Construct, parameterName: string): string {
  const stack = Stack.of(scope);
  const parameterArn = `arn:${stack.partition}:ssm:${FIREWALL_REGION}:${stack.account}:parameter${parameterName}`;
  const call = {
    service: 'SSM',
    action: 'getParameter',
    parameters: { Name: parameterName },
    region: FIREWALL_REGION,
    physicalResourceId: PhysicalResourceId.of(parameterName),
  };
  const reader = new AwsCustomResource(scope, 'IngestWebAclArn', {
    onCreate: call,
    onUpdate: call,
    policy: { statements: [new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [parameterArn] })] },
    installLatestAwsSdk: false,
  });
  // aws-cdk-lib runs every AwsCustomResource of a stack on one handler, at the stack's root.
  const handler = stack.node.findChild(`AWS${AWS_CUSTOM_RESOURCE_HANDLER_UUID.replaceAll('-', '')}`);
  Validations.of(handler).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        "aws-cdk-lib's AwsCustomResource handler reads the firewall's ARN during deployments; the managed policy only lets it write its logs.",
    },
    {
      id: 'AwsSolutions-L1',
      reason: 'The runtime of the AwsCustomResource handler is chosen by aws-cdk-lib; it runs only during deployments.',
    },
  );
  return reader.getResponseField('Parameter.Value');
}
