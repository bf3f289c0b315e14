// The analytics engine in local mode: DuckDB, embedded, reading the run dataset's Parquet parts where the local
// object store keeps the data bucket. One connection per engine; DuckDB runs a query on its own threads. Its
// memory is bounded (`memory_limit`, from the configuration): by default DuckDB keeps buffers up to 80 % of the
// machine's memory, gigabytes at millions of runs in the read process; past the limit a query's hash tables and
// sorts spill to a temporary folder of the engine's own, removed when it closes. No query keeps its rows' input
// order (`preserve_insertion_order`, which every query that needs an order states): an export is then written
// as it is read, a few thousand rows at a time, in no order, where sorting it by run id held every row at once
// (docs/contract.md §6 "Exports").
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { AnalyticsEngine, EngineExport, EngineValue } from '#core/ports.ts';
import { RUN_DATASET_TABLE, RUN_PART_FIELDS } from '#core/read/run-dataset.ts';
import { RUN_DATASET_PREFIX } from '#core/storage-layout.ts';
import { DEFAULT_ENGINE_MEMORY_MB, DEFAULT_ENGINE_THREADS } from '#schema/config.ts';

const scalar = (value: unknown): EngineValue => {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
};

/** Puts the files at `paths`, one after another, in the data bucket at `key` as one object, streamed. */
export type FileUpload = (key: string, paths: readonly string[]) => Promise<void>;

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The suffix the local S3 emulator (s3rver) gives an object's file. */
export const S3RVER_OBJECT_SUFFIX = '._S3rver_object';

const DUCKDB_TYPES = { string: 'VARCHAR', double: 'DOUBLE', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' } as const;

/**
 * The parts matching `parts` (a glob of the run dataset's files) as one table holding every column of a part, read
 * by column name (`union_by_name`): a part written before a column existed reads it as null. DuckDB knows only the
 * columns some part has, so every column is declared by an empty row of them too: a bucket whose parts all predate
 * a column (`partKind`, before rebuilds were sealed) reads it as null as well, as a Glue table reads it in AWS.
 */
export function runDatasetSql(parts: string): string {
  const declared = RUN_DATASET_TABLE.columns.map(
    ({ type }, k) => `CAST(NULL AS ${DUCKDB_TYPES[type]}) AS "${RUN_PART_FIELDS[k]}"`,
  );
  const files = `read_parquet(${quoted(parts)}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
  return `(SELECT ${declared.join(', ')} WHERE false UNION ALL BY NAME SELECT * FROM ${files}) AS runDataset`;
}

/** How much of the machine DuckDB may use (`engine.memoryMb`, `engine.threads` of the configuration). */
export interface DuckDbLimits {
  memoryMb: number;
  threads: number;
}

/** Rows of a Parquet export's row group: DuckDB holds a row group's every column until it is written. */
const EXPORT_ROW_GROUP = 16_384;

export class DuckDbEngine implements AnalyticsEngine {
  readonly runDataset: string;
  readonly exportsInIdOrder = false;

  private constructor(
    private readonly connection: DuckDBConnection,
    private readonly spillDirectory: string,
    bucketDirectory: string,
    objectSuffix: string,
    private readonly upload: FileUpload | null,
  ) {
    this.runDataset = runDatasetSql(`${bucketDirectory}/${RUN_DATASET_PREFIX}*/*/*.parquet${objectSuffix}`);
  }

  /**
   * An engine over the data bucket kept in `bucketDirectory`, each object a file named its key's last segment
   * plus `objectSuffix` (the local S3 emulator's `._S3rver_object`; '' for plain files).
   */
  static async open(
    bucketDirectory: string,
    objectSuffix = '',
    upload: FileUpload | null = null,
    limits: DuckDbLimits = { memoryMb: DEFAULT_ENGINE_MEMORY_MB, threads: DEFAULT_ENGINE_THREADS },
  ): Promise<DuckDbEngine> {
    const spillDirectory = mkdtempSync(join(tmpdir(), 'replay-duckdb-'));
    const instance = await DuckDBInstance.create(':memory:', {
      memory_limit: `${limits.memoryMb}MB`,
      threads: String(limits.threads),
      temp_directory: spillDirectory,
      preserve_insertion_order: 'false',
    });
    return new DuckDbEngine(await instance.connect(), spillDirectory, bucketDirectory, objectSuffix, upload);
  }

  /**
   * DuckDB writes the file (COPY, streaming, spilling to disk), then `upload` puts it in the bucket. A JSON
   * export's runs are written as an array, and the document is uploaded as three pieces, its head, that array
   * and its `extra` members, so the array is never written a second time.
   */
  async exportTo(
    sql: string,
    format: 'parquet' | 'csv' | 'json',
    { prefix, filename }: { prefix: string; filename: string },
    extra: Record<string, string>,
  ): Promise<EngineExport> {
    const key = `${prefix}${filename}`;
    if (!this.upload) throw new Error('This engine was opened without a way to put exports in the data bucket.');
    const directory = await mkdtemp(join(tmpdir(), 'replay-export-'));
    const file = join(directory, `export.${format}`);
    try {
      const options = {
        csv: `FORMAT csv, HEADER true, NEW_LINE '\r\n'`,
        json: 'FORMAT json, ARRAY true',
        parquet: `FORMAT parquet, ROW_GROUP_SIZE ${EXPORT_ROW_GROUP}`,
      }[format];
      const reader = await this.connection.runAndReadAll(`COPY (${sql}) TO ${quoted(file)} (${options})`);
      let pieces = [file];
      if (format === 'json') {
        const members = Object.entries(extra).map(
          ([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`,
        );
        const [head, tail] = [join(directory, 'head.json'), join(directory, 'tail.json')];
        await Promise.all([writeFile(head, '{"runs":'), writeFile(tail, `${members.join('')}}\n`)]);
        pieces = [head, file, tail];
      }
      await this.upload(key, pieces);
      return { runs: Number(reader.getRows()[0]?.[0] ?? 0), layout: 'one', keys: [key] };
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  async rows(sql: string): Promise<Record<string, EngineValue>[]> {
    const reader = await this.connection.runAndReadAll(sql);
    // In place: an answer of a configuration's tasks is hundreds of thousands of rows.
    const rows = reader.getRowObjectsJS() as Record<string, unknown>[];
    for (const row of rows) for (const name in row) row[name] = scalar(row[name]);
    return rows as Record<string, EngineValue>[];
  }

  close(): void {
    this.connection.closeSync();
    rmSync(this.spillDirectory, { recursive: true, force: true });
  }
}
