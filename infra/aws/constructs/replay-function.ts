// The house Lambda function. Every pipeline function is built the same way (ARM64, the newest Node
// runtime, ESM bundled by the local esbuild, source maps, bounded log retention, Powertools settings), runs
// under its own role that starts with nothing but its log group, and gains each permission through a
// method that also sets the environment variable naming that resource: a function can never be told
// about a resource it may not touch, nor hold a permission for one it was not told about. The configuration
// is a file in the function's bundle, beside its code: no environment size limit, and a change to it
// changes the asset hash, so it deploys like a code change.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions, type OutputFile } from 'esbuild';
import {
  AssetHashType,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stage,
  Validations,
  type ILocalBundling,
} from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, LoggingFormat, Runtime, type IEventSource } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  byHostPartition,
  byUpdatedPartition,
  iamLiteral,
  INDEXES,
  ISSUE_OWNERS_PARTITION_PREFIX,
  issuesByUpdatedPartition,
  leasePartition,
  REENQUEUE_PARTITION,
  spacePartition,
  spacePartitions,
} from '#core/storage-layout.ts';
import { BUNDLED_CONFIG_FILE } from '#schema/config.ts';
import type { ReplayConfig } from '../deployment-config.ts';
import type { ObjectAccess } from './object-access-policy.ts';
import { engineStatements, type RunDatasetCatalog } from './run-dataset-engine.ts';
import { acknowledgeHostKeyFolders, hostKeyFolderArn, keyPrefixes } from '../host-key-arns.ts';
import { METRICS_NAMESPACE, type ServiceName } from '#core/operations.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * How every function is bundled (esbuild, ESM, minified, tree-shaken, ES module entry points first, the
 * AWS SDK included); bench/bundles.ts builds each function's floor with these too. The banner: esbuild's
 * ESM output cannot `require` Node built-ins from bundled CommonJS dependencies without it.
 */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;
/** How every function is bundled (bench/bundles.ts builds its floors the same way). */
export const FUNCTION_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: `node${/^nodejs(\d+)/.exec(FUNCTION_RUNTIME.name)![1]}`,
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  minify: true,
  keepNames: true,
  // A linked `index.mjs.map` without the sources: stack traces in the logs point at the TypeScript.
  sourcemap: 'linked',
  sourcesContent: false,
} satisfies BuildOptions;
/** Node reads the source map when the bundle loads, which a cold start pays for (bench/bundles.ts measures it). */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';
/**
 * The share of a function's memory its JavaScript heap may take when sized to it: the rest is for what lives
 * outside the heap (Buffers of the objects it reads and writes, zlib's state, the runtime itself).
 */
export const HEAP_SHARE_OF_MEMORY = 0.85;
/** `--max-old-space-size` for a function of `memorySize` MB: the heap's limit follows the configured memory. */
export const heapLimitMb = (memorySize: number): number => Math.floor(memorySize * HEAP_SHARE_OF_MEMORY);

export interface ReplayFunctionProps {
  service: ServiceName;
  description: string;
  timeout: Duration;
  memorySize: number;
  reservedConcurrentExecutions?: number;
  /**
   * Sets the heap's limit from `memorySize` (heapLimitMb), for a function whose memory is mostly its heap:
   * Node's own default depends on the machine, not on what Lambda grants.
   */
  heapFromMemory?: boolean;
  /** Bundled as `replay.config.json`, which the AWS wiring's `bundledConfig` reads; absent when unused. */
  config?: ReplayConfig;
}

/** `read-write-count` adds UpdateItem, which only the judge's atomic budget counter needs. */
export type TableAccess = 'read' | 'read-write' | 'read-write-count';
export type BucketEnv = 'INBOX_BUCKET' | 'DATA_BUCKET';
export type QueueEnv = 'LANDING_QUEUE_URL' | 'LANDING_DLQ_URL' | 'JUDGE_QUEUE_URL';
export type SecretEnv = 'ANTHROPIC_SECRET_ARN' | 'GITHUB_APP_SECRET_ARN';

const TABLE_ACTIONS: Record<TableAccess, string[]> = {
  // The readers of the `since` deltas: the keys-only index's rows are fetched from the table (BatchGetItem).
  read: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'],
  'read-write': ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
  'read-write-count': ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
};

export class ReplayFunction extends Construct {
  readonly lambda: NodejsFunction;
  readonly role: Role;
  readonly config?: ReplayConfig;

