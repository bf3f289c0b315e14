// The analytics engine in local mode: DuckDB, embedded, reading the run dataset's Parquet parts where the local
// object store keeps the data bucket. One connection per engine; DuckDB runs a query on its own threads.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { AnalyticsEngine, EngineValue } from '#core/ports.ts';
import { RUN_DATASET_PREFIX } from '#core/storage-layout.ts';

const scalar = (value: unknown): EngineValue => {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
};

export class DuckDbEngine implements AnalyticsEngine {
  readonly runDataset: string;

  private constructor(
    private readonly connection: DuckDBConnection,
    bucketDirectory: string,
  ) {
    const parts = `${bucketDirectory.replaceAll("'", "''")}/${RUN_DATASET_PREFIX}*/*/*.parquet`;
    this.runDataset = `read_parquet('${parts}', hive_partitioning = true, hive_types_autocast = false)`;
  }

  /** An engine over the data bucket kept in `bucketDirectory`. */
  static async open(bucketDirectory: string): Promise<DuckDbEngine> {
    const instance = await DuckDBInstance.create(':memory:');
    return new DuckDbEngine(await instance.connect(), bucketDirectory);
  }

  async rows(sql: string): Promise<Record<string, EngineValue>[]> {
    const reader = await this.connection.runAndReadAll(sql);
    return reader
      .getRowObjectsJS()
      .map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, scalar(value)])));
  }

  close(): void {
    this.connection.closeSync();
  }
}
