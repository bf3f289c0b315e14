// The runs as a Parquet dataset in the data bucket (docs/contract.md §6 "Reading at scale"): parts under
// `runs-parquet/space=<space>/day=<yyyy-mm-dd>/<part>.parquet` (Hive partitions, so DuckDB and a Glue table read
// the same keys), written from the rows that changed and never from the whole table held at once. Each row says
// which kind of part holds it (`partKind`): a daily rebuild writes every run once, in parts all stamped with the
// rebuild's start (`writtenAt`), then a one-row seal saying that rebuild is complete; a compaction between
// rebuilds writes a delta part of the runs that changed. A later part holding a run supersedes an earlier one:
// the engine's queries (engine-queries.ts latestRunsSql) keep each run as the part last written has it, reading
// the newest sealed rebuild whole and working out the latest copy only among the few delta rows written after
// it; a rebuild not yet sealed is read by none. Parts written before that sealed rebuild are superseded: the
// compactor deletes them (deleteSupersededRunParts).
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
 * What a row of the dataset is: a run in a rebuild's part (every run of the space, as of the rebuild), a run in
 * a delta part (changed since the last compaction), or the seal a rebuild writes last (no run: `id` is null),
 * which says that every run of the rebuild stamped with the same `writtenAt` is written. Parts written before
 * the column existed read it as null: their rows count as delta rows, the latest copy worked out among them.
 */
export type RunPartKind = 'rebuild' | 'delta' | 'sealed';

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

/** Every column of a part as the queries name them: the run's fields, its part's time and kind. */
export const RUN_PART_FIELDS = [...RUN_DATASET_COLUMNS.map(({ name }) => name), 'writtenAt', 'partKind'];

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
    { name: 'partkind', type: 'string' },
  ],
  partitions: [
    { name: 'space', type: 'string' },
    { name: 'day', type: 'string' },
  ],
};

/**
 * The part's key; the day is the UTC day the part was written, so a day's parts sit together, and its name
 * starts with its time in milliseconds and its kind, so the compactor finds a seal and its rebuild's time from a
 * listing alone.
 */
export function runPartKey(space: string, writtenAt: Date, kind: RunPartKind, part: string): string {
  const day = writtenAt.toISOString().slice(0, 10);
  const at = String(writtenAt.getTime()).padStart(13, '0');
  return `${runDatasetSpacePrefix(space)}day=${day}/${at}-${kind}-${part}.parquet`;
}

/** The time and kind a part's key names, or null for a key that names neither (a part written before they were named). */
export function runPartOf(key: string): { writtenAt: Date; kind: RunPartKind } | null {
  const match = /\/(\d{13})-(rebuild|delta|sealed)-[^/]*\.parquet$/.exec(key);
  return match ? { writtenAt: new Date(Number(match[1])), kind: match[2] as RunPartKind } : null;
}

/** Runs written at `writtenAt` as a Parquet part of `kind` (a rebuild's or a delta). */
export function runPart(runs: readonly SnapshotRun[], writtenAt: Date, kind: 'rebuild' | 'delta'): Uint8Array {
  return partOf(
    RUN_DATASET_COLUMNS.map(({ name }) => runs.map((run) => run[name])),
    runs.length,
    writtenAt,
    kind,
  );
}

/** The seal of the rebuild stamped `writtenAt`: one row, no run, written once all its parts are. */
export function sealPart(writtenAt: Date): Uint8Array {
  return partOf(
    RUN_DATASET_COLUMNS.map(() => [null]),
    1,
    writtenAt,
    'sealed',
  );
}

function partOf(values: unknown[][], rows: number, writtenAt: Date, kind: RunPartKind): Uint8Array {
  const columnData = [
    ...RUN_DATASET_COLUMNS.map(({ name, type }, k) => ({ name, type, nullable: true, data: values[k]! })),
    {
      name: 'writtenAt',
      type: 'TIMESTAMP' as const,
      nullable: false,
      data: Array.from({ length: rows }, () => writtenAt),
    },
    { name: 'partKind', type: 'STRING' as const, nullable: false, data: Array.from({ length: rows }, () => kind) },
  ];
  return new Uint8Array(parquetWriteBuffer({ columnData, createdBy: 'replay-bench' }));
}
