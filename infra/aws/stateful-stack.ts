// Everything that holds data or identity: the table, the buckets, the queues with their dead-letter queues,
// the secrets and the analysts' user pool. It changes rarely, and all but the queues (whose messages are
// claim checks on the inbox) survive stack deletion, so the stateless stack can be replaced or torn down
// without losing a run, a key or a user.
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  type UserPoolDomain,
  type UserPoolGroup,
} from 'aws-cdk-lib/aws-cognito';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectOwnership,
  type BucketProps,
  type CfnBucket,
} from 'aws-cdk-lib/aws-s3';
import { CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { INDEXES, spaceReadPrefixes, TABLE_KEYS } from '../../shared/storage-layout.ts';
import { keySecretName } from '../../shared/adapters/key-names.ts';
import { analystGroupOf } from '../../shared/read/cockpit-access.ts';
import { keyCandidates, type ReplayConfig } from '../../shared/schema/config.ts';
import { MAX_RECEIVES, TIMEOUTS, visibilityFor } from './timing.ts';

export const INBOX_EXPIRY_DAYS = 14;
const ANTHROPIC_SECRET_NAME = 'ReplayBench/AnthropicApiKey';
const GITHUB_APP_SECRET_NAME = 'ReplayBench/GitHubApp';

export interface HostKeySecret {
  secretConfigKey: string;
  host: string;
  secret: Secret;
}

export type BucketName = 'inbox' | 'data';
export type BucketAccess = 'read' | 'write' | 'read-write' | 'read-delete';

/** Object access to one bucket, packaged as a managed policy a function role attaches. */
export interface ObjectAccess {
  bucket: Bucket;
  access: BucketAccess;
  policy: ManagedPolicy;
}

// s3:ListBucket belongs to reading: without it S3 answers a missing key with 403 instead of 404, and the
// adapters rely on "missing" to keep landing idempotent and to answer 404 for an absent patch.
const OBJECT_ACTIONS: Record<BucketAccess, string[]> = {
  read: ['s3:GetObject'],
  write: ['s3:PutObject'],
  'read-write': ['s3:GetObject', 's3:PutObject'],
  'read-delete': ['s3:GetObject', 's3:DeleteObject'],
};

export interface Analysts {
  userPool: UserPool;
  domain: UserPoolDomain;
  /** One group per private cockpit, by cockpit name: its members may read that cockpit. */
  groups: Map<string, UserPoolGroup>;
}

/** What the stateless stack is wired with. */
export interface PipelineState {
  table: Table;
  /** Where S3 server access logs and CloudFront standard logs go. */
  accessLogs: Bucket;
  landingQueue: Queue;
  landingDlq: Queue;
  judgeQueue: Queue;
  judgeDlq: Queue;
  hostKeys: HostKeySecret[];
  anthropicKey: Secret;
  githubApp: Secret;
  /** Present when at least one cockpit requires sign-in. */
  analysts?: Analysts;
  /** The inbox and data buckets are reached only through these grants. */
  objectAccess(bucket: BucketName, access: BucketAccess): ObjectAccess;
  /** Read access to one space's run objects, snapshot and reference cache only: what a cockpit's read API may see. */
  spaceObjectReads(space: string): ObjectAccess;
}

export interface StatefulStackProps extends StackProps {
  config: ReplayConfig;
}

export class StatefulStack extends Stack implements PipelineState {
  readonly table: Table;
  readonly inbox: Bucket;
  readonly data: Bucket;
  readonly accessLogs: Bucket;
  readonly landingQueue: Queue;
  readonly landingDlq: Queue;
  readonly judgeQueue: Queue;
  readonly judgeDlq: Queue;
  readonly hostKeys: HostKeySecret[];
  readonly anthropicKey: Secret;
  readonly githubApp: Secret;
  readonly analysts?: Analysts;
  private readonly objectPolicies = new Map<string, ObjectAccess>();

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of Object.values(INDEXES)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
      });
    }

    // ACLs stay enabled on this one bucket only: CloudFront standard logging writes through them.
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...privateBucket(),
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This is the access-log bucket of the other buckets and the cockpits; logging it into itself would log its own log writes.',
    });

    this.inbox = new Bucket(this, 'Inbox', {
      ...privateBucket(this.accessLogs, 'inbox/'),
      // A delivery waits here only until it lands. Two weeks is the dead-letter queue's retention: after
      // that no claim check is left to redrive it.
      lifecycleRules: [
        { expiration: Duration.days(INBOX_EXPIRY_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.data = new Bucket(this, 'Data', {
      ...privateBucket(this.accessLogs, 'data/'),
      versioned: true,
      lifecycleRules: [
        { noncurrentVersionExpiration: Duration.days(90), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });

    this.landingDlq = deadLetterQueue(this, 'LandingDlq');
    this.landingQueue = new Queue(this, 'LandingQueue', {
      ...queueDefaults(),
      visibilityTimeout: visibilityFor(TIMEOUTS.lander),
      deadLetterQueue: { queue: this.landingDlq, maxReceiveCount: MAX_RECEIVES },
    });
    this.judgeDlq = deadLetterQueue(this, 'JudgeDlq');
    this.judgeQueue = new Queue(this, 'JudgeQueue', {
      ...queueDefaults(),
      visibilityTimeout: visibilityFor(TIMEOUTS.judge),
      deadLetterQueue: { queue: this.judgeDlq, maxReceiveCount: MAX_RECEIVES },
    });

    this.hostKeys = keyCandidates(props.config).map(({ secretConfigKey, host }) => ({
      secretConfigKey,
      host,
      secret: emptySecret(
        this,
        `HostKey-${secretConfigKey}-${host}`,
        keySecretName(secretConfigKey, host),
        `Signing key of runner host ${host} (${secretConfigKey}). Empty until the host is paired; a key, or {"current","previous"} during a rotation.`,
      ),
    }));
    this.anthropicKey = emptySecret(
      this,
      'AnthropicApiKey',
      ANTHROPIC_SECRET_NAME,
      'Anthropic API key the judge calls the model with.',
    );
    this.githubApp = emptySecret(
      this,
      'GitHubApp',
      GITHUB_APP_SECRET_NAME,
      'GitHub App credentials the judge fetches reference fixes with: {"appId","privateKey","installationId"}.',
    );

    if (Object.values(props.config.cockpits).some((cockpit) => !cockpit.public)) {
      this.analysts = analystPool(this, props.config);
      new CfnOutput(this, 'AnalystsUserPoolId', {
        description: 'Analysts are invited here (docs/deploy.md)',
        value: this.analysts.userPool.userPoolId,
      });
    }
  }

  /**
   * Object keys are minted at run time (per delivery, per run and attempt), so object access is granted
   * on the bucket's objects with an exact action list. The policy lives here, beside its bucket, which
   * keeps the wildcard and its acknowledgement in one place, created only for the access levels in use.
   */
  objectAccess(name: BucketName, access: BucketAccess): ObjectAccess {
    const key = `${name}-${access}`;
    const existing = this.objectPolicies.get(key);
    if (existing) return existing;
    const bucket = this[name];
    const statements = [
      new PolicyStatement({ actions: OBJECT_ACTIONS[access], resources: [bucket.arnForObjects('*')] }),
    ];
    if (access !== 'write')
      statements.push(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    const policy = new ManagedPolicy(this, `ObjectAccess-${key}`, {
      description: `replay-bench: ${access} objects of the ${name} bucket`,
      statements,
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>/*]`,
      reason: `Object keys are minted at run time, so access covers the objects of the ${name} bucket, with only ${OBJECT_ACTIONS[access].join(', ')}.`,
    });
    const grant = { bucket, access, policy };
    this.objectPolicies.set(key, grant);
    return grant;
  }

  /**
   * What a space's read API reads (`spaceReadPrefixes`), and listing only under those prefixes. The listing
   * right is what makes a missing key answer 404 rather than 403; "IfExists" keeps that answer for a plain
   * object read, which carries no prefix.
   */
  spaceObjectReads(space: string): ObjectAccess {
    const key = `data-read-space-${space}`;
    const existing = this.objectPolicies.get(key);
    if (existing) return existing;
    const prefixes = spaceReadPrefixes(space);
    const policy = new ManagedPolicy(this, `ObjectAccess-${key}`, {
      description: `replay-bench: read the run objects, snapshot and reference cache of space ${space}`.slice(0, 1000),
      statements: [
        new PolicyStatement({
          actions: ['s3:GetObject'],
          resources: prefixes.map((prefix) => this.data.arnForObjects(`${prefix}*`)),
        }),
        new PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [this.data.bucketArn],
          conditions: { StringLikeIfExists: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
        }),
      ],
    });
    const dataArn = `<${this.getLogicalId(this.data.node.defaultChild as CfnBucket)}.Arn>`;
    Validations.of(policy).acknowledge(
      ...prefixes.map((prefix) => ({
        id: `AwsSolutions-IAM5[Resource::${dataArn}/${prefix}*]`,
        reason: `Object keys under ${prefix} are minted at run time (run objects, snapshot slots, cached reference diffs); a read API reads only its own space's.`,
      })),
    );
    const grant = { bucket: this.data, access: 'read' as const, policy };
    this.objectPolicies.set(key, grant);
    return grant;
  }
}

function privateBucket(accessLogs?: Bucket, logPrefix?: string): BucketProps {
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

const queueDefaults = () => ({
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
  retentionPeriod: Duration.days(4),
});

function deadLetterQueue(scope: Construct, id: string): Queue {
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
function emptySecret(scope: Construct, id: string, name: string, description: string): Secret {
  const secret = new Secret(scope, id, { secretName: name, description, removalPolicy: RemovalPolicy.RETAIN });
  (secret.node.defaultChild as CfnSecret).generateSecretString = undefined;
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The value is issued outside AWS (a runner host key, an Anthropic key, a GitHub App key) and must change on the other side at the same moment, so rotation is a documented manual procedure (docs/deploy.md) rather than a rotation Lambda.',
  });
  return secret;
}

function analystPool(scope: Stack, config: ReplayConfig): Analysts {
  const userPool = new UserPool(scope, 'Analysts', {
    selfSignUpEnabled: false,
    signInAliases: { email: true },
    autoVerify: { email: true },
    mfa: Mfa.REQUIRED,
    mfaSecondFactor: { otp: true, sms: false },
    passwordPolicy: {
      minLength: 12,
      requireLowercase: true,
      requireUppercase: true,
      requireDigits: true,
      requireSymbols: true,
    },
    accountRecovery: AccountRecovery.EMAIL_ONLY,
    featurePlan: FeaturePlan.ESSENTIALS,
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(userPool).acknowledge({
    id: 'AwsSolutions-COG8',
    reason:
      'Threat protection needs the Plus plan, billed per active user; the pool is invite-only (no self sign-up) with MFA required for every analyst, and it guards read-only benchmark data.',
  });
  const domain = userPool.addDomain('Domain', { cognitoDomain: { domainPrefix: `replay-bench-${scope.account}` } });
  // Here rather than beside each cockpit: memberships are identity data and outlive a pipeline redeploy.
  const groups = new Map<string, UserPoolGroup>();
  for (const [name, cockpit] of Object.entries(config.cockpits)) {
    if (cockpit.public) continue;
    groups.set(
      name,
      userPool.addGroup(`Group-${name}`, {
        groupName: analystGroupOf(name),
        description: `Analysts who may read cockpit ${name}`,
      }),
    );
  }
  return { userPool, domain, groups };
}
