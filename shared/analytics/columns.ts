// The cockpit's compact, columnar view of a space's runs (docs/contract.md §6): the wire format, the per-row
// projection both ends use, and the code tables, in one module the read API and the dashboard share (no runtime
// library; Node and browser). Only the fields the cockpit aggregates, filters or lists travel here. A body is a
// small JSON header (part, `asOf`, dictionaries, each column's array type and decimals), then each column as the
// typed array the cockpit reads in place: a million runs are some 42 MB against 93 MB of JSON, with no parsing.
import { HIDDEN_TEST_STATUSES, JUDGE_STATES, METRICS_SOURCES, OUTCOMES, TIERS, VERDICTS } from '#schema/enums.ts';
import type { HiddenTestResult, JudgeState, RunRow, Verdict } from '#schema/run.ts';
import { EFFORT_FIELDS, snapshotRun, type SnapshotRun } from './run-snapshot.ts';

export const COLUMNS_FORMAT = 'replay-run-columns/8';
export const COLUMNS_MEDIA_TYPE = 'application/vnd.replay.run-columns';
/** The same body gzip-compressed as a representation of its own (the `+gzip` suffix, RFC 8460). */
export const COLUMNS_GZIP_MEDIA_TYPE = `${COLUMNS_MEDIA_TYPE}+gzip`;

export type Tier = NonNullable<RunRow['tier']>;
export type Outcome = RunRow['outcome'];
export type MetricsSource = NonNullable<RunRow['metricsSource']>;
export type HiddenTestStatus = HiddenTestResult['status'];

export { HIDDEN_TEST_STATUSES, JUDGE_STATES, METRICS_SOURCES, OUTCOMES, TIERS, VERDICTS };

/** Enumerated fields travel as small codes: 0 is unknown (null), otherwise the index in the table plus one. */
export const CODE_TABLES = {
  tier: TIERS,
  outcome: OUTCOMES,
  verdict: VERDICTS,
  firstVerdict: VERDICTS,
  judgeState: JUDGE_STATES,
  hiddenTest: HIDDEN_TEST_STATUSES,
  metricsSource: METRICS_SOURCES,
} as const;
export type CodeField = keyof typeof CODE_TABLES;
export const CODE_FIELDS = Object.keys(CODE_TABLES) as CodeField[];

