// Object access to a bucket on key patterns, packaged as a managed policy a function role attaches.
import { Validations, type Stack } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Bucket, type CfnBucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { KeyGrant } from '#core/storage-layout.ts';

/** Object access to one bucket, packaged as a managed policy a function role attaches. */
export interface ObjectAccess {
  bucket: IBucket;
  policy: ManagedPolicy;
}

/**
 * Object keys are minted at run time (per delivery, per run and attempt), so access is granted on key
 * patterns with an exact action list, in one managed policy per grant beside its bucket, which keeps the
 * wildcards and their acknowledgements in one place. The listing right is what makes a missing key answer
 * 404 rather than 403 (the adapters rely on "missing" to keep landing idempotent and to answer 404 for an
 * absent patch); "IfExists" keeps that answer for a plain object read, which carries no prefix.
 */
export function objectAccessPolicy(
  stack: Stack,
  key: string,
  description: string,
  bucket: IBucket,
  grant: KeyGrant,
): ObjectAccess {
  const actionsOn = new Map<string, string[]>();
  const add = (action: string, patterns: readonly string[] = []) => {
    for (const pattern of patterns) actionsOn.set(pattern, [...(actionsOn.get(pattern) ?? []), action]);
  };
  add('s3:GetObject', grant.get);
  add('s3:PutObject', grant.put);
  add('s3:DeleteObject', grant.delete);
  add('s3:AbortMultipartUpload', grant.multipart);
  add('s3:ListMultipartUploadParts', grant.multipart);
  // One statement per action list, naming the patterns that take exactly those actions.
  const patternsOf = new Map<string, string[]>();
  for (const [pattern, actions] of actionsOn)
    patternsOf.set(actions.join(), [...(patternsOf.get(actions.join()) ?? []), pattern]);
  const statements = [...patternsOf].map(
    ([actions, patterns]) =>
      new PolicyStatement({
        actions: actions.split(','),
        resources: patterns.map((pattern) => bucket.arnForObjects(pattern)),
      }),
  );
  if (grant.list.length)
    statements.push(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLikeIfExists: { 's3:prefix': [...grant.list] } },
      }),
    );
  const policy = new ManagedPolicy(stack, `ObjectAccess-${key}`, {
    description: `replay-bench: ${description}`.slice(0, 1000),
    statements,
  });
  // How cdk-nag spells the bucket's ARN: a reference to the bucket this stack made, or an adopted one's name.
  const bucketArn =
    bucket instanceof Bucket
      ? `<${stack.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`
      : `arn:<AWS::Partition>:s3:::${bucket.bucketName}`;
  Validations.of(policy).acknowledge(
    ...[...actionsOn].map(([pattern, actions]) => ({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${pattern}]`,
      reason:
        'Object keys are minted at run time (per delivery, run, attempt or snapshot slot), ' +
        `so access covers the keys matching ${pattern}, with only ${actions.join(', ')}.`,
    })),
  );
  return { bucket, policy };
}
