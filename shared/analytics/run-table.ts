// The cockpit's in-memory copy of a space's runs: one typed array per field, so filtering and aggregating 100k
// runs is a few linear passes with no object per row; unknown figures are NaN, never zero; a delta that repeats
// a row replaces it. A row is found by id without building every id: the id's sample and harness suffixes and
// its model prefix narrow it to one task, whose rows are chained in two integer arrays; repeated samples of a
// (model, task, harness) are rows of their own. A figure column stays float32 while every
// value fits exactly (whole numbers to 2^24) and becomes float64 when one does not: the table is the page's
// largest memory. Either way a figure reads back as written.
import { runId } from '#schema/run-id.ts';
import {
  CODE_FIELDS,
  NUMBER_FIELDS,
  TEXT_FIELDS,
  codeOf,
  valueOfCode,
  type CodeField,
  type ColumnsHeader,
  type ColumnsSink,
  type CompactRun,
  type NumberColumn,
  type NumberField,
  type RunColumns,
  type TextField,
} from './columns.ts';

/** A growing list of distinct strings; a row stores the index. */
export class Dictionary {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(initial: readonly string[] = []) {
    for (const v of initial) this.add(v);
  }

  add(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.index.set(value, i);
    }
    return i;
  }

  indexOf(value: string): number {
    return this.index.get(value) ?? -1;
  }
}

/** A figure column (see above): float32 while exact, float64 once it needs to be. */
export type FigureColumn = Float32Array | Float64Array;

/** The largest whole number float32 holds exactly, with every smaller one. */
const FLOAT32_EXACT = 2 ** 24;
const heldByFloat32 = (v: number) => Math.fround(v) === v || Number.isNaN(v);