/** Repeated identity strings travel as indexes into a per-response dictionary. */
export const TEXT_FIELDS = ['model', 'taskId', 'harnessVersion', 'host', 'repo'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/**
 * Figures, null when unknown. `finishedAt` and `landedAt` (when the row was first written) are in whole epoch
 * seconds, cut as a clock reads them (12:00:59.6 is 12:00:59, not 12:01); `contamination` counts the entries
 * (the full list's count).
 */
export const NUMBER_FIELDS = [
  'sample',
  'finishedAt',
  ...EFFORT_FIELDS,
  'costUsd',
  'outputTokensPerMinute',
  'patchFilesChanged',
  'patchLinesAdded',
  'patchLinesRemoved',
  'contamination',
  'attemptCount',
  'conflicts',
  'foreign',
  'judgeCostUsd',
  'landedAt',
] as const;
export type NumberField = (typeof NUMBER_FIELDS)[number];

/** One run as the cockpit sees it. */
export type CompactRun = {
  model: string;
  taskId: string;
  harnessVersion: string;
  host: string;
  repo: string | null;
  tier: Tier | null;
  outcome: Outcome;
  verdict: Verdict | null;
  /** The first attempt's verdict (the current one when there was no re-run). */
  firstVerdict: Verdict | null;
  judgeState: JudgeState;
  hiddenTest: HiddenTestStatus | null;
  metricsSource: MetricsSource | null;
} & Record<NumberField, number | null>;

export const compactRun = (row: RunRow): CompactRun => compactOf(snapshotRun(row));

/** The cockpit's fields of the read side's projection (run-snapshot.ts). */
export function compactOf(run: SnapshotRun): CompactRun {
  return {
    model: run.model,
    taskId: run.taskId,
    harnessVersion: run.harnessVersion,
    host: run.host,
    repo: run.repo,
    tier: run.tier,
    outcome: run.outcome,
    verdict: run.judgeVerdict,
    firstVerdict: run.firstVerdict,
    judgeState: run.judgeState,
    hiddenTest: run.hiddenTestStatus,
    metricsSource: run.metricsSource,
    sample: run.sample,
    finishedAt: Math.floor(Date.parse(run.finishedAt) / 1000),
    wave: run.wave,
    wallSeconds: run.wallSeconds,
    steps: run.steps,
    maxSteps: run.maxSteps,
    wallBudgetSeconds: run.wallBudgetSeconds,
    promptTokens: run.promptTokens,
    completionTokens: run.completionTokens,
    costUsd: run.costUsd,
    outputTokensPerMinute: run.outputTokensPerMinute,
    patchFilesChanged: run.patchFilesChanged,
    patchLinesAdded: run.patchLinesAdded,
    patchLinesRemoved: run.patchLinesRemoved,
    contamination: run.contaminationCount,
    attemptCount: run.attemptCount,
    conflicts: run.conflictCount,
    foreign: run.foreignCount,
    judgeCostUsd: run.judgeCostUsd,
    landedAt: Math.floor(Date.parse(run.landedAt) / 1000),
  };
}

/**
 * Which part of a space's columns a body is. A big space's persisted snapshot is served in parts, each
 * within what one answer can carry (docs/contract.md §10): the first answer is part 0 and names the
 * snapshot, whose other parts are asked for by index and that name. Parts apply in the order 1, 2, …, then
 * 0: the first `base` of them hold distinct runs, each later one holds runs that replace, by run id, the
 * same runs in the parts applied before it. Only the first answer's header says so for the whole snapshot;
 * a later part's header describes that part read alone.
 */
export interface ColumnsPart {
  index: number;
  count: number;
  /** The persisted snapshot the parts belong to; null for a body the server encoded whole. */
  snapshot: string | null;
  /** How many parts, in the order they apply, hold distinct runs; the rest supersede runs before them. */
  base: number;
}

export const WHOLE_COLUMNS: ColumnsPart = { index: 0, count: 1, snapshot: null, base: 1 };

/** Indexes and whole numbers, each in the narrowest unsigned array that holds its largest value. */
export type UintColumn = Uint8Array | Uint16Array | Uint32Array;
/**
 * Whole numbers travel as value + 1 in a UintColumn (0 is unknown); so do figures that are all exact at a
 * few decimals, scaled to whole numbers (`decimals`: 3 for milliseconds); any other figures as float64,
 * NaN unknown. A measured time or a cost is mostly such a figure: scaled, the bench's million runs (times
 * and rates at one decimal) are 42 bytes a run instead of 52, and 8 % less gzip to send and inflate.
 */
export type NumberColumn = UintColumn | Float64Array;
/** The most decimals a figure may be scaled by (a millionth of a dollar). */
export const MAX_DECIMALS = 6;

/**
 * What an empty first answer says instead of the runs: the space counts more runs than the cockpit holds in the
 * browser (`cockpit.browserRuns`), so the page asks the read API for its cards and grid pages (docs/contract.md §6).
 */
export interface EngineReading {
  /** The runs of the space's snapshot. */
  runs: number;
  browserRuns: number;
}

/** The body of `GET /api/spaces/{space}/columns`: the runs of the space (or of one part), one array per field. */
export interface RunColumns {
  format: typeof COLUMNS_FORMAT;
  part: ColumnsPart;
  /** Present only on an empty first answer for a space the page reads through the engine. */
  engine?: EngineReading;
  /** Pass as `since` to the row API to get every change after this snapshot (ids repeat: dedupe). */
  asOf: string;
  count: number;
  strings: Record<TextField, string[]>;
  /** Index into `strings[field]` plus one; 0 is unknown. */
  text: Record<TextField, UintColumn>;
  codes: Record<CodeField, Uint8Array>;
  numbers: Record<NumberField, NumberColumn>;
  /** For a figure column that travels scaled, its decimals: a value is (entry - 1) / 10^decimals. Absent: 0. */
  decimals: Partial<Record<NumberField, number>>;
  /** The figures that travel as fractions (float64, or scaled): what a float32 column would not hold. */
  fractional: NumberField[];
}

export const codeOf = <F extends CodeField>(field: F, value: (typeof CODE_TABLES)[F][number] | null): number =>
  value === null ? 0 : (CODE_TABLES[field] as readonly string[]).indexOf(value) + 1;

export const valueOfCode = <F extends CodeField>(field: F, code: number): (typeof CODE_TABLES)[F][number] | null =>
  code === 0 ? null : ((CODE_TABLES[field] as readonly string[])[code - 1] as (typeof CODE_TABLES)[F][number]);

const MAX_UINT32 = 0xffffffff;
const uintColumn = (values: ArrayLike<number>, max: number): UintColumn =>
  max <= 0xff ? Uint8Array.from(values) : max <= 0xffff ? Uint16Array.from(values) : Uint32Array.from(values);

/** The figures as the narrowest column that holds them exactly, and its decimals. */
function numberColumn(values: (number | null)[]): { column: NumberColumn; decimals: number } {
  for (let decimals = 0; decimals <= MAX_DECIMALS; decimals++) {
    const scale = 10 ** decimals;
    let max = 0;
    let exact = true;
    for (const v of values) {
      if (v === null) continue;
      // Scaled back by the reader, the whole number must give this very double.
      const n = Math.round(v * scale);
      if (n < 0 || n + 1 >= MAX_UINT32 || n / scale !== v) {
        exact = false;
        break;
      }
      if (n + 1 > max) max = n + 1;
    }
    if (exact)
      return {
        column: uintColumn(
          values.map((v) => (v === null ? 0 : Math.round(v * scale) + 1)),
          max,
        ),
        decimals,
      };
  }
  return { column: Float64Array.from(values, (x) => x ?? NaN), decimals: 0 };
}

export function encodeColumns(runs: Iterable<CompactRun>, asOf: string, part: ColumnsPart = WHOLE_COLUMNS): RunColumns {
  const dictionaries = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Map<string, number>()])) as Record<
    TextField,
    Map<string, number>
  >;
  const text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, [] as number[]])) as Record<TextField, number[]>;
  const codes = Object.fromEntries(CODE_FIELDS.map((f) => [f, [] as number[]])) as Record<CodeField, number[]>;
  const numbers = Object.fromEntries(NUMBER_FIELDS.map((f) => [f, [] as (number | null)[]])) as Record<
    NumberField,
    (number | null)[]
  >;
  let count = 0;
  for (const run of runs) {
    count++;
    for (const f of TEXT_FIELDS) {
      const value = run[f];
      if (value === null) {
        text[f].push(0);
        continue;
      }
      const dictionary = dictionaries[f];
      let index = dictionary.get(value);
      if (index === undefined) dictionary.set(value, (index = dictionary.size));
      text[f].push(index + 1);
    }
    for (const f of CODE_FIELDS) codes[f].push(codeOf(f, run[f] as never));
    for (const f of NUMBER_FIELDS) numbers[f].push(run[f]);
  }
  const figures = Object.fromEntries(NUMBER_FIELDS.map((f) => [f, numberColumn(numbers[f])])) as Record<
    NumberField,
    ReturnType<typeof numberColumn>
  >;
  return {
    format: COLUMNS_FORMAT,
    part,
    asOf,
    count,
    strings: Object.fromEntries(TEXT_FIELDS.map((f) => [f, [...dictionaries[f].keys()]])) as RunColumns['strings'],
    text: Object.fromEntries(
      TEXT_FIELDS.map((f) => [f, uintColumn(text[f], dictionaries[f].size)]),
    ) as RunColumns['text'],
    codes: Object.fromEntries(CODE_FIELDS.map((f) => [f, Uint8Array.from(codes[f])])) as RunColumns['codes'],
    numbers: Object.fromEntries(NUMBER_FIELDS.map((f) => [f, figures[f].column])) as RunColumns['numbers'],
    decimals: Object.fromEntries(
      NUMBER_FIELDS.filter((f) => figures[f].decimals > 0).map((f) => [f, figures[f].decimals]),
    ),
    fractional: NUMBER_FIELDS.filter((f) => figures[f].column instanceof Float64Array || figures[f].decimals > 0),
  };
}

