// A local server speaking Athena's JSON 1.1 wire protocol (POST, `X-Amz-Target: AmazonAthena.<Operation>`,
// `application/x-amz-json-1.1`, SigV4-signed; errors as `__type` and `Message`), with the request and answer
// shapes of the API reference, that runs each query with DuckDB over the Glue table's Parquet files where the
// local S3 emulator keeps them. It checks the adapter's use of the protocol (workgroup, polling, pages, the
// header row, typed column metadata, results written to the workgroup's output location through S3; UNLOAD
// writing parts under an empty prefix and a manifest beside the results) and that the shared queries name only
// the table's columns; it does not check Trino's SQL dialect.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { athenaClient } from '#adapters/aws/athena-engine.ts';
import { runDatasetSql } from '#adapters/local/duckdb-engine.ts';
import { RUN_DATASET_TABLE } from '#core/read/run-dataset.ts';

type AthenaClient = ReturnType<typeof athenaClient>;

export interface AthenaStandInSettings {
  /** Where results are written (the S3 emulator) and where it keeps a bucket's objects on disk. */
  s3: S3Client;
  bucketDirectory: (bucket: string) => string;
  /** The suffix the emulator gives an object's file (s3rver's `._S3rver_object`). */
  objectSuffix: string;
  /** Workgroups and the output location each enforces (`s3://bucket/prefix/`). */
  workGroups: Record<string, { outputLocation: string }>;
  /** The Glue tables: database, table and the location of its Hive-partitioned Parquet parts. */
  tables: { database: string; table: string; location: string }[];
  /** GetQueryExecution answers RUNNING this many times before the query's own end (exercises polling). */
  runningPolls?: number;
}

interface Execution {
  id: string;
  query: string;
  workGroup: string;
  database: string;
  outputLocation: string;
  submitted: number;
  completed?: number;
  state: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  reason?: string;
  polls: number;
  columns: { name: string; type: string }[];
  /** Each row's cells as Athena's VarCharValue (undefined: null). */
  rows: (string | undefined)[][];
  /** An UNLOAD's rows written (GetQueryResults' UpdateCount). */
  unloaded?: number;
  done: Promise<void>;
}

export interface AthenaStandIn {
  client: AthenaClient;
  endpoint: string;
  /** Every operation called, in order. */
  calls: string[];
  executions: Map<string, Execution>;
  stop(): Promise<void>;
}

class AthenaError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** DuckDB's type as Athena names it in ColumnInfo (a Trino sum of bigints is a bigint). */
function athenaType(duckType: string): string {
  if (duckType === 'BIGINT' || duckType === 'HUGEINT' || duckType === 'UBIGINT') return 'bigint';
  if (duckType === 'INTEGER' || duckType === 'SMALLINT' || duckType === 'TINYINT') return 'integer';
  if (duckType === 'DOUBLE') return 'double';
  if (duckType === 'FLOAT') return 'real';
  if (duckType.startsWith('DECIMAL')) return 'decimal';
  if (duckType === 'BOOLEAN') return 'boolean';
  if (duckType.startsWith('TIMESTAMP')) return 'timestamp';
  if (duckType === 'DATE') return 'date';
  return 'varchar';
}

const cellText = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);

/** A result as Athena writes it to the output location: every value and the header quoted, null unquoted and empty. */
export function athenaResultCsv(names: readonly string[], rows: Iterable<readonly (string | undefined)[]>): string {
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const lines = [names.map(quote).join(',')];
  for (const row of rows) lines.push(row.map((cell) => (cell === undefined ? '' : quote(cell))).join(','));
  return `${lines.join('\n')}\n`;
}

