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
import { AttributeType, BillingMode, ProjectionType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  BucketPolicy,
  type IBucket,
  ObjectOwnership,
  type BucketProps,
  type CfnBucket,
} from 'aws-cdk-lib/aws-s3';
import { CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  DATA_OBJECT_GRANTS,
  INDEXES,
  SNAPSHOTS_PREFIX,
  spaceReadPrefixes,
  EXPORT_LINK_DAYS,
  EXPORTS_PREFIX,
  exportSpacePrefix,
  TABLE_KEYS,
  type DataObjectUser,
} from '../../shared/storage-layout.ts';
import { keySecretName } from '../../shared/adapters/key-names.ts';
import { analystGroupOf } from '../../shared/read/cockpit-access.ts';
import { keyCandidates, type AdoptConfig, type ReplayConfig } from '../../shared/schema/config.ts';
import { MAX_RECEIVES, TIMEOUTS, visibilityFor } from './timing.ts';
import type { StageNames } from './stage-names.ts';

export const INBOX_EXPIRY_DAYS = 14;
/** Days an overwritten snapshot object is kept. */
export const SNAPSHOT_VERSION_DAYS = 1;
const ANTHROPIC_SECRET_NAME = 'ReplayBench/AnthropicApiKey';
const GITHUB_APP_SECRET_NAME = 'ReplayBench/GitHubApp';

export interface HostKeySecret {
  secretConfigKey: string;
  host: string;
  secret: Secret;
}

/** The inbox holds deliveries only; the data bucket is reached through per-user grants (`dataAccess`). */
export type BucketName = 'inbox';
export type BucketAccess = 'write' | 'read-delete' | 'list';

/** Object access to one bucket, packaged as a managed policy a function role attaches. */
export interface ObjectAccess {
  bucket: IBucket;
  policy: ManagedPolicy;
}

/** Object actions on key patterns of one bucket, and listing only under `list` prefixes. */
interface KeyGrant {
  get: readonly string[];
  put: readonly string[];
  delete?: readonly string[];
  list: readonly string[];
}

const INBOX_GRANTS: Record<BucketAccess, KeyGrant> = {
  write: { get: [], put: ['*'], list: [] },
  'read-delete': { get: ['*'], put: [], delete: ['*'], list: ['*'] },
  list: { get: [], put: [], list: ['*'] },
};

export interface Analysts {
  userPool: UserPool;
  domain: UserPoolDomain;
  /** One group per private cockpit, by cockpit name: its members may read that cockpit. */
  groups: Map<string, UserPoolGroup>;
}

/** What the stateless stack is wired with. */
export interface PipelineState {
  table: ITable;
  /** Where S3 server access logs and CloudFront standard logs go. */
  accessLogs: IBucket;
  landingQueue: Queue;
  landingDlq: Queue;
  judgeQueue: Queue;
  judgeDlq: Queue;
  hostKeys: HostKeySecret[];
  /** The stage's names: what its secrets, stacks and account-wide names start with. */
  names: StageNames;
  anthropicKey: Secret;
  githubApp: Secret;
  /** Present when at least one cockpit requires sign-in. */
  analysts?: Analysts;
  /** The buckets are reached only through these grants. */
  objectAccess(bucket: BucketName, access: BucketAccess): ObjectAccess;
  /** The data bucket's objects one writer owns and the ones it reads (`DATA_OBJECT_GRANTS`). */
  dataAccess(user: DataObjectUser): ObjectAccess;
  /** Read access to one space's run objects, snapshot and reference cache only: what a cockpit's read API may see. */
  spaceObjectReads(space: string): ObjectAccess;
}

export interface StatefulStackProps extends StackProps {
  config: ReplayConfig;
  names: StageNames;
}

export class StatefulStack extends Stack implements PipelineState {
  readonly table: ITable;
  readonly inbox: IBucket;
  readonly data: IBucket;
  readonly accessLogs: IBucket;
  readonly landingQueue: Queue;
  readonly landingDlq: Queue;
  readonly judgeQueue: Queue;
  readonly judgeDlq: Queue;
  readonly hostKeys: HostKeySecret[];
  readonly names: StageNames;
  readonly anthropicKey: Secret;
  readonly githubApp: Secret;
  readonly analysts?: Analysts;
  private readonly objectPolicies = new Map<string, ObjectAccess>();

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    this.names = props.names;