export class RunTable {
  size = 0;
  /** Bumped on every change, so views can tell whether to recompute. */
  revision = 0;
  readonly dictionaries = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Dictionary()])) as Record<
    TextField,
    Dictionary
  >;
  text: Record<TextField, Int32Array>;
  codes: Record<CodeField, Uint8Array>;
  numbers: Record<NumberField, FigureColumn>;
  /** The rows of each task: `head[task]` is one of them, `next[row]` the following one, -1 ends a chain. Built on first lookup. */
  private chains: { head: Int32Array; next: Int32Array } | null = null;
  /** Model dictionary indexes by the model as it begins a run id (see modelsByIdPrefix). */
  private readonly idPrefixes = new Map<string, number[]>();
  /** How many models of the dictionary `idPrefixes` holds: the dictionary only grows. */
  private modelsIndexed = 0;

  constructor(capacity = 1024) {
    this.text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Int32Array(capacity)])) as Record<
      TextField,
      Int32Array
    >;
    this.codes = Object.fromEntries(CODE_FIELDS.map((f) => [f, new Uint8Array(capacity)])) as Record<
      CodeField,
      Uint8Array
    >;
    this.numbers = Object.fromEntries(NUMBER_FIELDS.map((f) => [f, new Float32Array(capacity)])) as Record<
      NumberField,
      FigureColumn
    >;
  }

  /** An empty table with room for `runs` and for the runs that land while the page is open, so the first of them does not double every column. */
  static withRoomFor(runs: number): RunTable {
    return new RunTable(Math.max(1024, Math.ceil(runs * 1.125)));
  }

  /**
   * The table of the parts of one snapshot (or one whole body), in the order they apply: the first `base`
   * are appended, each later one replaces the runs it holds (columns.ts, ColumnsPart).
   */
  static fromColumns(parts: readonly RunColumns[], base = parts.length): RunTable {
    const table = RunTable.withRoomFor(parts.slice(0, base).reduce((n, part) => n + part.count, 0));
    for (const [k, columns] of parts.entries()) {
      if (k < base) table.appendColumns(columns);
      else table.upsertAll(RunTable.fromColumns([columns]));
    }
    return table;
  }

  /** Adds or replaces, by run id, every run of `other` (a part that supersedes runs of this table). */
  upsertAll(other: RunTable): void {
    for (let i = 0; i < other.size; i++) this.upsert(other.compactAt(i));
  }

  /** Row i as a run. */
  compactAt(i: number): CompactRun {
    const run = {} as Record<string, unknown>;
    for (const f of TEXT_FIELDS) run[f] = this.string(f, i);
    for (const f of CODE_FIELDS) run[f] = valueOfCode(f, this.codes[f][i]!);
    for (const f of NUMBER_FIELDS) run[f] = this.number(f, i);
    return run as CompactRun;
  }

  /** Adds the runs of one columns body, which brings its own dictionaries; the table grows to hold them. */
  appendColumns(columns: RunColumns): void {
    const rows = this.reserve(columns);
    for (const f of TEXT_FIELDS) rows.column('text', f, 0, columns.text[f], 0);
    for (const f of CODE_FIELDS) rows.column('codes', f, 0, columns.codes[f], 0);
    for (const f of NUMBER_FIELDS) rows.column('numbers', f, 0, columns.numbers[f], columns.decimals[f] ?? 0);
  }

  /**
   * Adds the runs of a body whose header has arrived; its columns are written, in any pieces, through the
   * rows returned (columns-reader.ts streams them in). The rows read unknown until written. The figures
   * the header says travel as fractions are made float64 first, rather than filled as float32 and copied.
   */
  reserve(header: ColumnsHeader): ColumnsSink {
    const offset = this.size;
    const end = offset + header.count;
    if (end > this.text.model.length) this.growTo(Math.max(end, this.text.model.length * 2));
    for (const f of header.fractional) this.widen(f);
    this.size = end;
    for (const f of TEXT_FIELDS) this.text[f].fill(-1, offset, end);
    for (const f of NUMBER_FIELDS) this.numbers[f].fill(NaN, offset, end);
    // The task chains are rebuilt from every row on the next lookup.
    this.chains = null;
    this.revision++;
    // The body's dictionary indexes (plus one, 0 unknown) become the table's, -1 unknown.
    const toTable = Object.fromEntries(
      TEXT_FIELDS.map((f) => [f, Int32Array.from([-1, ...header.strings[f].map((s) => this.dictionaries[f].add(s))])]),
    ) as Record<TextField, Int32Array>;
    // Each piece is copied (and widened) natively first, then mapped in place: a loop reading the body's
    // arrays directly would see a different array type per field and run several times slower.
    return {
      column: (kind, field, from, values, decimals) => {
        if (kind === 'text') this.writeText(field as TextField, toTable, offset + from, values);
        else if (kind === 'codes') this.codes[field as CodeField].set(values, offset + from);
        else this.writeNumbers(field as NumberField, offset + from, values, decimals);
      },
    };
  }

  private writeText(field: TextField, toTable: Record<TextField, Int32Array>, start: number, values: NumberColumn) {
    const map = toTable[field];
    const target = this.text[field];
    target.set(values, start);
    for (let i = start, end = start + values.length; i < end; i++) target[i] = map[target[i]!]!;
  }

  private writeNumbers(field: NumberField, start: number, values: NumberColumn, decimals: number) {
    // Fractions were made room for by reserve; whole numbers beyond float32 travel as uint32, as value + 1,
    // which is what lands in the column before it is mapped, so that must be exact too.
    if (values instanceof Uint32Array && maxOf(values) > FLOAT32_EXACT) this.widen(field);
    const target = this.numbers[field];
    target.set(values, start);
    if (values instanceof Float64Array) return;
    // Unscaled figures divide by 1, which leaves every double as it is.
    const scale = 10 ** decimals;
    for (let i = start, end = start + values.length; i < end; i++) {
      const v = target[i]!;
      target[i] = v === 0 ? NaN : (v - 1) / scale;
    }
  }

  static fromRuns(runs: Iterable<CompactRun>): RunTable {
    const table = new RunTable();
    for (const run of runs) table.upsert(run);
    return table;
  }

  string(field: TextField, i: number): string | null {
    const index = this.text[field][i]!;
    return index < 0 ? null : this.dictionaries[field].values[index]!;
  }

  number(field: NumberField, i: number): number | null {
    const v = this.numbers[field][i]!;
    return Number.isNaN(v) ? null : v;
  }

  id(i: number): string {
    return runId({
      model: this.string('model', i)!,
      taskId: this.string('taskId', i)!,
      harnessVersion: this.string('harnessVersion', i)!,
      sample: this.sampleAt(i),
    });
  }

  /** The row's sample number: 1 where the row does not say (rows from before samples). */
  sampleAt(i: number): number {
    const v = this.numbers.sample[i]!;
    return Number.isNaN(v) ? 1 : v;
  }

  indexOfId(id: string): number {
    // Sample 1 has no suffix; `__s{k}` may also be a harness version, so both readings are tried.
    const suffixed = /__s([1-9][0-9]*)$/.exec(id);
    if (suffixed && Number(suffixed[1]) > 1) {
      const row = this.indexOfSample(id.slice(0, suffixed.index), Number(suffixed[1]));
      if (row >= 0) return row;
    }
    return this.indexOfSample(id, 1);
  }

  /** The row of sample `sample` whose id without its sample suffix is `id`. */
  private indexOfSample(id: string, sample: number): number {
    const { taskId, harnessVersion } = this.dictionaries;
    const modelsByPrefix = this.modelsByIdPrefix();
    for (let h = 0; h < harnessVersion.values.length; h++) {
      const suffix = `__${harnessVersion.values[h]!}`;
      if (!id.endsWith(suffix)) continue;
      const end = id.length - suffix.length;
      // Each `__` before the suffix may end the model's part; what lies between names the task.
      for (let at = id.indexOf('__'); at >= 0 && at + 2 < end; at = id.indexOf('__', at + 1)) {
        const models = modelsByPrefix.get(id.slice(0, at));
        const t = models ? taskId.indexOf(id.slice(at + 2, end)) : -1;
        if (t < 0) continue;
        for (const m of models!) {
          const row = this.rowOf(t, m, h, sample);
          if (row >= 0) return row;
        }
      }
    }
    return -1;
  }

  /** The model dictionary indexes by the model as it begins a run id (`runId` makes `:` and `/` `_`, so several may share one). */
  private modelsByIdPrefix(): Map<string, number[]> {
    const models = this.dictionaries.model.values;
    for (; this.modelsIndexed < models.length; this.modelsIndexed++) {
      const prefix = runId({ model: models[this.modelsIndexed]!, taskId: '', harnessVersion: '' }).slice(0, -4);
      const same = this.idPrefixes.get(prefix);
      if (same) same.push(this.modelsIndexed);
      else this.idPrefixes.set(prefix, [this.modelsIndexed]);
    }
    return this.idPrefixes;
  }

  /**
   * Adds the run, or replaces the stored run with the same id. Returns its row index, and whether
   * anything changed: a delta repeats rows it already sent, and an unchanged row must not cause a redraw.
   */
  upsert(run: CompactRun): { index: number; changed: boolean } {
    // Chained before the row count changes, so a new row is chained once, below.
    this.chainsOf();
    const found = this.indexOfId(runId(run));
    let changed = found < 0;
    const i = found < 0 ? this.size++ : found;
    if (found < 0 && i >= this.text.model.length) this.growTo(this.text.model.length * 2);
    else if (found >= 0) this.unchain(i);
    for (const f of TEXT_FIELDS) {
      const value = run[f];
      const index = value === null ? -1 : this.dictionaries[f].add(value);
      changed ||= this.text[f][i] !== index;
      this.text[f][i] = index;
    }
    for (const f of CODE_FIELDS) {
      const code = codeOf(f, run[f] as never);
      changed ||= this.codes[f][i] !== code;
      this.codes[f][i] = code;
    }
    for (const f of NUMBER_FIELDS) {
      const value = run[f] ?? NaN;
      if (!heldByFloat32(value)) this.widen(f);
      changed ||= !Object.is(this.numbers[f][i], value);
      this.numbers[f][i] = value;
    }
    this.chain(i);
    if (changed) this.revision++;
    return { index: i, changed };
  }

  /** The rows of row i's model, task and harness version (its samples, i among them), by sample number. */
  samplesOf(i: number): number[] {
    const { head, next } = this.chainsOf();
    const [task, model, harness] = [this.text.taskId[i]!, this.text.model[i]!, this.text.harnessVersion[i]!];
    const rows: number[] = [];
    for (let row = task >= 0 && task < head.length ? head[task]! : -1; row >= 0; row = next[row]!)
      if (this.text.model[row] === model && this.text.harnessVersion[row] === harness) rows.push(row);
    return rows.sort((a, b) => this.sampleAt(a) - this.sampleAt(b));
  }

  private rowOf(task: number, model: number, harness: number, sample: number): number {
    const { head, next } = this.chainsOf();
    for (let row = task < head.length ? head[task]! : -1; row >= 0; row = next[row]!) {
      if (this.text.model[row] === model && this.text.harnessVersion[row] === harness && this.sampleAt(row) === sample)
        return row;
    }
    return -1;
  }

  private chainsOf(): { head: Int32Array; next: Int32Array } {
    if (!this.chains) {
      const head = new Int32Array(this.dictionaries.taskId.values.length).fill(-1);
      const next = new Int32Array(this.text.model.length);
      const task = this.text.taskId;
      for (let i = this.size - 1; i >= 0; i--) {
        const t = task[i]!;
        next[i] = t < 0 ? -1 : head[t]!;
        if (t >= 0) head[t] = i;
      }
      this.chains = { head, next };
    }
    return this.chains;
  }

  private chain(i: number) {
    const chains = this.chainsOf();
    const task = this.text.taskId[i]!;
    if (task >= chains.head.length) {
      const head = new Int32Array(Math.max(task + 1, chains.head.length * 2)).fill(-1);
      head.set(chains.head);
      chains.head = head;
    }
    if (chains.next.length < this.text.model.length) chains.next = grownTo(chains.next, this.text.model.length);
    chains.next[i] = chains.head[task]!;
    chains.head[task] = i;
  }

  private unchain(i: number) {
    const { head, next } = this.chainsOf();
    const task = this.text.taskId[i]!;
    if (head[task] === i) head[task] = next[i]!;
    else for (let row = head[task]!; row >= 0; row = next[row]!) if (next[row] === i) next[row] = next[i]!;
  }

  /** Makes the field's column float64, its rows as they were. */
  private widen(field: NumberField) {
    const column = this.numbers[field];
    if (column instanceof Float64Array) return;
    const wide = new Float64Array(column.length);
    wide.set(column.subarray(0, this.size));
    this.numbers[field] = wide;
  }

  private growTo(capacity: number) {
    for (const f of TEXT_FIELDS) this.text[f] = grownTo(this.text[f], capacity);
    for (const f of CODE_FIELDS) this.codes[f] = grownTo(this.codes[f], capacity);
    for (const f of NUMBER_FIELDS) this.numbers[f] = grownTo(this.numbers[f], capacity);
  }
}

function maxOf(values: Uint32Array): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  return max;
}

function grownTo<A extends Int32Array | Uint8Array | FigureColumn>(a: A, capacity: number): A {
  const b = new (a.constructor as new (n: number) => A)(capacity);
  b.set(a);
  return b;
}
