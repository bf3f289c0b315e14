// Policy documents as IAM receives them: every intrinsic (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, the weak
// cross-stack Fn::GetStackOutput) resolved to the string CloudFormation would produce in a real account,
// with physical names as long as CloudFormation generates them. IAM measures a policy by its characters,
// so sizes read off the template's tokens would say nothing; sizes read off these strings do.
import { createHash } from 'node:crypto';
import type { Template } from 'aws-cdk-lib/assertions';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';

/** IAM's limits, in characters without whitespace (IAM and STS quotas, defaults). */
export const IAM_LIMITS = {
  inlinePoliciesPerRole: 10_240,
  managedPolicy: 6_144,
  trustPolicy: 2_048,
  managedPoliciesPerRole: 10,
  bucketPolicy: 20_480,
} as const;

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}
interface StackJson {
  Resources: Record<string, Resource>;
  Outputs?: Record<string, { Value: unknown }>;
}

export interface RenderedStatement {
  Effect: string;
  Action: string[];
  Resource: string[];
  Condition?: unknown;
}

export interface RenderedRole {
  stack: string;
  roleId: string;
  /** The inline policies' documents, rendered. */
  inline: unknown[];
  managed: { arn: string; document?: unknown }[];
  trust: unknown;
}

const hex = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);
/** CloudFormation's random suffix, upper-case letters and digits, stable per resource here. */
const suffix = (text: string, length: number) =>
  createHash('sha256')
    .update(text)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .slice(0, length);

// The property naming each type's resource, when the template sets one.
const NAME_PROPERTIES: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::Lambda::Function': 'FunctionName',
};

export class DeploymentRenderer {
  private readonly stacks: Map<string, StackJson>;

  constructor(templates: Map<string, Template>) {
    this.stacks = new Map([...templates].map(([name, t]) => [name, t.toJSON() as StackJson]));
  }

  stackNames(): string[] {
    return [...this.stacks.keys()];
  }

  resources(stack: string): Record<string, Resource> {
    return this.stacks.get(stack)!.Resources ?? {};
  }

  /** The physical name CloudFormation gives a resource: the set name, else stack, logical id and a random tail. */
  physicalName(stack: string, id: string): string {
    const resource = this.resource(stack, id);
    const property = NAME_PROPERTIES[resource.Type];
    const set = property ? resource.Properties?.[property] : undefined;
    if (set !== undefined) return this.render(stack, set) as string;
    switch (resource.Type) {
      case 'AWS::S3::Bucket':
        return `${stack}-${id}`.toLowerCase().slice(0, 49) + `-${suffix(stack + id, 13).toLowerCase()}`;
      case 'AWS::SQS::Queue':
      case 'AWS::SNS::Topic':
        return `${stack}-${id}`.slice(0, 66) + `-${suffix(stack + id, 13)}`;
      case 'AWS::IAM::Role':
      case 'AWS::IAM::ManagedPolicy':
        return `${stack}-${id}`.slice(0, 50) + `-${suffix(stack + id, 12)}`;
      default:
        return `${stack}-${id}-${suffix(stack + id, 13)}`;
    }
  }

