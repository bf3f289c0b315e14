// The analytics engine in AWS: Athena over the run dataset's Glue table, queries run in one workgroup whose
// enforced configuration places the results (under the data bucket) and caps the bytes a query may scan. A query
// is started, its state polled with backoff until it ends or the poll's time runs out (then it is stopped), and
// its rows read from its first GetQueryResults page or, for an answer longer than a page, from the CSV object
// Athena wrote (one read, where pages of at most 1,000 rows are one call each, one after another); each value is
// typed by the result set's column metadata (Athena answers text).
// Exports never pass through the function: a CSV export is the SELECT's own result object (Athena writes one
// CSV per query), Parquet and JSON are UNLOADed as parts under the export's prefix, named by the manifest
// Athena writes beside the results.
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  GetQueryRuntimeStatisticsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type ColumnInfo,
  type QueryExecution,
} from '@aws-sdk/client-athena';
import { parse } from 'csv-parse/sync';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import {
  EngineAnswerTooLargeError,
  type AnalyticsEngine,
  type EngineExport,
  type EngineValue,
  type ObjectStore,
} from '#core/ports.ts';
import { clientSettings, withinDeadline, type AwsConnection } from './sdk-settings.ts';

export const athenaClient = (connection: AwsConnection, timeouts: AwsCallTimeouts = AWS_CALLS.standard) =>
  new AthenaClient(clientSettings(connection, 'athena', timeouts));

/** How a query's end is awaited: the first pause, its growth, the longest, and the time allowed in all. */
export interface AthenaPolling {
  firstMs: number;
  factor: number;
  maxMs: number;
  timeoutMs: number;
}

export interface AthenaEngineSettings {
  workGroup: string;
  /** The data bucket: where UNLOAD writes exports, and where the workgroup's results (and manifests) are. */
  dataBucket: string;
  /** The Glue database and table of the run dataset. */
  database: string;
  table: string;
  polling?: AthenaPolling;
  /** Rows asked for per GetQueryResults page (Athena's maximum is 1,000). */
  pageSize?: number;
  /** The most rows an answer may hold (MAX_ANSWER_ROWS): a longer one is refused before it is read. */
  maxAnswerRows?: number;
}

/**
 * The most rows of one answer the read function (512 MB) reads. Read from its CSV, an answer of `/pairs`' six
 * columns added 78 MB to a Node process at 150,000 rows, 124 MB at 200,000 and 176 MB at 300,000
 * (`npm run bench:athena-answers -- --memory --rows N`).
 */
export const MAX_ANSWER_ROWS = 200_000;

/** Within the read function's 15 s: an answer that took longer would be lost anyway. */
export const ATHENA_POLLING: AthenaPolling = { firstMs: 100, factor: 1.5, maxMs: 1_000, timeoutMs: 12_000 };

/** A query Athena ran to failure or cancelled, or one that did not end in time. */
export class AthenaQueryError extends Error {
  override readonly name = 'AthenaQueryError';
}

const NUMERIC = new Set(['tinyint', 'smallint', 'integer', 'int', 'bigint', 'double', 'float', 'real', 'decimal']);

/** A cell as the column's type says: numbers and booleans parsed, instants in ISO 8601 (UTC), the rest text. */
function typed(text: string | undefined, column: ColumnInfo): EngineValue {
  if (text === undefined) return null;
  const type = (column.Type ?? 'varchar').toLowerCase();
  if (NUMERIC.has(type)) return Number(text);
  if (type === 'boolean') return text === 'true';
  if (type === 'timestamp') return new Date(`${text.replace(' ', 'T')}Z`).toISOString();
  return text;
}

/** What makes a row of cells (undefined: null), each named and typed by its column. */
function rowsNamedBy(columns: readonly ColumnInfo[]) {
  const names = columns.map((c) => c.Name ?? c.Label ?? '');
  return (cells: readonly (string | undefined)[]): Record<string, EngineValue> => {
    const row: Record<string, EngineValue> = {};
    cells.forEach((cell, i) => (row[names[i]!] = typed(cell, columns[i]!)));
    return row;
  };
}

