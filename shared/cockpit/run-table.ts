// The cockpit's in-memory copy of a space's runs: one typed array per field, so filtering and aggregating
// 100k runs is a few linear passes without allocating an object per row. Unknown figures are NaN here and
// never count as zero. Rows are keyed by run id, so a delta that repeats a row replaces it.
import { runId } from '../schema/run-id.ts';
import {
  CODE_FIELDS,
  NUMBER_FIELDS,
  TEXT_FIELDS,
  codeOf,
  type CodeField,
  type CompactRun,
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

export class RunTable {
  size = 0;
  /** Bumped on every change, so views can tell whether to recompute. */
  revision = 0;
  readonly dictionaries = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Dictionary()])) as Record<TextField, Dictionary>;
  text: Record<TextField, Int32Array>;
  codes: Record<CodeField, Uint8Array>;
  numbers: Record<NumberField, Float64Array>;
  private byId: Map<string, number> | null = null;

  constructor(capacity = 1024) {
    this.text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Int32Array(capacity)])) as Record<TextField, Int32Array>;
    this.codes = Object.fromEntries(CODE_FIELDS.map((f) => [f, new Uint8Array(capacity)])) as Record<CodeField, Uint8Array>;
    this.numbers = Object.fromEntries(NUMBER_FIELDS.map((f) => [f, new Float64Array(capacity)])) as Record<NumberField, Float64Array>;
  }

  /** The table of the parts of one snapshot (or one whole body): each part brings its own dictionaries. */
  static fromColumns(parts: readonly RunColumns[]): RunTable {
    const table = new RunTable(Math.max(1024, parts.reduce((n, part) => n + part.count, 0)));
    for (const columns of parts) {
      const offset = table.size;
      for (const f of TEXT_FIELDS) {
        const toTable = Int32Array.from(columns.strings[f], (s) => table.dictionaries[f].add(s));
        const source = columns.text[f];
        const target = table.text[f];
        for (let i = 0; i < columns.count; i++) target[offset + i] = source[i]! < 0 ? -1 : toTable[source[i]!]!;
      }
      for (const f of CODE_FIELDS) table.codes[f].set(columns.codes[f], offset);
      for (const f of NUMBER_FIELDS) {
        const source = columns.numbers[f];
        const target = table.numbers[f];
        for (let i = 0; i < columns.count; i++) target[offset + i] = source[i] ?? NaN;
      }
      table.size += columns.count;
    }
    table.revision++;
    return table;
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
    return runId({ model: this.string('model', i)!, taskId: this.string('taskId', i)!, harnessVersion: this.string('harnessVersion', i)! });
  }

  indexOfId(id: string): number {
    return this.ids().get(id) ?? -1;
  }

  /**
   * Adds the run, or replaces the stored run with the same id. Returns its row index, and whether
   * anything changed: a delta repeats rows it already sent, and an unchanged row must not cause a redraw.
   */
  upsert(run: CompactRun): { index: number; changed: boolean } {
    const ids = this.ids();
    const id = runId(run);
    let i = ids.get(id);
    let changed = i === undefined;
    if (i === undefined) {
      i = this.size++;
      if (i >= this.text.model.length) this.grow();
      ids.set(id, i);
    }
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
      changed ||= !Object.is(this.numbers[f][i], value);
      this.numbers[f][i] = value;
    }
    if (changed) this.revision++;
    return { index: i, changed };
  }

  /** Built on first use: a fresh snapshot never needs it unless a delta arrives or a run is looked up. */
  private ids(): Map<string, number> {
    if (!this.byId) {
      this.byId = new Map();
      for (let i = 0; i < this.size; i++) this.byId.set(this.id(i), i);
    }
    return this.byId;
  }

  private grow() {
    const capacity = this.text.model.length * 2;
    const grown = <A extends Int32Array | Uint8Array | Float64Array>(a: A): A => {
      const b = new (a.constructor as new (n: number) => A)(capacity);
      b.set(a);
      return b;
    };
    for (const f of TEXT_FIELDS) this.text[f] = grown(this.text[f]);
    for (const f of CODE_FIELDS) this.codes[f] = grown(this.codes[f]);
    for (const f of NUMBER_FIELDS) this.numbers[f] = grown(this.numbers[f]);
  }
}