  /** What `Ref` returns for a resource (or a pseudo parameter). */
  ref(stack: string, id: string): string {
    switch (id) {
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stack;
    }
    const resource = this.resource(stack, id);
    const name = () => this.physicalName(stack, id);
    switch (resource.Type) {
      case 'AWS::IAM::ManagedPolicy':
        return `arn:aws:iam::${ACCOUNT}:policy/${name()}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name()}-${suffix(stack + id, 6)}`;
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name()}`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT}:${name()}`;
      case 'AWS::Cognito::UserPool':
        return `${REGION}_${suffix(stack + id, 9)}`;
      case 'AWS::Cognito::UserPoolClient':
        return hex(stack + id, 26);
      case 'AWS::ApiGatewayV2::Api':
      case 'AWS::CloudFront::Distribution':
        return hex(stack + id, 10);
      default:
        return name();
    }
  }

  getAtt(stack: string, id: string, attribute: string): string {
    const resource = this.resource(stack, id);
    const name = () => this.physicalName(stack, id);
    const key = `${resource.Type}.${attribute}`;
    switch (key) {
      case 'AWS::DynamoDB::Table.Arn':
        return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name()}`;
      case 'AWS::S3::Bucket.Arn':
        return `arn:aws:s3:::${name()}`;
      case 'AWS::S3::Bucket.DomainName':
        return `${name()}.s3.amazonaws.com`;
      case 'AWS::S3::Bucket.RegionalDomainName':
        return `${name()}.s3.${REGION}.amazonaws.com`;
      case 'AWS::SQS::Queue.Arn':
        return `arn:aws:sqs:${REGION}:${ACCOUNT}:${name()}`;
      case 'AWS::SQS::Queue.QueueName':
        return name();
      case 'AWS::Logs::LogGroup.Arn':
        return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name()}:*`;
      case 'AWS::IAM::Role.Arn':
        return `arn:aws:iam::${ACCOUNT}:role/${name()}`;
      case 'AWS::Lambda::Function.Arn':
        return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name()}`;
      case 'AWS::Cognito::UserPool.Arn':
        return `arn:aws:cognito-idp:${REGION}:${ACCOUNT}:userpool/${this.ref(stack, id)}`;
      case 'AWS::Cognito::UserPool.ProviderURL':
        return `https://cognito-idp.${REGION}.amazonaws.com/${this.ref(stack, id)}`;
      case 'AWS::CloudFront::Distribution.DomainName':
        return `d${hex(stack + id, 13)}.cloudfront.net`;
      case 'AWS::CloudFront::Distribution.Id':
        return `E${suffix(stack + id, 13)}`;
      case 'AWS::CloudFront::OriginAccessControl.Id':
      case 'AWS::CloudFront::ResponseHeadersPolicy.Id':
      case 'AWS::CloudFront::OriginRequestPolicy.Id':
        return `${hex(stack + id, 8)}-${hex(id, 4)}-${hex(stack, 4)}-${hex(id + stack, 4)}-${hex(id + id, 12)}`;
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint':
        return `https://${this.ref(stack, id)}.execute-api.${REGION}.amazonaws.com`;
      default:
        throw new Error(`The renderer does not know ${key} (${stack}/${id}); teach it the real format.`);
    }
  }

  /** A template value with every intrinsic resolved. */
  render(stack: string, value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.render(stack, v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [[fn, arg]] = entries as [[string, unknown]];
      switch (fn) {
        case 'Ref':
          return this.ref(stack, arg as string);
        case 'Fn::GetAtt': {
          const [id, attribute] = arg as [string, string];
          return this.getAtt(stack, id, attribute);
        }
        case 'Fn::Join': {
          const [separator, parts] = arg as [string, unknown[]];
          return (this.render(stack, parts) as unknown[]).map(String).join(separator);
        }
        case 'Fn::Sub': {
          const [text, variables = {}] = (Array.isArray(arg) ? arg : [arg]) as [string, Record<string, unknown>?];
          return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
            if (name in variables) return String(this.render(stack, variables[name]));
            const [id, attribute] = name.split('.');
            return attribute ? this.getAtt(stack, id!, attribute) : this.ref(stack, id!);
          });
        }
        case 'Fn::GetStackOutput': {
          const { StackName, OutputName } = arg as { StackName: unknown; OutputName: string };
          const other = this.render(stack, StackName) as string;
          const output = this.stacks.get(other)?.Outputs?.[OutputName];
          if (!output) throw new Error(`${stack} reads output ${OutputName} that stack ${other} does not have`);
          return this.render(other, output.Value);
        }
        case 'Fn::Select': {
          const [index, list] = arg as [number, unknown];
          return (this.render(stack, list) as unknown[])[index];
        }
        case 'Fn::Split': {
          const [separator, text] = arg as [string, unknown];
          return String(this.render(stack, text)).split(separator);
        }
      }
      if (fn.startsWith('Fn::')) throw new Error(`The renderer does not know ${fn}`);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.render(stack, v)]));
  }

  /** Every role of every stack with its rendered inline, managed and trust policies. */
  roles(): RenderedRole[] {
    const managedByArn = new Map<string, unknown>();
    for (const stack of this.stackNames())
      for (const [id, r] of Object.entries(this.resources(stack)))
        if (r.Type === 'AWS::IAM::ManagedPolicy')
          managedByArn.set(this.ref(stack, id), this.render(stack, r.Properties!.PolicyDocument));
    const roles: RenderedRole[] = [];
    for (const stack of this.stackNames()) {
      const resources = this.resources(stack);
      for (const [roleId, role] of Object.entries(resources)) {
        if (role.Type !== 'AWS::IAM::Role') continue;
        const inline = [
          ...((role.Properties?.Policies as { PolicyDocument: unknown }[] | undefined) ?? []).map((p) =>
            this.render(stack, p.PolicyDocument),
          ),
          ...Object.values(resources)
            .filter(
              (p) =>
                p.Type === 'AWS::IAM::Policy' &&
                ((p.Properties!.Roles as unknown[] | undefined) ?? []).some(
                  (r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId }),
                ),
            )
            .map((p) => this.render(stack, p.Properties!.PolicyDocument)),
        ];
        const managed = ((role.Properties?.ManagedPolicyArns as unknown[] | undefined) ?? []).map((arn) => {
          const rendered = this.render(stack, arn) as string;
          return { arn: rendered, document: managedByArn.get(rendered) };
        });
        roles.push({
          stack,
          roleId,
          inline,
          managed,
          trust: this.render(stack, role.Properties?.AssumeRolePolicyDocument),
        });
      }
    }
    return roles;
  }

  /** Each managed policy of the deployment with its rendered document. */
  managedPolicies(): { stack: string; id: string; document: unknown }[] {
    return this.stackNames().flatMap((stack) =>
      Object.entries(this.resources(stack))
        .filter(([, r]) => r.Type === 'AWS::IAM::ManagedPolicy')
        .map(([id, r]) => ({ stack, id, document: this.render(stack, r.Properties!.PolicyDocument) })),
    );
  }

  /** Each bucket policy of the deployment with its rendered document. */
  bucketPolicies(): { stack: string; id: string; document: unknown }[] {
    return this.stackNames().flatMap((stack) =>
      Object.entries(this.resources(stack))
        .filter(([, r]) => r.Type === 'AWS::S3::BucketPolicy')
        .map(([id, r]) => ({ stack, id, document: this.render(stack, r.Properties!.PolicyDocument) })),
    );
  }

  private resource(stack: string, id: string): Resource {
    const resource = this.stacks.get(stack)?.Resources?.[id];
    if (!resource) throw new Error(`No resource ${id} in stack ${stack}`);
    return resource;
  }
}

