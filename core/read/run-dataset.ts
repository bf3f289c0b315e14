// The runs as a Parquet dataset in the data bucket (docs/contract.md §6 "Reading at scale"): one part per change
// set, under `runs-parquet/space=<space>/day=<yyyy-mm-dd>/<part>.parquet` (Hive partitions, so DuckDB and a Glue
// table read the same keys), written from the rows that changed and never from the whole table. A later part
// holding a run supersedes an earlier one (a judged run is written again): the engine's queries keep each run
// as the part last written has it, by the part's `writtenAt`.
import { parquetWriteBuffer } from 'hyparquet-writer';
import {
  SNAPSHOT_FLAG_FIELDS,
  SNAPSHOT_NUMBER_FIELDS,
  SNAPSHOT_TEXT_FIELDS,
  type SnapshotRun,
} from '#analytics/run-snapshot.ts';
import { runDatasetSpacePrefix } from '../storage-layout.ts';

export const RUN_PART_CONTENT_TYPE = 'application/vnd.apache.parquet';

/**
 * Every field of the read side's projection (run-snapshot.ts), typed: text as strings, figures as doubles, the
 * rubric answers as booleans, each nullable; then `writtenAt` (the part's time, UTC milliseconds). Parts written
 * before a column existed lack it: the engines read the dataset by column name (DuckDB's `union_by_name`, a
 * Glue table's Parquet reader), so it reads as null there.
 */
export const RUN_DATASET_COLUMNS = [
  ...SNAPSHOT_TEXT_FIELDS.map((name) => ({ name, type: 'STRING' as const })),
  ...SNAPSHOT_NUMBER_FIELDS.map((name) => ({ name, type: 'DOUBLE' as const })),
  ...SNAPSHOT_FLAG_FIELDS.map((name) => ({ name, type: 'BOOLEAN' as const })),
];

/** A column of the dataset as a table declares it (Glue's Hive types): names lower-case, as Glue keeps them. */
export interface RunDatasetTableColumn {
  name: string;
  type: 'string' | 'double' | 'boolean' | 'timestamp';
}

const TABLE_TYPES = { STRING: 'string', DOUBLE: 'double', BOOLEAN: 'boolean' } as const;

/**
 * The dataset as one table (the Glue table in AWS; the Athena stand-in's view): every column of a part, then
 * the Hive partitions of its key. An engine resolves the queries' camelCase names case-insensitively.
 */
export const RUN_DATASET_TABLE: { columns: RunDatasetTableColumn[]; partitions: RunDatasetTableColumn[] } = {
  columns: [
    ...RUN_DATASET_COLUMNS.map(({ name, type }) => ({ name: name.toLowerCase(), type: TABLE_TYPES[type] })),
    { name: 'writtenat', type: 'timestamp' },
  ],
  partitions: [
    { name: 'space', type: 'string' },
    { name: 'day', type: 'string' },
  ],
};

/** The part's key; the day is the UTC day the part was written, so a day's parts sit together. */
export function runPartKey(space: string, writtenAt: Date, part: string): string {
  const day = writtenAt.toISOString().slice(0, 10);
  return `${runDatasetSpacePrefix(space)}day=${day}/${part}.parquet`;
}

/** One change set, written at `writtenAt`, as a Parquet part. */
export function runPart(runs: readonly SnapshotRun[], writtenAt: Date): Uint8Array {
  const columnData = [
    ...RUN_DATASET_COLUMNS.map(({ name, type }) => ({
      name,
      type,
      nullable: true,
      data: runs.map((run) => run[name]),
    })),
    { name: 'writtenAt', type: 'TIMESTAMP' as const, nullable: false, data: runs.map(() => writtenAt) },
  ];
  return new Uint8Array(parquetWriteBuffer({ columnData, createdBy: 'replay-bench' }));
}