/**
 * The rows of the CSV object Athena writes for a SELECT: a header row, then every value quoted and a null an empty
 * field without quotes. csv-parse reads both empties as ''; which were quoted is read from the record's raw text
 * (csv-parse's cast can tell, but builds a context for every field: ten times the parse).
 */
export function rowsOfResultCsv(text: string, columns: readonly ColumnInfo[]): Record<string, EngineValue>[] {
  // With `raw`, each record comes with its text (the sync API's types leave that option out).
  const records = parse(text, { from: 2, raw: true }) as unknown as { raw: string; record: string[] }[];
  const rowOf = rowsNamedBy(columns);
  return records.map(({ raw, record }) => {
    if (!record.includes('')) return rowOf(record);
    // Without "" in the text no value is a quoted empty: every empty field is a null.
    const quoted = raw.includes('""') ? quotedFields(raw) : [];
    return rowOf(record.map((cell, i) => (cell === '' && !quoted[i] ? undefined : cell)));
  });
}

/** Whether each field of one CSV record (its raw text) starts with a quote. */
function quotedFields(raw: string): boolean[] {
  const quoted: boolean[] = [];
  let i = 0;
  for (;;) {
    quoted.push(raw[i] === '"');
    if (raw[i] === '"') {
      // To the closing quote: a doubled quote is a quote within the value.
      for (i++; i < raw.length && !(raw[i] === '"' && raw[i + 1] !== '"'); i += raw[i] === '"' ? 2 : 1);
      i++;
    } else while (i < raw.length && raw[i] !== ',' && raw[i] !== '\n' && raw[i] !== '\r') i++;
    if (raw[i] !== ',') return quoted;
    i++;
  }
}

const quotedName = (name: string) => `"${name.replaceAll('"', '""')}"`;

export class AthenaEngine implements AnalyticsEngine {
  readonly runDataset: string;
  readonly exportsInIdOrder = true;
  private readonly polling: AthenaPolling;
  private readonly pageSize: number;
  private readonly maxAnswerRows: number;

  constructor(
    private readonly athena: AthenaClient,
    /** The data bucket: an UNLOAD's manifest, and the result object of an answer longer than a page. */
    private readonly objects: ObjectStore,
    private readonly settings: AthenaEngineSettings,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
  ) {
    this.runDataset = `${quotedName(settings.database)}.${quotedName(settings.table)}`;
    this.polling = settings.polling ?? ATHENA_POLLING;
    this.pageSize = settings.pageSize ?? 1_000;
    this.maxAnswerRows = settings.maxAnswerRows ?? MAX_ANSWER_ROWS;
  }