    const adopt: AdoptConfig = props.config.adopt ?? {};
    this.table = adopt.table ? Table.fromTableName(this, 'Table', adopt.table) : ownTable(this);
    // ACLs stay enabled on this one bucket only: CloudFront standard logging writes through them.
    this.accessLogs = adopted(this, 'AccessLogs', adopt.accessLogsBucket) ?? ownAccessLogs(this);
    this.inbox =
      adopted(this, 'Inbox', adopt.inboxBucket) ??
      new Bucket(this, 'Inbox', {
        ...privateBucket(this.accessLogs, 'inbox/'),
        // A delivery waits here only until it lands. Two weeks is the dead-letter queue's retention: after
        // that no claim check is left to redrive it.
        lifecycleRules: [
          { expiration: Duration.days(INBOX_EXPIRY_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) },
        ],
      });
    this.data =
      adopted(this, 'Data', adopt.dataBucket) ??
      new Bucket(this, 'Data', {
        ...privateBucket(this.accessLogs, 'data/'),
        versioned: true,
        lifecycleRules: [
          { noncurrentVersionExpiration: Duration.days(90), abortIncompleteMultipartUploadAfter: Duration.days(1) },
          // The compactor rewrites each snapshot every few minutes (15.6 MB a write at a million runs): 90 days
          // of old versions would be hundreds of GB. A snapshot is rebuilt from the table, so a day is plenty.
          { prefix: SNAPSHOTS_PREFIX, noncurrentVersionExpiration: Duration.days(SNAPSHOT_VERSION_DAYS) },
          // An export too large for one answer is fetched through a link that works for minutes.
          {
            prefix: EXPORTS_PREFIX,
            expiration: Duration.days(EXPORT_LINK_DAYS),
            noncurrentVersionExpiration: Duration.days(EXPORT_LINK_DAYS),
          },
        ],
      });
    for (const [id, value, description] of [
      ['TableName', this.table.tableName, 'The table (restore runbook: docs/deploy.md, "Restoring")'],
      ['InboxBucketName', this.inbox.bucketName, 'Deliveries waiting to land'],
      ['DataBucketName', this.data.bucketName, 'Patches, summaries, judge audits, snapshots (versioned)'],
      ['AccessLogsBucketName', this.accessLogs.bucketName, 'S3 and CloudFront access logs'],
    ] as const)
      new CfnOutput(this, id, { value, description });

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
    for (const [id, queue, description] of [
      ['LandingDlqName', this.landingDlq, 'Deliveries that failed to land (docs/deploy.md, "Landing dead letters")'],
      ['JudgeDlqName', this.judgeDlq, 'Judge messages that failed (docs/deploy.md, "Judge dead letters")'],
    ] as const)
      new CfnOutput(this, id, { value: queue.queueName, description });

    this.hostKeys = keyCandidates(props.config).map(({ secretConfigKey, host }) => ({
      secretConfigKey,
      host,
      secret: emptySecret(
        this,
        `HostKey-${secretConfigKey}-${host}`,
        this.names.secret(keySecretName(secretConfigKey, host)),
        `Signing key of runner host ${host} (${secretConfigKey}). Empty until the host is paired; a key, or {"current","previous"} during a rotation.`,
      ),
    }));
    this.anthropicKey = emptySecret(
      this,
      'AnthropicApiKey',
      this.names.secret(ANTHROPIC_SECRET_NAME),
      'Anthropic API key the judge calls the model with.',
    );
    this.githubApp = emptySecret(
      this,
      'GitHubApp',
      this.names.secret(GITHUB_APP_SECRET_NAME),
      'GitHub App credentials the judge fetches reference fixes with: {"appId","privateKey","installationId"}.',
    );

