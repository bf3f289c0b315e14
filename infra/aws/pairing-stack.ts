// One managed policy per host key, for whoever pairs that host (docs/deploy.md, "Pairing a Mac"): it may put
// a value in that host's secret and read its metadata, nothing else, so the person at the Mac needs no
// wider rights and cannot overwrite another host's key. The policies sit in a stack of their own: one per
// host would crowd the state stack's 500 resources at a few hundred hosts.
import { Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { keyName } from '#shared/key-names.ts';
import { sha256Hex } from '#shared/sha256.ts';
import { keyCandidates, type ReplayConfig } from '#schema/config.ts';
import { hostKeyArn } from './host-key-arns.ts';
import type { DeploymentNames } from './deployment-names.ts';

const MAX_POLICY_NAME = 128;

/** `ReplayBench-PairHost-Hosting.ModuleReportSecret.mac-studio-1`, cut to IAM's 128 with a hash when longer. */
export function pairingPolicyName(names: DeploymentNames, secretConfigKey: string, host: string): string {
  const full = names.prefixed(`ReplayBench-PairHost-${keyName(secretConfigKey, host).replaceAll(':', '.')}`);
  if (full.length <= MAX_POLICY_NAME) return full;
  return `${full.slice(0, MAX_POLICY_NAME - 17)}-${sha256Hex(full).slice(0, 16)}`;
}

export interface PairingStackProps extends StackProps {
  config: ReplayConfig;
  names: DeploymentNames;
}

export class PairingStack extends Stack {
  constructor(scope: Construct, id: string, { config, names, ...props }: PairingStackProps) {
    super(scope, id, props);
    for (const { secretConfigKey, host } of keyCandidates(config)) {
      const secret = hostKeyArn(this, names.secretPrefix, secretConfigKey, host);
      const policy = new ManagedPolicy(this, `PairHost-${secretConfigKey}-${host}`, {
        managedPolicyName: pairingPolicyName(names, secretConfigKey, host),
        description:
          `replay-bench: pair runner host ${host} (${secretConfigKey}): put its key, read its secret's metadata`.slice(
            0,
            1000,
          ),
        statements: [
          new PolicyStatement({
            actions: ['secretsmanager:PutSecretValue', 'secretsmanager:DescribeSecret'],
            resources: [secret],
          }),
        ],
      });
      Validations.of(policy).acknowledge({
        id:
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:` +
          `${names.secretPrefix}${keyName(secretConfigKey, host).replaceAll(':', '/')}-??????]`,
        reason:
          `Secrets Manager ends a secret's ARN with "-" and six random characters; "-??????" matches ` +
          `exactly those, so the policy covers host ${host}'s secret and no other host's (mac-1's never matches mac-10's).`,
      });
    }
  }
}