  constructor(scope: Construct, id: string, props: ReplayFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the replay-bench ${props.service} function; holds only what that function uses.`,
    });
    logGroup.grantWrite(this.role);
    this.config = props.config;
    const assemblyConfig = props.config && writeAssemblyConfigFile(this, props.config);

    this.lambda = new NodejsFunction(this, 'Function', {
      code: bundledCode(props.service, assemblyConfig),
      handler: 'index.handler',
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      description: props.description,
      timeout: props.timeout,
      memorySize: props.memorySize,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      role: this.role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.service,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS: props.heapFromMemory
          ? `${FUNCTION_NODE_OPTIONS} --max-old-space-size=${heapLimitMb(props.memorySize)}`
          : FUNCTION_NODE_OPTIONS,
      },
    });
  }

  /** Exactly the item calls the DynamoDB adapter makes, on the table and its three named indexes. */
  usesTable(table: ITable, access: TableAccess): this {
    this.lambda.addEnvironment('TABLE_NAME', table.tableName);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: TABLE_ACTIONS[access],
        resources: [table.tableArn, ...Object.values(INDEXES).map((index) => `${table.tableArn}/index/${index.name}`)],
      }),
    );
    return this;
  }

  /**
   * Read access to one space's items only: every key the read API reads or queries (its partition, its
   * budget, its runs and issues by update time, its runs by host) is listed, and IAM refuses any other leading
   * key. Runs by host are one pattern for all of the space's senders (space names hold no "#"), which keeps a
   * fleet-wide space's role inside IAM's size limit; the space's own name is matched literally.
   */
  readsSpaceOfTable(table: ITable, space: string): this {
    this.lambda.addEnvironment('TABLE_NAME', table.tableName);
    const exact = [...spacePartitions(space), byUpdatedPartition(space), issuesByUpdatedPartition(space)];
    const leadingKeys = [...exact.map(iamLiteral), `${iamLiteral(byHostPartition(space, ''))}*`];
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: TABLE_ACTIONS.read,
        resources: [table.tableArn, ...Object.values(INDEXES).map((index) => `${table.tableArn}/index/${index.name}`)],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
      }),
    );
    return this;
  }

  /** Takes and gives up one job's lease (core/lease.ts): writes to that lease's item and nothing else. */
  holdsLease(table: ITable, name: string): this {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [leasePartition(name)] } },
      }),
    );
    return this;
  }

  /** The reconciliation's count of each inbox entry it queued again: one atomic ADD, in its own partition only. */
  countsReenqueues(table: ITable): this {
    this.lambda.addEnvironment('TABLE_NAME', table.tableName);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [REENQUEUE_PARTITION] } },
      }),
    );
    return this;
  }

  /**
   * Ingest's look at the table (docs/contract.md §3 check 7): it reads run rows and claims tasks' issue records. IAM
   * refuses it any other item: reads only under the spaces' and the claims' partitions, writes only claims.
   */
  checksOwnership(table: ITable): this {
    this.lambda.addEnvironment('TABLE_NAME', table.tableName);
    const under = (...partitionPrefixes: string[]) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': partitionPrefixes.map((prefix) => `${prefix}*`) },
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem'],
        resources: [table.tableArn],
        conditions: under(spacePartition(''), ISSUE_OWNERS_PARTITION_PREFIX),
      }),
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [table.tableArn],
        conditions: under(ISSUE_OWNERS_PARTITION_PREFIX),
      }),
    );
    return this;
  }

  /** Object access through the bucket's own managed policy (see `StatefulStack.objectAccess`). */
  /**
   * Queries the run dataset with Athena (the read API above `engine.aboveRuns`): in its own workgroup only, and
   * the table's definition only; the objects Athena reads and writes for it come with its space's reads.
   */
  queriesRunDataset(workGroup: { name: string; arn: string; bucket: IBucket }, catalog: RunDatasetCatalog): this {
    this.lambda.addEnvironment('ATHENA_WORKGROUP', workGroup.name);
    this.lambda.addEnvironment('GLUE_DATABASE', catalog.database);
    this.lambda.addEnvironment('GLUE_TABLE', catalog.table);
    for (const statement of engineStatements(workGroup.arn, catalog, workGroup.bucket))
      this.role.addToPrincipalPolicy(statement);
    return this;
  }

  usesBucket(env: BucketEnv, grant: ObjectAccess): this {
    this.lambda.addEnvironment(env, grant.bucket.bucketName);
    this.role.addManagedPolicy(grant.policy);
    return this;
  }

  /** Send only: the consuming side gets its rights from the event source mapping. */
  sendsTo(env: QueueEnv, queue: IQueue): this {
    this.lambda.addEnvironment(env, queue.queueUrl);
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    return this;
  }

  /** A credential secret whose ARN the function is given and whose value it may read. */
  readsSecret(env: SecretEnv, secret: ISecret): this {
    this.lambda.addEnvironment(env, secret.secretArn);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
    return this;
  }

  /**
   * Host signing keys under these secretConfigKeys, one ARN per key prefix (infra/aws/host-key-arns.ts).
   * The handler derives each secret's name from the configuration (`keySecretName`), so the configuration is
   * the one list of hosts; a named deployment's start with `secretPrefix`, which the function is told.
   */
  readsHostKeys(secretPrefix: string, secretConfigKeys: string[]): this {
    const prefixes = keyPrefixes(secretConfigKeys);
    this.toldHostKeyPrefix(secretPrefix).role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: prefixes.map((key) => hostKeyFolderArn(this, secretPrefix, key)),
      }),
    );
    // The keys are read 20 a call (adapters/aws/secrets-key-source.ts). BatchGetSecretValue names no resource;
    // Secrets Manager authorizes each secret it returns with GetSecretValue, granted above for the host keys only.
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:BatchGetSecretValue'], resources: ['*'] }),
    );
    acknowledgeHostKeyFolders(
      this.role,
      secretPrefix,
      prefixes,
      'Verifying a signature means trying the key of every declared sender, so the function reads them all.',
    );
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'secretsmanager:BatchGetSecretValue has no resource-level scoping; each secret it returns needs secretsmanager:GetSecretValue, which this role holds for the host-key folders only.',
    });
    return this;
  }

  /** Whether a host key exists, from the secret's metadata only; the value stays out of reach. */
  describesHostKeys(secretPrefix: string, secretConfigKey: string): this {
    this.toldHostKeyPrefix(secretPrefix).role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:DescribeSecret'],
        resources: [hostKeyFolderArn(this, secretPrefix, secretConfigKey)],
      }),
    );
    acknowledgeHostKeyFolders(
      this.role,
      secretPrefix,
      [secretConfigKey],
      "DescribeSecret returns a secret's metadata, never its value: the function asks only whether its own space's senders are paired.",
    );
    return this;
  }

  /** The default deployment's secrets have no prefix, and its functions no variable for one. */
  private toldHostKeyPrefix(secretPrefix: string): this {
    if (secretPrefix) this.lambda.addEnvironment('HOST_KEY_SECRET_PREFIX', secretPrefix);
    return this;
  }

  addEventSource(source: IEventSource): this {
    this.lambda.addEventSource(source);
    return this;
  }
}

/**
 * The parsed configuration (every default filled in) written once per content into the cloud assembly,
 * where the bundling step below picks it up; the name is its hash, so functions sharing it share the file.
 */
function writeAssemblyConfigFile(scope: Construct, config: ReplayConfig): string {
  const json = JSON.stringify(config);
  const dir = join(Stage.of(scope)!.outdir, 'function-config');
  const path = join(dir, `${createHash('sha256').update(json).digest('hex').slice(0, 16)}.json`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, json);
  return path;
}

/**
 * The function's code: its service's bundle and, when it reads one, its configuration file. NodejsFunction's
 * own bundling would start esbuild through `npx` for every function (most of a second of CPU each, before
 * esbuild does anything) and bundle the read API again for every cockpit, though only the configuration
 * beside it differs: a 100-cockpit deployment paid for 100 identical builds. Here each service is bundled
 * once per synth, by esbuild's API in this process, and every function of that service gets a copy.
 */
function bundledCode(service: ServiceName, configFile: string | undefined): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never started: local bundling always succeeds, esbuild being one of this project's packages.
      image: DockerImage.fromRegistry('dummy'),
      local: new ServiceBundle(service, configFile),
    },
  });
}

/**
 * Its fields are data on purpose: aws-cdk-lib caches staged assets by their bundling options as JSON, so
 * functions of the same service and configuration share one asset, and no others do.
 */
class ServiceBundle implements ILocalBundling {
  constructor(
    readonly service: ServiceName,
    readonly configFile: string | undefined,
  ) {}

  tryBundle(outputDir: string): boolean {
    for (const file of serviceBundle(this.service, outputDir))
      writeFileSync(join(outputDir, basename(file.path)), file.contents);
    if (this.configFile) copyFileSync(this.configFile, join(outputDir, BUNDLED_CONFIG_FILE));
    return true;
  }
}

const builtBundles = new Map<string, OutputFile[]>();

/**
 * The service's index.mjs and its source map, built once for every bundle folder beside `outputDir` (the map
 * names the sources relative to its own folder, the same from each of them).
 */
function serviceBundle(service: ServiceName, outputDir: string): OutputFile[] {
  const key = `${service}\0${dirname(outputDir)}`;
  let files = builtBundles.get(key);
  if (!files) {
    files = buildSync({
      entryPoints: [`${PROJECT_ROOT}functions/${service}/lambda.ts`],
      absWorkingDir: PROJECT_ROOT,
      outfile: join(outputDir, 'index.mjs'),
      write: false,
      ...FUNCTION_BUILD_OPTIONS,
      // No package left external, the AWS SDK included: the SDK clients the tests ran against
      // (package-lock.json), tree-shaken into the bundle, not whichever versions the runtime happens to ship.
      logLevel: 'warning',
    }).outputFiles;
    builtBundles.set(key, files);
  }
  return files;
}