    if (Object.values(props.config.cockpits).some((cockpit) => !cockpit.public)) {
      this.analysts = analystPool(this, props.config, this.names);
      new CfnOutput(this, 'AnalystsUserPoolId', {
        description: 'Analysts are invited here (docs/deploy.md)',
        value: this.analysts.userPool.userPoolId,
      });
    }
  }

  /** The inbox's objects: ingest writes deliveries, the lander reads and deletes them. */
  objectAccess(name: BucketName, access: BucketAccess): ObjectAccess {
    return this.keyAccess(
      `${name}-${access}`,
      `${access} objects of the ${name} bucket`,
      this[name],
      INBOX_GRANTS[access],
    );
  }

  dataAccess(user: DataObjectUser): ObjectAccess {
    return this.keyAccess(
      `data-${user}`,
      `the data bucket as the ${user} uses it`,
      this.data,
      DATA_OBJECT_GRANTS[user],
    );
  }

  /**
   * What a space's read API reads (`spaceReadPrefixes`), listing only under those prefixes, and the space's
   * exports too large for one answer, which it writes and links to.
   */
  spaceObjectReads(space: string): ObjectAccess {
    const prefixes = spaceReadPrefixes(space).map((prefix) => `${prefix}*`);
    const exports = `${exportSpacePrefix(space)}*`;
    return this.keyAccess(
      `data-read-space-${space}`,
      `read the run objects, snapshot and reference cache of space ${space}, and write its large exports`,
      this.data,
      { get: [...prefixes, exports], put: [exports], list: prefixes },
    );
  }

  /**
   * Object keys are minted at run time (per delivery, per run and attempt), so access is granted on key
   * patterns with an exact action list, in one managed policy per grant beside its bucket, which keeps the
   * wildcards and their acknowledgements in one place. The listing right is what makes a missing key answer
   * 404 rather than 403 (the adapters rely on "missing" to keep landing idempotent and to answer 404 for an
   * absent patch); "IfExists" keeps that answer for a plain object read, which carries no prefix.
   */
  private keyAccess(key: string, description: string, bucket: IBucket, grant: KeyGrant): ObjectAccess {
    const existing = this.objectPolicies.get(key);
    if (existing) return existing;
    const actionsOn = new Map<string, string[]>();
    const add = (action: string, patterns: readonly string[] = []) => {
      for (const pattern of patterns) actionsOn.set(pattern, [...(actionsOn.get(pattern) ?? []), action]);
    };
    add('s3:GetObject', grant.get);
    add('s3:PutObject', grant.put);
    add('s3:DeleteObject', grant.delete);
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
    const policy = new ManagedPolicy(this, `ObjectAccess-${key}`, {
      description: `replay-bench: ${description}`.slice(0, 1000),
      statements,
    });
    // How cdk-nag spells the bucket's ARN: a reference to the bucket this stack made, or an adopted one's name.
    const bucketArn =
      bucket instanceof Bucket
        ? `<${this.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`
        : `arn:<AWS::Partition>:s3:::${bucket.bucketName}`;
    Validations.of(policy).acknowledge(
      ...[...actionsOn].map(([pattern, actions]) => ({
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/${pattern}]`,
        reason: `Object keys are minted at run time (per delivery, run, attempt or snapshot slot), so access covers the keys matching ${pattern}, with only ${actions.join(', ')}.`,
      })),
    );
    const access = { bucket, policy };
    this.objectPolicies.set(key, access);
    return access;
  }
}

function ownTable(scope: Construct): Table {
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const index of Object.values(INDEXES)) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: AttributeType.STRING },
      projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
    });
  }
  return table;
}

function ownAccessLogs(scope: Construct): Bucket {
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
function adopted(scope: Construct, id: string, name: string | undefined): IBucket | undefined {
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

function privateBucket(accessLogs?: IBucket, logPrefix?: string): BucketProps {
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

function analystPool(scope: Stack, config: ReplayConfig, names: StageNames): Analysts {
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
  const domain = userPool.addDomain('Domain', {
    cognitoDomain: { domainPrefix: names.prefixed(`replay-bench-${scope.account}`) },
  });
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
