// Everything that holds data or identity: the table, the buckets, the queues with their dead-letter queues,
// the secrets and the analysts' user pool. It changes rarely, and all but the judge's queues (whose messages
// point at rows) survive stack deletion — the landing queue and its dead-letter queue carry accepted deliveries
// — so the stateless stack can be replaced or torn down without losing a run, a key or a user.
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  DATA_OBJECT_GRANTS,
  SNAPSHOTS_PREFIX,
  RUN_DATASET_PREFIX,
  spaceReadGrant,
  INBOX_GRANTS,
  type KeyGrant,
  EXPORT_LINK_DAYS,
  EXPORTS_PREFIX,
  ATHENA_RESULTS_PREFIX,
  type DataObjectUser,
} from '#core/storage-layout.ts';
import { keySecretName } from '#shared/key-names.ts';
import { keyCandidates, type AdoptConfig, type ReplayConfig } from '#schema/config.ts';
import { LANDING_MESSAGE_MAX_BYTES } from '#schema/messages.ts';
import { MAX_RECEIVES, TIMEOUTS, visibilityFor } from './timing.ts';
import type { DeploymentNames } from './deployment-names.ts';
import { analystPool, type Analysts } from './constructs/analyst-pool.ts';
import { objectAccessPolicy, type ObjectAccess } from './constructs/object-access-policy.ts';
import { runDatasetCatalog, type RunDatasetCatalog } from './constructs/run-dataset-engine.ts';
import {
  adopted,
  deadLetterQueue,
  emptySecret,
  ownAccessLogs,
  ownTable,
  privateBucket,
  queueDefaults,
} from './constructs/stateful-resources.ts';

export const INBOX_EXPIRY_DAYS = 14;
/** Days an overwritten snapshot object is kept. */
export const SNAPSHOT_VERSION_DAYS = 1;
/**
 * Days after which a snapshot object, and a part of the run dataset, expires. The compactor writes parts under fresh
 * names and deletes only run dataset parts a sealed rebuild superseded (and its finished rebuild's progress);
 * every object a healthy compactor's manifest names is at most a day old (its daily rebuild writes them all
 * anew), so what expires is what no manifest names any more. Should the compactor stop for this long, readers
 * find the objects missing and read the table, as for a lost snapshot.
 */
export const SNAPSHOT_EXPIRY_DAYS = 7;
const ANTHROPIC_SECRET_NAME = 'ReplayBench/AnthropicApiKey';
const GITHUB_APP_SECRET_NAME = 'ReplayBench/GitHubApp';

export interface HostKeySecret {
  secretConfigKey: string;
  host: string;
  secret: Secret;
}

/** The inbox holds deliveries only; the data bucket is reached through per-user grants (`dataAccess`). */
export type BucketName = 'inbox';
export type BucketAccess = keyof typeof INBOX_GRANTS;

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
  /** The deployment's names: what its secrets, stacks and account-wide names start with. */
  names: DeploymentNames;
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
  /** The Glue database and table over the run dataset (constructs/run-dataset-engine.ts). */
  runDataset: RunDatasetCatalog;
}

export interface StatefulStackProps extends StackProps {
  config: ReplayConfig;
  names: DeploymentNames;
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
  readonly names: DeploymentNames;
  readonly anthropicKey: Secret;
  readonly githubApp: Secret;
  readonly analysts?: Analysts;
  readonly runDataset: RunDatasetCatalog;
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
          // The compactor writes a snapshot's parts anew at least daily (tens of MB at a million runs), and the
          // parts no manifest names are of no use: 90 days of them would be hundreds of GB. A snapshot is
          // rebuilt from the table, so a week is plenty.
          {
            prefix: SNAPSHOTS_PREFIX,
            expiration: Duration.days(SNAPSHOT_EXPIRY_DAYS),
            noncurrentVersionExpiration: Duration.days(SNAPSHOT_VERSION_DAYS),
          },
          // The run dataset's parts follow the snapshot's: each daily rebuild writes every run anew, so a part older
          // than the week is superseded whole, and every engine query would otherwise scan one more copy a day.
          {
            prefix: RUN_DATASET_PREFIX,
            expiration: Duration.days(SNAPSHOT_EXPIRY_DAYS),
            noncurrentVersionExpiration: Duration.days(SNAPSHOT_VERSION_DAYS),
          },
          // An export too large for one answer is fetched through a link that works for minutes.
          {
            prefix: EXPORTS_PREFIX,
            expiration: Duration.days(EXPORT_LINK_DAYS),
            noncurrentVersionExpiration: Duration.days(EXPORT_LINK_DAYS),
          },
          // Athena's query results (an engine-written CSV export among them) are read once, within minutes.
          {
            prefix: ATHENA_RESULTS_PREFIX,
            expiration: Duration.days(EXPORT_LINK_DAYS),
            noncurrentVersionExpiration: Duration.days(EXPORT_LINK_DAYS),
          },
        ],
      });
    this.runDataset = runDatasetCatalog(this, this.names, this.data, SNAPSHOT_EXPIRY_DAYS);
    for (const [id, value, description] of [
      ['TableName', this.table.tableName, 'The table (restore runbook: docs/deploy.md, "Restoring")'],
      ['InboxBucketName', this.inbox.bucketName, 'Deliveries waiting to land'],
      ['DataBucketName', this.data.bucketName, 'Patches, summaries, judge audits, snapshots (versioned)'],
      ['AccessLogsBucketName', this.accessLogs.bucketName, 'S3 and CloudFront access logs'],
    ] as const)
      new CfnOutput(this, id, { value, description });

    // A landing message may be the accepted delivery itself (up to SQS's 1 MiB): kept as long as the inbox
    // keeps an entry, and kept on stack deletion like the inbox.
    this.landingDlq = deadLetterQueue(this, 'LandingDlq');
    this.landingDlq.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.landingQueue = new Queue(this, 'LandingQueue', {
      ...queueDefaults(),
      maxMessageSizeBytes: LANDING_MESSAGE_MAX_BYTES,
      retentionPeriod: Duration.days(INBOX_EXPIRY_DAYS),
      removalPolicy: RemovalPolicy.RETAIN,
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

  /** What a space's read API may do in the data bucket (`spaceReadGrant`). */
  spaceObjectReads(space: string): ObjectAccess {
    return this.keyAccess(
      `data-read-space-${space}`,
      `read the run objects, snapshot, reference cache and run dataset of space ${space}, write its large exports and query results`,
      this.data,
      spaceReadGrant(space),
    );
  }

  /** One managed policy per grant, made once however many functions attach it. */
  private keyAccess(key: string, description: string, bucket: IBucket, grant: KeyGrant): ObjectAccess {
    const existing = this.objectPolicies.get(key);
    if (existing) return existing;
    const access = objectAccessPolicy(this, key, description, bucket, grant);
    this.objectPolicies.set(key, access);
    return access;
  }
}