  async rows(sql: string): Promise<Record<string, EngineValue>[]> {
    const { id, execution } = await this.run(sql);
    const page = await withinDeadline('Athena GetQueryResults', this.timeouts, (options) =>
      this.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, MaxResults: this.pageSize }), options),
    );
    const columns = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
    if (!page.NextToken) {
      const rowOf = rowsNamedBy(columns);
      // A SELECT's first page starts with the header row (the column labels).
      return (page.ResultSet?.Rows ?? []).slice(1).map((r) => rowOf((r.Data ?? []).map((d) => d.VarCharValue)));
    }
    const answered = await this.outputRows(id);
    if (answered > this.maxAnswerRows)
      throw new EngineAnswerTooLargeError(
        `The answer holds ${answered.toLocaleString('en-US')} rows, more than the ${this.maxAnswerRows.toLocaleString('en-US')} one read may hold: narrow the filter (a model, a harness version, a repository).`,
      );
    const key = this.keyOf(execution.ResultConfiguration?.OutputLocation ?? '');
    const text = await this.objects.getText(key);
    if (text === null) throw new AthenaQueryError(`Athena query ${id} left no result object at ${key}.`);
    return rowsOfResultCsv(text, columns);
  }

  async exportTo(
    sql: string,
    format: 'parquet' | 'csv' | 'json',
    { prefix }: { prefix: string; filename: string },
  ): Promise<EngineExport> {
    const bucket = `s3://${this.settings.dataBucket}/`;
    if (format === 'csv') {
      const { id, execution } = await this.run(sql);
      return {
        runs: await this.outputRows(id),
        layout: 'one',
        keys: [this.keyOf(execution.ResultConfiguration?.OutputLocation ?? '')],
      };
    }
    const properties =
      format === 'parquet' ? `format = 'PARQUET', compression = 'SNAPPY'` : `format = 'JSON', compression = 'GZIP'`;
    const to = `${bucket}${prefix}`.replaceAll("'", "''");
    const { id, execution } = await this.run(`UNLOAD (${sql}) TO '${to}' WITH (${properties})`);
    const result = await withinDeadline('Athena GetQueryResults', this.timeouts, (options) =>
      this.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id }), options),
    );
    // The manifest lists the files the query wrote, beside its results: files left by a failed attempt are not in it.
    const results = this.keyOf(execution.ResultConfiguration?.OutputLocation ?? '').replace(/[^/]*$/, '');
    const manifest = await this.objects.getText(`${results}${id}-manifest.csv`);
    if (manifest === null) throw new AthenaQueryError(`Athena query ${id} left no manifest of what it unloaded.`);
    const keys = manifest
      .split('\n')
      .filter(Boolean)
      .map((location) => this.keyOf(location));
    return { runs: result.UpdateCount ?? 0, layout: 'parts', keys };
  }

  /** How many rows a finished query answered. */
  private async outputRows(id: string): Promise<number> {
    const statistics = await withinDeadline('Athena GetQueryRuntimeStatistics', this.timeouts, (options) =>
      this.athena.send(new GetQueryRuntimeStatisticsCommand({ QueryExecutionId: id }), options),
    );
    return statistics.QueryRuntimeStatistics?.Rows?.OutputRows ?? 0;
  }

  /** The data bucket's key of an S3 location Athena wrote to. */
  private keyOf(location: string): string {
    const bucket = `s3://${this.settings.dataBucket}/`;
    if (!location.startsWith(bucket)) throw new AthenaQueryError(`Athena wrote ${location}, outside ${bucket}.`);
    return location.slice(bucket.length);
  }

  /** Starts `sql` and waits for it to succeed; answers its execution id and its last state. */
  private async run(sql: string): Promise<{ id: string; execution: QueryExecution }> {
    const { workGroup, database } = this.settings;
    const started = await withinDeadline('Athena StartQueryExecution', this.timeouts, (options) =>
      this.athena.send(
        new StartQueryExecutionCommand({
          QueryString: sql,
          WorkGroup: workGroup,
          QueryExecutionContext: { Database: database },
        }),
        options,
      ),
    );
    const id = started.QueryExecutionId!;
    const deadline = Date.now() + this.polling.timeoutMs;
    let pause = this.polling.firstMs;
    for (;;) {
      const execution = await this.execution(id);
      const state = execution.Status?.State;
      if (state === 'SUCCEEDED') return { id, execution };
      if (state === 'FAILED' || state === 'CANCELLED') {
        const reason = execution.Status?.AthenaError?.ErrorMessage ?? execution.Status?.StateChangeReason;
        throw new AthenaQueryError(`Athena query ${id} ${state.toLowerCase()}: ${reason ?? 'no reason given'}.`);
      }
      if (Date.now() + pause > deadline) {
        await this.stop(id);
        throw new AthenaQueryError(
          `Athena query ${id} did not finish within ${this.polling.timeoutMs} ms (last state ${state}); it was stopped.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * this.polling.factor, this.polling.maxMs);
    }
  }

  private async execution(id: string): Promise<QueryExecution> {
    const answer = await withinDeadline('Athena GetQueryExecution', this.timeouts, (options) =>
      this.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }), options),
    );
    return answer.QueryExecution ?? {};
  }

  /** Best effort: a query left running would keep scanning (and billing) after its answer is lost. */
  private async stop(id: string): Promise<void> {
    await withinDeadline('Athena StopQueryExecution', this.timeouts, (options) =>
      this.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id }), options),
    ).catch(() => undefined);
  }
}