const ARRAY_TYPES = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array } as const;
type ArrayType = keyof typeof ARRAY_TYPES;
const typeOf = (column: NumberColumn): ArrayType =>
  column instanceof Float64Array
    ? 'f64'
    : column instanceof Uint32Array
      ? 'u32'
      : column instanceof Uint16Array
        ? 'u16'
        : 'u8';
const align8 = (n: number) => (n + 7) & ~7;

interface WireHeader {
  format: string;
  part: ColumnsPart;
  engine?: EngineReading;
  asOf: string;
  count: number;
  strings: RunColumns['strings'];
  /** Each column's array type: text fields, code fields, then number fields, in the order this module lists them. */
  types: ArrayType[];
  /** Each column's decimals, in the same order: 0 but for a scaled figure column. */
  decimals: number[];
}

/** Which record of RunColumns a column belongs to. */
export type ColumnKind = 'text' | 'codes' | 'numbers';
type ColumnField = TextField | CodeField | NumberField;

/** Every column of a body, in wire order, with the array types it may travel as: text indexes are unsigned, codes bytes, figures may also be f64. */
const WIRE_COLUMNS: readonly { kind: ColumnKind; field: ColumnField; allowed: readonly ArrayType[] }[] = [
  ...TEXT_FIELDS.map((field) => ({ kind: 'text' as const, field, allowed: ['u8', 'u16', 'u32'] as const })),
  ...CODE_FIELDS.map((field) => ({ kind: 'codes' as const, field, allowed: ['u8'] as const })),
  ...NUMBER_FIELDS.map((field) => ({ kind: 'numbers' as const, field, allowed: ['u8', 'u16', 'u32', 'f64'] as const })),
];

