// The stateful stack's table, buckets, queues and secrets, each made with the settings that keep it: retained
// on stack deletion (all but the queues), encrypted, TLS only, with cdk-nag's findings answered beside them.
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  BucketPolicy,
  type IBucket,
  ObjectOwnership,
  type BucketProps,
} from 'aws-cdk-lib/aws-s3';
import { CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EXPIRY_ATTRIBUTE, TABLE_KEYS, tableIndexes } from '#core/storage-layout.ts';
import { INDEX_STEP_CONTEXT_KEY } from '../deployment-names.ts';

export function ownTable(scope: Construct): Table {
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    // Bookkeeping items (budget days, leases, re-enqueue counts) carry it; records never do.
    timeToLiveAttribute: EXPIRY_ATTRIBUTE,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const step: unknown = scope.node.tryGetContext(INDEX_STEP_CONTEXT_KEY);
  for (const index of tableIndexes(step === undefined ? undefined : Number(step))) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      projectionType: ProjectionType[index.projection],
      ...(index.projection === 'INCLUDE' ? { nonKeyAttributes: [...index.include] } : {}),
    });
  }
  return table;
}

export function ownAccessLogs(scope: Construct): Bucket {
  const bucket = new Bucket(scope, 'AccessLogs', {
    ...privateBucket(),
    objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
    lifecycleRules: [{ expiration: Duration.days(90), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
  });
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      'This is the access-log bucket of the other buckets and the cockpits; logging it into itself would log its own log writes.',
  });
  return bucket;
}

/**
 * A bucket the configuration adopts by name (one a torn-down deployment retained): its lifecycle, versioning
 * and logging stay as they were set; its TLS-only policy, which left with the old stack, is put back.
 */
export function adopted(scope: Construct, id: string, name: string | undefined): IBucket | undefined {
  if (!name) return undefined;
  const bucket = Bucket.fromBucketName(scope, id, name);
  const policy = new BucketPolicy(scope, `${id}TlsOnly`, { bucket });
  policy.document.addStatements(
    new PolicyStatement({
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['s3:*'],
      resources: [bucket.bucketArn, bucket.arnForObjects('*')],
      conditions: { Bool: { 'aws:SecureTransport': 'false' } },
    }),
  );
  return bucket;
}

export function privateBucket(accessLogs?: IBucket, logPrefix?: string): BucketProps {
  return {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: logPrefix,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}

export const queueDefaults = () => ({
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
  retentionPeriod: Duration.days(4),
});

export function deadLetterQueue(scope: Construct, id: string): Queue {
  const queue = new Queue(scope, id, { ...queueDefaults(), retentionPeriod: Duration.days(14) });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: 'This queue is itself a dead-letter queue; its depth is alarmed on.',
  });
  return queue;
}

/**
 * A secret with no value: CloudFormation creates it empty when neither a value nor a generator is given.
 * An operator puts the value in (docs/deploy.md); until then the host is "not paired", which is exactly
 * what the pairing check and the ingest key source read from a secret without a current version.
 */
export function emptySecret(scope: Construct, id: string, name: string, description: string): Secret {
  const secret = new Secret(scope, id, { secretName: name, description, removalPolicy: RemovalPolicy.RETAIN });
  (secret.node.defaultChild as CfnSecret).generateSecretString = undefined;
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The value is issued outside AWS (a runner host key, an Anthropic key, a GitHub App key) and must change on ' +
      'the other side at the same moment, so rotation is a documented manual procedure (docs/deploy.md) ' +
      'rather than a rotation Lambda.',
  });
  return secret;
}
