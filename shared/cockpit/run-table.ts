// The cockpit's in-memory copy of a space's runs: one typed array per field, so filtering and aggregating
// 100k runs is a few linear passes without allocating an object per row. Unknown figures are NaN here and
// never count as zero. Rows are keyed by run id, so a delta that repeats a row replaces it.
//
// Finding a row by id never builds the ids of all rows (a million strings take seconds to make and hash):
// a run id is `{model, made safe}__{taskId}__{harnessVersion}`, so for each model and harness version whose
// parts begin and end the id, the middle names at most one task, and a map of (task, model, harness)
// dictionary indexes, built from integers, gives the row. That finds every row whose id is the one asked
// for, however the strings are made (a task id may itself contain `__`).
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
  private byIdentity: Map<number | string, number> | null = null;
  /** Per model dictionary index, the model as it begins a run id (`runId`'s rule), made on first use. */
  private readonly idPrefixes: string[] = [];

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
    const identities = this.identities();
    const { model, taskId, harnessVersion } = this.dictionaries;
    for (let h = 0; h < harnessVersion.values.length; h++) {
      const suffix = `__${harnessVersion.values[h]!}`;
      if (!id.endsWith(suffix)) continue;
      for (let m = 0; m < model.values.length; m++) {
        const prefix = this.idPrefix(m);
        if (!id.startsWith(prefix) || id.length < prefix.length + suffix.length) continue;
        const t = taskId.indexOf(id.slice(prefix.length, id.length - suffix.length));
        const row = t < 0 ? undefined : identities.get(identityKey(t, m, h));
        if (row !== undefined) return row;
      }
    }
    return -1;
  }

  private idPrefix(m: number): string {
    return (this.idPrefixes[m] ??= `${runId({ model: this.dictionaries.model.values[m]!, taskId: '', harnessVersion: '' }).slice(0, -4)}__`);
  }

  /**
   * Adds the run, or replaces the stored run with the same id. Returns its row index, and whether
   * anything changed: a delta repeats rows it already sent, and an unchanged row must not cause a redraw.
   */
  upsert(run: CompactRun): { index: number; changed: boolean } {
    const found = this.indexOfId(runId(run));
    let changed = found < 0;
    const i = found < 0 ? this.size++ : found;
    if (found < 0 && i >= this.text.model.length) this.grow();
    else if (found >= 0) this.identities().delete(this.identityOf(i));
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
    this.identities().set(this.identityOf(i), i);
    if (changed) this.revision++;
    return { index: i, changed };
  }

  private identityOf(i: number): number | string {
    return identityKey(this.text.taskId[i]!, this.text.model[i]!, this.text.harnessVersion[i]!);
  }

  /** Built on first use: a fresh snapshot never needs it unless a delta arrives or a run is looked up. */
  private identities(): Map<number | string, number> {
    if (!this.byIdentity) {
      this.byIdentity = new Map();
      for (let i = 0; i < this.size; i++) this.byIdentity.set(this.identityOf(i), i);
    }
    return this.byIdentity;
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

/**
 * One number for a (task, model, harness) of dictionary indexes while they fit 53 bits (2M tasks, 65,536
 * models and harness versions), hashed as fast as an integer; past that, a string.
 */
function identityKey(task: number, model: number, harness: number): number | string {
  return task < 2 ** 21 && model < 2 ** 16 && harness < 2 ** 16 ? (task * 2 ** 16 + model) * 2 ** 16 + harness : `${task},${model},${harness}`;
}
