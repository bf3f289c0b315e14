// Empirical difficulty (docs/contract.md §6 "Small samples"): how hard a task turned out to be for the configurations
// in view, beside the tier its sender typed. A task's share is the configurations in view with a result on it
// (on the outcome) that resolved it, each configuration counted by the share of its samples that did (1 or 0 where
// it ran the task once); easy from 2/3 up, medium from 1/3, hard above 0, unsolved at 0. The bands compare
// 3·resolved with 2·n and n, a share of exactly 2/3 being easy (to 1e-9, for shares of samples). Browser-safe.
import { OUTCOME_RULES, OUTSIDE, RESOLVED, type ResolveOutcome } from './outcome.ts';
import type { RunTable } from './run-table.ts';

export const DIFFICULTIES = ['easy', 'medium', 'hard', 'unsolved'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export const isDifficulty = (value: string): value is Difficulty => (DIFFICULTIES as readonly string[]).includes(value);

/** Shares of samples add up with rounding: a band's edge is reached within this. */
export const BAND_TOLERANCE = 1e-9;

/** The band of `resolved` configurations out of `n` with a result; null when none has one. */
export function difficultyOf(resolved: number, n: number): Difficulty | null {
  if (n === 0) return null;
  if (3 * resolved >= 2 * n - BAND_TOLERANCE) return 'easy';
  if (3 * resolved >= n - BAND_TOLERANCE) return 'medium';
  return resolved > 0 ? 'hard' : 'unsolved';
}

export interface TaskDifficulty {
  /**
   * By task dictionary index: configurations in view with a result on the task, and how many of them resolved it,
   * each by the share of its samples that did.
   */
  n: Uint32Array;
  resolved: Float64Array;
  /** By task dictionary index: 1 + the band's index in DIFFICULTIES, 0 when no configuration has a result. */
  band: Uint8Array;
}

/** Each task's difficulty among the rows' configurations. */
export function taskDifficulty(table: RunTable, rows: ArrayLike<number>, outcome: ResolveOutcome): TaskDifficulty {
  const tasks = table.dictionaries.taskId.values.length;
  const n = new Uint32Array(tasks);
  const resolved = new Float64Array(tasks);
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  const taskOf = table.text.taskId;
  const samples = table.numbers.sample;
  let repeated = false;
  for (let r = 0; r < rows.length && !repeated; r++) {
    const i = rows[r]!;
    const c = classOf[codes[i]!]!;
    if (c === OUTSIDE) continue;
    // One run per configuration and task unless a sample past the first is in view (no sample: the first).
    repeated = samples[i]! > 1;
    n[taskOf[i]!]!++;
    if (c === RESOLVED) resolved[taskOf[i]!]!++;
  }
  if (repeated) sharesOfSamples(table, rows, outcome, n, resolved);
  const band = new Uint8Array(tasks);
  for (let t = 0; t < tasks; t++) {
    const d = difficultyOf(resolved[t]!, n[t]!);
    band[t] = d === null ? 0 : DIFFICULTIES.indexOf(d) + 1;
  }
  return { n, resolved, band };
}

/** n and resolved where a configuration ran a task more than once: each configuration by its share of samples. */
function sharesOfSamples(
  table: RunTable,
  rows: ArrayLike<number>,
  outcome: ResolveOutcome,
  n: Uint32Array,
  resolved: Float64Array,
): void {
  n.fill(0);
  resolved.fill(0);
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  const { taskId: taskOf, model, harnessVersion } = table.text;
  const harnesses = table.dictionaries.harnessVersion.values.length;
  const perTask = table.dictionaries.model.values.length * harnesses;
  // Each row's (task, configuration) cell, -1 without a result: its place in arrays over every cell where they fit
  // (a million tasks of sixteen configurations), else its place among the cells in view.
  const dense = n.length * perTask <= DENSE_CELLS;
  const placeOf = new Map<number, number>();
  const cells = new Int32Array(rows.length).fill(-1);
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    if (classOf[codes[i]!]! === OUTSIDE) continue;
    const key = taskOf[i]! * perTask + model[i]! * harnesses + harnessVersion[i]!;
    cells[r] = dense ? key : (placeOf.get(key) ?? placeOf.set(key, placeOf.size).size - 1);
  }
  const size = dense ? n.length * perTask : placeOf.size;
  const [samplesOf, resolvedOf] = [new Uint32Array(size), new Uint32Array(size)];
  for (let r = 0; r < rows.length; r++) {
    const cell = cells[r]!;
    if (cell < 0) continue;
    samplesOf[cell]!++;
    if (classOf[codes[rows[r]!]!]! === RESOLVED) resolvedOf[cell]!++;
  }
  // Each cell once: at its first row, where its count is cleared.
  for (let r = 0; r < rows.length; r++) {
    const cell = cells[r]!;
    const samples = cell < 0 ? 0 : samplesOf[cell]!;
    if (!samples) continue;
    samplesOf[cell] = 0;
    const t = taskOf[rows[r]!]!;
    n[t]!++;
    resolved[t]! += resolvedOf[cell]! / samples;
  }
}

/** Cells counted in arrays: 16M, 128 MB of two arrays at most, held only while the difficulty is worked out. */
const DENSE_CELLS = 2 ** 24;

/** "2 of 3", or "1.33 of 3" where configurations count by their share of samples. */
export const configurationsText = (resolved: number, n: number): string => {
  const whole = Math.round(resolved);
  return `${Math.abs(resolved - whole) < BAND_TOLERANCE ? whole : resolved.toFixed(2)} of ${n}`;
};

/** The band of row i's task, or null. */
export const difficultyOfRow = (table: RunTable, difficulty: TaskDifficulty, i: number): Difficulty | null =>
  DIFFICULTIES[difficulty.band[table.text.taskId[i]!]! - 1] ?? null;

/** The rows whose task is in one of the `wanted` bands. */
export function selectByDifficulty(
  table: RunTable,
  rows: Uint32Array,
  difficulty: TaskDifficulty,
  wanted: readonly Difficulty[],
): Uint32Array {
  const keep = new Uint8Array(DIFFICULTIES.length + 1);
  for (const d of wanted) keep[DIFFICULTIES.indexOf(d) + 1] = 1;
  const taskOf = table.text.taskId;
  return rows.filter((i) => keep[difficulty.band[taskOf[i]!]!] === 1);
}
