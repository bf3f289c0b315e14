// The persisted snapshot (docs/contract.md §6): every run of a space in the read side's projection
// (shared/analytics/run-snapshot.ts), one array per field, strings as indexes into a per-field dictionary (most
// fields repeat a handful of values across 100k runs), gzip around it. Decoding checks every column, so a
// truncated or foreign document is refused (and the caller rebuilds from the table) rather than read as wrong runs.
import {
  SNAPSHOT_FLAG_FIELDS,
  SNAPSHOT_NUMBER_FIELDS,
  SNAPSHOT_TEXT_FIELDS,
  type SnapshotRun,
} from '#analytics/run-snapshot.ts';

export const SNAPSHOT_FORMAT = 'replay-run-snapshot/5';

/** The persisted body: every run of a space as of `asOf`, one array per field. */
export interface SnapshotDocument {
  format: typeof SNAPSHOT_FORMAT;
  space: string;
  /** Every row updated before this instant is in the document; the table's `since` query covers the rest. */
  asOf: string;
  count: number;
  text: Record<(typeof SNAPSHOT_TEXT_FIELDS)[number], { strings: string[]; index: number[] }>;
  numbers: Record<(typeof SNAPSHOT_NUMBER_FIELDS)[number], (number | null)[]>;
  flags: Record<(typeof SNAPSHOT_FLAG_FIELDS)[number], (0 | 1 | null)[]>;
}

export function encodeSnapshot(space: string, asOf: string, runs: Iterable<SnapshotRun>): SnapshotDocument {
  const dictionaries = SNAPSHOT_TEXT_FIELDS.map(() => new Map<string, number>());
  const indexes = SNAPSHOT_TEXT_FIELDS.map(() => [] as number[]);
  const numbers = SNAPSHOT_NUMBER_FIELDS.map(() => [] as (number | null)[]);
  const flags = SNAPSHOT_FLAG_FIELDS.map(() => [] as (0 | 1 | null)[]);
  let count = 0;
  for (const run of runs) {
    count++;
    SNAPSHOT_TEXT_FIELDS.forEach((field, f) => {
      const value = run[field];
      if (value === null) return indexes[f]!.push(-1);
      const dictionary = dictionaries[f]!;
      let index = dictionary.get(value);
      if (index === undefined) dictionary.set(value, (index = dictionary.size));
      indexes[f]!.push(index);
    });
    SNAPSHOT_NUMBER_FIELDS.forEach((field, f) => numbers[f]!.push(run[field]));
    SNAPSHOT_FLAG_FIELDS.forEach((field, f) => flags[f]!.push(run[field] === null ? null : run[field] ? 1 : 0));
  }
  return {
    format: SNAPSHOT_FORMAT,
    space,
    asOf,
    count,
    text: Object.fromEntries(
      SNAPSHOT_TEXT_FIELDS.map((field, f) => [field, { strings: [...dictionaries[f]!.keys()], index: indexes[f]! }]),
    ) as SnapshotDocument['text'],
    numbers: Object.fromEntries(
      SNAPSHOT_NUMBER_FIELDS.map((field, f) => [field, numbers[f]!]),
    ) as SnapshotDocument['numbers'],
    flags: Object.fromEntries(SNAPSHOT_FLAG_FIELDS.map((field, f) => [field, flags[f]!])) as SnapshotDocument['flags'],
  };
}

export class CorruptSnapshotError extends Error {}

/** The runs of a document, keyed by id. Throws CorruptSnapshotError for anything but a well-formed document of `space`. */
export function decodeSnapshot(document: unknown, space: string): { asOf: string; runs: Map<string, SnapshotRun> } {
  const doc = document as Partial<SnapshotDocument> | null;
  const fail = (why: string): never => {
    throw new CorruptSnapshotError(`The persisted snapshot of space "${space}" is not usable: ${why}.`);
  };
  if (!doc || typeof doc !== 'object' || doc.format !== SNAPSHOT_FORMAT) fail(`its format is not ${SNAPSHOT_FORMAT}`);
  if (doc!.space !== space) fail('it belongs to another space');
  if (typeof doc!.asOf !== 'string' || Number.isNaN(Date.parse(doc!.asOf))) fail('it has no asOf instant');
  const count = doc!.count;
  if (!Number.isInteger(count) || count! < 0) fail('it has no run count');
  const text = SNAPSHOT_TEXT_FIELDS.map((field) => {
    const column = doc!.text?.[field];
    if (!column || !Array.isArray(column.strings) || !Array.isArray(column.index) || column.index.length !== count)
      fail(`column ${field} is missing or of the wrong length`);
    const { strings, index } = column!;
    for (const i of index)
      if (!(i === -1 || (Number.isInteger(i) && i >= 0 && i < strings.length)))
        fail(`column ${field} points outside its dictionary`);
    return column!;
  });
  const numbers = SNAPSHOT_NUMBER_FIELDS.map((field) => {
    const column = doc!.numbers?.[field];
    if (!Array.isArray(column) || column.length !== count) fail(`column ${field} is missing or of the wrong length`);
    for (const v of column!) if (v !== null && typeof v !== 'number') fail(`column ${field} holds a non-number`);
    return column!;
  });
  const flags = SNAPSHOT_FLAG_FIELDS.map((field) => {
    const column = doc!.flags?.[field];
    if (!Array.isArray(column) || column.length !== count) fail(`column ${field} is missing or of the wrong length`);
    for (const v of column!)
      if (v !== null && v !== 0 && v !== 1) fail(`column ${field} holds something but 1, 0 or null`);
    return column!;
  });
  const runs = new Map<string, SnapshotRun>();
  for (let i = 0; i < count!; i++) {
    const run = {} as Record<string, string | number | boolean | null>;
    SNAPSHOT_TEXT_FIELDS.forEach((field, f) => {
      const k = text[f]!.index[i]!;
      run[field] = k < 0 ? null : text[f]!.strings[k]!;
    });
    SNAPSHOT_NUMBER_FIELDS.forEach((field, f) => (run[field] = numbers[f]![i]!));
    SNAPSHOT_FLAG_FIELDS.forEach((field, f) => (run[field] = flags[f]![i] === null ? null : flags[f]![i] === 1));
    if (
      typeof run.id !== 'string' ||
      typeof run.model !== 'string' ||
      typeof run.taskId !== 'string' ||
      typeof run.harnessVersion !== 'string'
    )
      fail(`run ${i} has no identity`);
    runs.set(run.id as string, run as unknown as SnapshotRun);
  }
  return { asOf: doc!.asOf!, runs };
}