const DUCK_TYPES = { string: 'VARCHAR', double: 'DOUBLE', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' } as const;

export async function startAthenaStandIn(settings: AthenaStandInSettings): Promise<AthenaStandIn> {
  const connection: DuckDBConnection = await (await DuckDBInstance.create(':memory:')).connect();
  for (const { database, table, location } of settings.tables) {
    const [, bucket, prefix] = /^s3:\/\/([^/]+)\/(.*)$/.exec(location)!;
    const parts = `${settings.bucketDirectory(bucket!)}/${prefix}*/*/*.parquet${settings.objectSuffix}`;
    // The table's declared columns only, typed as declared: a query naming another column fails as Athena's would.
    const columns = [...RUN_DATASET_TABLE.columns, ...RUN_DATASET_TABLE.partitions].map(
      ({ name, type }) => `CAST("${name}" AS ${DUCK_TYPES[type]}) AS "${name}"`,
    );
    await connection.run(`CREATE SCHEMA IF NOT EXISTS "${database}"`);
    await connection.run(
      `CREATE VIEW "${database}"."${table}" AS SELECT ${columns.join(', ')} FROM ${runDatasetSql(parts)}`,
    );
  }
  const executions = new Map<string, Execution>();
  const byToken = new Map<string, string>();
  const calls: string[] = [];
  const runningPolls = settings.runningPolls ?? 1;

  const locationOf = (location: string) => {
    const [, bucket, key] = /^s3:\/\/([^/]+)\/(.*)$/.exec(location)!;
    return { bucket: bucket!, key: key! };
  };
  const put = (location: string, body: string | Uint8Array) => {
    const { bucket, key } = locationOf(location);
    return settings.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  };

  /**
   * UNLOAD (SELECT …) TO 's3://…/' WITH (format = …, compression = …): refused unless the location is empty, as
   * Athena does; the rows in two parts (one when fewer than two rows), each in the query's order, then the manifest.
   */
  async function unload(execution: Execution, select: string, to: string, properties: string): Promise<void> {
    const property = (name: string) => new RegExp(`${name}\\s*=\\s*'([^']*)'`, 'i').exec(properties)?.[1];
    const [format, compression] = [property('format')?.toLowerCase(), property('compression')?.toLowerCase()];
    if (format !== 'parquet' && format !== 'json') throw new Error(`UNLOAD format ${format} is not simulated.`);
    const { bucket, key } = locationOf(to);
    const listed = await settings.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, MaxKeys: 1 }));
    if (listed.KeyCount) throw new Error(`HIVE_PATH_ALREADY_EXISTS: Target directory for UNLOAD is not empty: ${to}`);
    const n = Number((await connection.runAndReadAll(`SELECT count(*) FROM (${select}) AS u`)).getRows()[0]![0]);
    const directory = await mkdtemp(join(tmpdir(), 'athena-unload-'));
    try {
      const halves =
        n < 2
          ? [[0, n]]
          : [
              [0, Math.floor(n / 2)],
              [Math.floor(n / 2), n - Math.floor(n / 2)],
            ];
      const written: string[] = [];
      for (const [i, [offset, count]] of halves.entries()) {
        const file = join(directory, `part-${i}`);
        const options = `FORMAT ${format}${compression ? `, COMPRESSION ${compression}` : ''}`;
        await connection.run(
          `COPY (SELECT * FROM (${select}) AS u LIMIT ${count} OFFSET ${offset}) TO '${file}' (${options})`,
        );
        const location = `${to}${execution.id}_${i}.${format === 'json' ? 'json.gz' : 'parquet'}`;
        await put(location, await readFile(file));
        written.push(location);
      }
      await put(execution.outputLocation.replace(/[^/]*$/, `${execution.id}-manifest.csv`), `${written.join('\n')}\n`);
      execution.unloaded = n;
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  async function execute(execution: Execution): Promise<void> {
    execution.state = 'RUNNING';
    try {
      const unloading = /^\s*UNLOAD\s*\(([\s\S]*)\)\s*TO\s*'(s3:\/\/(?:[^']|'')+)'\s*WITH\s*\(([\s\S]*)\)\s*$/i.exec(
        execution.query,
      );
      if (unloading) {
        await unload(execution, unloading[1]!, unloading[2]!.replaceAll("''", "'"), unloading[3]!);
        execution.state = 'SUCCEEDED';
        execution.completed = Date.now();
        return;
      }
      const reader = await connection.runAndReadAll(execution.query);
      execution.columns = reader
        .columnNames()
        .map((name, i) => ({ name, type: athenaType(reader.columnTypes()[i]!.toString()) }));
      execution.rows = reader.getRows().map((row) => row.map(cellText));
      await put(
        execution.outputLocation,
        athenaResultCsv(
          execution.columns.map((c) => c.name),
          execution.rows,
        ),
      );
      execution.state = 'SUCCEEDED';
    } catch (error) {
      execution.state = 'FAILED';
      execution.reason = (error as Error).message;
    }
    execution.completed = Date.now();
  }

  function startQueryExecution(request: Record<string, unknown>) {
    const query = request['QueryString'];
    if (typeof query !== 'string' || !query)
      throw new AthenaError('InvalidRequestException', 'QueryString is required.');
    const token = request['ClientRequestToken'] as string | undefined;
    if (token && byToken.has(token)) return { QueryExecutionId: byToken.get(token) };
    const workGroup = (request['WorkGroup'] as string | undefined) ?? 'primary';
    const group = settings.workGroups[workGroup];
    if (!group) throw new AthenaError('InvalidRequestException', `WorkGroup ${workGroup} is not found.`);
    const database = (request['QueryExecutionContext'] as { Database?: string } | undefined)?.Database ?? 'default';
    const id = randomUUID();
    const execution: Execution = {
      id,
      query,
      workGroup,
      database,
      // Athena's results of a SELECT are its CSV; an UNLOAD's results location holds only its manifest.
      outputLocation: `${group.outputLocation}${id}${/^\s*UNLOAD\b/i.test(query) ? '' : '.csv'}`,
      submitted: Date.now(),
      state: 'QUEUED',
      polls: 0,
      columns: [],
      rows: [],
      done: Promise.resolve(),
    };
    execution.done = execute(execution);
    executions.set(id, execution);
    if (token) byToken.set(token, id);
    return { QueryExecutionId: id };
  }

  const executionOf = (request: Record<string, unknown>): Execution => {
    const id = request['QueryExecutionId'];
    const execution = typeof id === 'string' ? executions.get(id) : undefined;
    if (!execution) throw new AthenaError('InvalidRequestException', `QueryExecution ${String(id)} was not found`);
    return execution;
  };

  function getQueryExecution(request: Record<string, unknown>) {
    const execution = executionOf(request);
    execution.polls++;
    // Never waits for the query: RUNNING until it ends, as Athena answers.
    const ended = execution.polls > runningPolls && execution.completed !== undefined;
    const state = ended ? execution.state : execution.state === 'QUEUED' ? 'QUEUED' : 'RUNNING';
    const final = state === 'SUCCEEDED' || state === 'FAILED' || state === 'CANCELLED';
    return {
      QueryExecution: {
        QueryExecutionId: execution.id,
        Query: execution.query,
        StatementType: 'DML',
        SubstatementType: execution.unloaded === undefined ? 'SELECT' : 'UNLOAD',
        ResultConfiguration: { OutputLocation: execution.outputLocation },
        QueryExecutionContext: { Database: execution.database, Catalog: 'awsdatacatalog' },
        Status: {
          State: state,
          SubmissionDateTime: execution.submitted / 1000,
          ...(final && execution.completed ? { CompletionDateTime: execution.completed / 1000 } : {}),
          ...(state === 'FAILED'
            ? {
                StateChangeReason: execution.reason,
                AthenaError: { ErrorCategory: 2, ErrorType: 1000, Retryable: false, ErrorMessage: execution.reason },
              }
            : {}),
        },
        Statistics: final
          ? { EngineExecutionTimeInMillis: (execution.completed ?? execution.submitted) - execution.submitted }
          : {},
        WorkGroup: execution.workGroup,
        EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
      },
    };
  }

  function getQueryResults(request: Record<string, unknown>) {
    const execution = executionOf(request);
    if (execution.state !== 'SUCCEEDED')
      throw new AthenaError('InvalidRequestException', `Query has not yet finished. Current state: ${execution.state}`);
    const max = (request['MaxResults'] as number | undefined) ?? 1000;
    if (!Number.isInteger(max) || max < 1 || max > 1000)
      throw new AthenaError('InvalidRequestException', 'MaxResults must be between 1 and 1000.');
    const token = request['NextToken'] as string | undefined;
    const offset = token === undefined ? 0 : Number(Buffer.from(token, 'base64url').toString());
    // The header row comes first, as the first of the first page's rows.
    const all = offset === 0 ? [execution.columns.map((c) => c.name), ...execution.rows] : null;
    const page = all ? all.slice(0, max) : execution.rows.slice(offset - 1, offset - 1 + max);
    const next = offset + page.length;
    return {
      ResultSet: {
        Rows: page.map((row) => ({ Data: row.map((cell) => (cell === undefined ? {} : { VarCharValue: cell })) })),
        ResultSetMetadata: {
          ColumnInfo: execution.columns.map(({ name, type }) => ({
            CatalogName: 'hive',
            SchemaName: '',
            TableName: '',
            Name: name,
            Label: name,
            Type: type,
            Precision: 0,
            Scale: 0,
            Nullable: 'UNKNOWN',
            CaseSensitive: type === 'varchar',
          })),
        },
      },
      ...(next < execution.rows.length + 1 ? { NextToken: Buffer.from(String(next)).toString('base64url') } : {}),
      UpdateCount: execution.unloaded ?? 0,
    };
  }

  function getQueryRuntimeStatistics(request: Record<string, unknown>) {
    const execution = executionOf(request);
    const outputRows = execution.unloaded ?? execution.rows.length;
    return {
      QueryRuntimeStatistics: {
        Timeline: { TotalExecutionTimeInMillis: (execution.completed ?? Date.now()) - execution.submitted },
        Rows: { OutputRows: outputRows },
      },
    };
  }

  function stopQueryExecution(request: Record<string, unknown>) {
    const execution = executionOf(request);
    // A query still reported running ends cancelled, whatever DuckDB made of it.
    if (execution.polls <= runningPolls || execution.state === 'QUEUED' || execution.state === 'RUNNING')
      void execution.done.then(() => (execution.state = 'CANCELLED'));
    return {};
  }

  const operations: Record<string, (request: Record<string, unknown>) => unknown> = {
    StartQueryExecution: startQueryExecution,
    GetQueryExecution: getQueryExecution,
    GetQueryResults: getQueryResults,
    StopQueryExecution: stopQueryExecution,
    GetQueryRuntimeStatistics: getQueryRuntimeStatistics,
  };

  async function answer(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown, errorType?: string) => {
      res.writeHead(status, {
        'content-type': 'application/x-amz-json-1.1',
        'x-amzn-requestid': randomUUID(),
        ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
      });
      res.end(JSON.stringify(body));
    };
    try {
      const target = String(req.headers['x-amz-target'] ?? '');
      const [service, operation] = target.split('.');
      if (req.method !== 'POST' || service !== 'AmazonAthena' || !operation || !operations[operation])
        throw new AthenaError('UnknownOperationException', `Unknown operation ${target}.`);
      if (req.headers['content-type'] !== 'application/x-amz-json-1.1')
        throw new AthenaError('InvalidRequestException', 'Content-Type must be application/x-amz-json-1.1.');
      if (!String(req.headers['authorization'] ?? '').startsWith('AWS4-HMAC-SHA256 Credential='))
        throw new AthenaError('MissingAuthenticationTokenException', 'Request is missing a SigV4 signature.');
      calls.push(operation);
      reply(200, await operations[operation](JSON.parse(Buffer.concat(chunks).toString() || '{}')));
    } catch (error) {
      const type = error instanceof AthenaError ? error.type : 'InternalServerException';
      reply(type === 'InternalServerException' ? 500 : 400, { __type: type, Message: (error as Error).message }, type);
    }
  }

  const server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = athenaClient({
    region: 'us-east-1',
    endpoints: { athena: endpoint },
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  return {
    client,
    endpoint,
    calls,
    executions,
    async stop() {
      client.destroy();
      await Promise.all([...executions.values()].map((e) => e.done));
      connection.closeSync();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
