// The analytics engine's resources in AWS (docs/contract.md §6 "Reading at scale"): a Glue database and table
// over the run dataset in the data bucket, with partition projection so Athena reads the one space a query names
// and needs no crawler or partition loading (the stateful stack makes it, beside the bucket it describes), and
// one Athena workgroup per cockpit (its stack), whose enforced configuration writes results encrypted under its
// space's results prefix (expired after a day by the bucket's lifecycle) and cuts off a query scanning too much.
import { Aws, Stack } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { RUN_DATASET_TABLE } from '#core/read/run-dataset.ts';
import { RUN_DATASET_PREFIX, athenaResultsPrefix } from '#core/storage-layout.ts';
import type { DeploymentNames } from '../deployment-names.ts';

/**
 * Bytes one query may scan before Athena cancels it: 10 GB, $0.05 at $5/TB. /stats reads about 46 bytes a run
 * and an export of every column 33.5 (docs/scale.md), so this is 200M runs of /stats, past what is promised.
 */
export const ATHENA_SCAN_CUTOFF_BYTES = 10 * 1024 ** 3;

export interface RunDatasetCatalog {
  database: string;
  table: string;
  databaseArn: string;
  tableArn: string;
  catalogArn: string;
}

/** The Glue database and table over `runs-parquet/`: the columns of a part, partitions projected from the key. */
/**
 * `partsKeptDays`: how long the bucket keeps a part (its lifecycle expiry). The projection enumerates the days from
 * one before the oldest part can be to today: every day it names is one more listing in every query, and a range
 * from a fixed first day would add 365 empty ones a year.
 */
export function runDatasetCatalog(
  scope: Construct,
  names: DeploymentNames,
  bucket: IBucket,
  partsKeptDays: number,
): RunDatasetCatalog {
  // Glue names take lower-case letters, digits and underscores.
  const database = names.prefixed('replay_bench').replaceAll('-', '_');
  const table = 'runs';
  const db = new CfnDatabase(scope, 'RunDatasetDatabase', {
    catalogId: Aws.ACCOUNT_ID,
    databaseInput: { name: database, description: 'replay-bench: the run dataset the read API queries with Athena' },
  });
  const location = `s3://${bucket.bucketName}/${RUN_DATASET_PREFIX}`;
  new CfnTable(scope, 'RunDatasetTable', {
    catalogId: Aws.ACCOUNT_ID,
    databaseName: db.ref,
    tableInput: {
      name: table,
      description: 'The runs as Parquet parts the compactor adds per change set (core/read/run-dataset.ts)',
      tableType: 'EXTERNAL_TABLE',
      parameters: {
        classification: 'parquet',
        EXTERNAL: 'TRUE',
        'projection.enabled': 'true',
        // Every query names its space (`space = '…'`), so Athena lists that space's objects alone.
        'projection.space.type': 'injected',
        'projection.day.type': 'date',
        'projection.day.format': 'yyyy-MM-dd',
        'projection.day.range': `NOW-${partsKeptDays + 1}DAYS,NOW`,
        'projection.day.interval': '1',
        'projection.day.interval.unit': 'DAYS',
        'storage.location.template': `${location}space=\${space}/day=\${day}/`,
      },
      partitionKeys: RUN_DATASET_TABLE.partitions.map(({ name, type }) => ({ name, type })),
      storageDescriptor: {
        location,
        columns: RUN_DATASET_TABLE.columns.map(({ name, type }) => ({ name, type })),
        inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
        outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
        serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
      },
    },
  });
  const arn = (resource: string) => `arn:${Aws.PARTITION}:glue:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;
  return {
    database,
    table,
    catalogArn: arn('catalog'),
    databaseArn: arn(`database/${database}`),
    tableArn: arn(`table/${database}/${table}`),
  };
}

/** A cockpit's workgroup: results under its own prefix, SSE-S3 like the bucket, the scan cut off, settings enforced. */
export function cockpitWorkGroup(
  scope: Construct,
  names: DeploymentNames,
  cockpit: string,
  space: string,
  bucket: IBucket,
) {
  const name = names.prefixed(`ReplayBench-${cockpit}`);
  const workGroup = new CfnWorkGroup(scope, 'EngineWorkGroup', {
    name,
    description: `replay-bench: the read API of cockpit ${cockpit} querying the run dataset`.slice(0, 1024),
    state: 'ENABLED',
    // Removing the cockpit removes its workgroup with its query history (the results expire on their own).
    recursiveDeleteOption: true,
    workGroupConfiguration: {
      enforceWorkGroupConfiguration: true,
      publishCloudWatchMetricsEnabled: true,
      bytesScannedCutoffPerQuery: ATHENA_SCAN_CUTOFF_BYTES,
      engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
      resultConfiguration: {
        outputLocation: `s3://${bucket.bucketName}/${athenaResultsPrefix(space)}${cockpit}/`,
        encryptionConfiguration: { encryptionOption: 'SSE_S3' },
      },
    },
  });
  const stack = Stack.of(scope);
  return {
    name,
    arn: stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: workGroup.ref }),
    bucket,
  };
}

/** What the read function may do with the engine: run queries in its workgroup, read the table's definition. */
export function engineStatements(workGroupArn: string, catalog: RunDatasetCatalog, bucket: IBucket): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: [
        'athena:StartQueryExecution',
        'athena:GetQueryExecution',
        'athena:GetQueryResults',
        'athena:GetQueryRuntimeStatistics',
        'athena:StopQueryExecution',
      ],
      resources: [workGroupArn],
    }),
    new PolicyStatement({
      actions: ['glue:GetDatabase', 'glue:GetTable'],
      resources: [catalog.catalogArn, catalog.databaseArn, catalog.tableArn],
    }),
    // Athena checks the results location's region with the caller's credentials.
    new PolicyStatement({ actions: ['s3:GetBucketLocation'], resources: [bucket.bucketArn] }),
  ];
}