const columnsInOrder = (c: RunColumns): NumberColumn[] =>
  WIRE_COLUMNS.map(({ kind, field }) => (c[kind] as Record<ColumnField, NumberColumn>)[field]);

// Typed arrays are read and written in the platform's byte order; the format is little-endian, which is
// every platform the cockpit and the functions run on.
if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1)
  throw new Error('The columns format is little-endian; this platform is not.');

/** The wire body: u32 header length, the header as JSON, then each column at an 8-byte boundary. */
export function columnsToBytes(c: RunColumns): Uint8Array {
  const columns = columnsInOrder(c);
  const decimals = WIRE_COLUMNS.map(({ kind, field }) =>
    kind === 'numbers' ? (c.decimals[field as NumberField] ?? 0) : 0,
  );
  const header: WireHeader = {
    format: c.format,
    part: c.part,
    ...(c.engine && { engine: c.engine }),
    asOf: c.asOf,
    count: c.count,
    strings: c.strings,
    types: columns.map(typeOf),
    decimals,
  };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const offsets: number[] = [];
  let end = align8(4 + head.length);
  for (const column of columns) {
    offsets.push(end);
    end = align8(end + column.byteLength);
  }
  const out = new Uint8Array(end);
  new DataView(out.buffer).setUint32(0, head.length, true);
  out.set(head, 4);
  columns.forEach((column, k) =>
    out.set(new Uint8Array(column.buffer, column.byteOffset, column.byteLength), offsets[k]),
  );
  return out;
}

export class ColumnsFormatError extends Error {}

/** What a body's header says: its part, `asOf`, run count, dictionaries, and which figures travel as fractions. */
export type ColumnsHeader = Pick<RunColumns, 'part' | 'engine' | 'asOf' | 'count' | 'strings' | 'fractional'>;

/** Where one column lies in a body, in bytes from its start. */
export interface ColumnPlace {
  kind: ColumnKind;
  field: ColumnField;
  Type: (typeof ARRAY_TYPES)[ArrayType];
  /** A scaled figure column's decimals; 0 otherwise. */
  decimals: number;
  start: number;
  end: number;
}

