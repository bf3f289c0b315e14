// Empirical difficulty (docs/contract.md §6 "Small samples"): how hard a task turned out to be for the configurations
// in view, beside the tier its sender typed. A task's share is the configurations in view with a result on it
// (on the outcome) that resolved it; easy from 2/3 up, medium from 1/3, hard above 0, unsolved at 0. The
// bands compare whole counts (3·resolved ≥ 2·n), so a share of exactly 2/3 is easy. Browser-safe.
import { OUTCOME_RULES, OUTSIDE, RESOLVED, type ResolveOutcome } from './outcome.ts';
import type { RunTable } from './run-table.ts';

export const DIFFICULTIES = ['easy', 'medium', 'hard', 'unsolved'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export const isDifficulty = (value: string): value is Difficulty => (DIFFICULTIES as readonly string[]).includes(value);

/** The band of `resolved` configurations out of `n` with a result; null when none has one. */
export function difficultyOf(resolved: number, n: number): Difficulty | null {
  if (n === 0) return null;
  if (3 * resolved >= 2 * n) return 'easy';
  if (3 * resolved >= n) return 'medium';
  return resolved > 0 ? 'hard' : 'unsolved';
}

export interface TaskDifficulty {
  /** By task dictionary index: configurations in view with a result on the task, and those that resolved it. */
  n: Uint32Array;
  resolved: Uint32Array;
  /** By task dictionary index: 1 + the band's index in DIFFICULTIES, 0 when no configuration has a result. */
  band: Uint8Array;
}

/** Each task's difficulty among the rows' configurations (one run per configuration and task). */
export function taskDifficulty(table: RunTable, rows: ArrayLike<number>, outcome: ResolveOutcome): TaskDifficulty {
  const tasks = table.dictionaries.taskId.values.length;
  const n = new Uint32Array(tasks);
  const resolved = new Uint32Array(tasks);
  const { field, classOf } = OUTCOME_RULES[outcome];
  const codes = table.codes[field];
  const taskOf = table.text.taskId;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    const c = classOf[codes[i]!]!;
    if (c === OUTSIDE) continue;
    n[taskOf[i]!]!++;
    if (c === RESOLVED) resolved[taskOf[i]!]!++;
  }
  const band = new Uint8Array(tasks);
  for (let t = 0; t < tasks; t++) {
    const d = difficultyOf(resolved[t]!, n[t]!);
    band[t] = d === null ? 0 : DIFFICULTIES.indexOf(d) + 1;
  }
  return { n, resolved, band };
}

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