/** A policy's size as IAM counts it: its JSON without whitespace outside strings. */
export const policySize = (document: unknown): number => JSON.stringify(document).length;

/** Every allow statement of a role, inline and managed, with actions and resources as lists. */
export function allowStatements(role: RenderedRole): RenderedStatement[] {
  const documents = [...role.inline, ...role.managed.map((m) => m.document).filter((d) => d !== undefined)];
  return documents
    .flatMap((d) => (d as { Statement: Record<string, unknown>[] }).Statement)
    .filter((s) => s.Effect === 'Allow')
    .map((s) => ({
      Effect: 'Allow',
      Action: [s.Action].flat() as string[],
      Resource: [s.Resource].flat() as string[],
      Condition: s.Condition,
    }));
}

/** IAM's wildcard match: `*` any run of characters, `?` exactly one; `${*}`, `${?}` and `${$}` the characters themselves. */
export function iamMatches(pattern: string, value: string): boolean {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const source = pattern
    .split(/(\$\{[*?$]\})/)
    .map((part, i) => (i % 2 ? literal(part[2]!) : literal(part).replaceAll('\\*', '.*').replaceAll('\\?', '.')))
    .join('');
  return new RegExp(`^${source}$`, 's').test(value);
}

/** Whether a role may perform `action` on the resource whose ARN is `arn` (conditions aside). */
export const roleMay = (role: RenderedRole, action: string, arn: string): boolean =>
  allowStatements(role).some(
    (s) => s.Action.some((a) => iamMatches(a, action)) && s.Resource.some((r) => iamMatches(r, arn)),
  );