/** Where a body's values go, whole columns or pieces of them: `from` is the row, within the body, of `values[0]`. */
export interface ColumnsSink {
  column(kind: ColumnKind, field: ColumnField, from: number, values: NumberColumn, decimals: number): void;
}

/** How many bytes the header takes, its length included, or null while `bytes` holds less than that length's four. */
export const headerBytes = (bytes: Uint8Array): number | null =>
  bytes.byteLength < 4 ? null : 4 + new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);

/** The header and where each column lies, once `bytes` holds all of the header; null until then. */
export function readHeader(bytes: Uint8Array): { header: ColumnsHeader; columns: ColumnPlace[] } | null {
  const headEnd = headerBytes(bytes);
  if (headEnd === null || bytes.byteLength < headEnd) return null;
  let header: WireHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, headEnd))) as WireHeader;
  } catch {
    throw new ColumnsFormatError('The columns body does not start with its header.');
  }
  if (header.format !== COLUMNS_FORMAT)
    throw new ColumnsFormatError(
      `The columns body is in format ${String(header.format)}; this cockpit reads ${COLUMNS_FORMAT}.`,
    );
  const fits =
    Number.isInteger(header.count) &&
    header.count >= 0 &&
    Array.isArray(header.types) &&
    header.types.length === WIRE_COLUMNS.length &&
    header.types.every((type, k) => WIRE_COLUMNS[k]!.allowed.includes(type)) &&
    Array.isArray(header.decimals) &&
    header.decimals.length === WIRE_COLUMNS.length &&
    header.decimals.every(
      (d, k) =>
        d === 0 ||
        (Number.isInteger(d) &&
          d > 0 &&
          d <= MAX_DECIMALS &&
          WIRE_COLUMNS[k]!.kind === 'numbers' &&
          header.types[k] !== 'f64'),
    );
  if (!fits) throw new ColumnsFormatError('The columns body does not have one column of the right type per field.');
  const engine = header.engine;
  if (
    engine !== undefined &&
    !(header.count === 0 && Number.isInteger(engine.runs) && Number.isInteger(engine.browserRuns))
  )
    throw new ColumnsFormatError('The columns body names the engine but is not an empty body counting the runs.');
  let offset = align8(headEnd);
  const columns = header.types.map((type, k): ColumnPlace => {
    const Type = ARRAY_TYPES[type];
    const start = offset;
    const end = start + header.count * Type.BYTES_PER_ELEMENT;
    offset = align8(end);
    return {
      kind: WIRE_COLUMNS[k]!.kind,
      field: WIRE_COLUMNS[k]!.field,
      Type,
      decimals: header.decimals[k]!,
      start,
      end,
    };
  });
  const fractional = columns
    .filter((c) => c.kind === 'numbers' && (c.Type === Float64Array || c.decimals > 0))
    .map((c) => c.field as NumberField);
  return {
    header: {
      part: header.part,
      ...(engine && { engine }),
      asOf: header.asOf,
      count: header.count,
      strings: header.strings,
      fractional,
    },
    columns,
  };
}

/** A wire body back as columns: the arrays are views of the body's bytes, not copies. */
export function columnsFromBytes(body: Uint8Array): RunColumns {
  // A typed array view must start at a multiple of its element size: copy a body that does not start at 8.
  const bytes = body.byteOffset % 8 === 0 ? body : new Uint8Array(body);
  const read = readHeader(bytes);
  if (!read) throw new ColumnsFormatError('The columns body is shorter than its header.');
  const columns: RunColumns = {
    format: COLUMNS_FORMAT,
    ...read.header,
    text: {},
    codes: {},
    numbers: {},
    decimals: {},
  } as RunColumns;
  for (const { kind, field, Type, decimals, start, end } of read.columns) {
    if (end > bytes.byteLength) throw new ColumnsFormatError('The columns body ends before its last column.');
    const column = new Type(
      bytes.buffer as ArrayBuffer,
      bytes.byteOffset + start,
      (end - start) / Type.BYTES_PER_ELEMENT,
    );
    (columns[kind] as Record<ColumnField, NumberColumn>)[field] = column;
    if (decimals > 0) columns.decimals[field as NumberField] = decimals;
  }
  return columns;
}
