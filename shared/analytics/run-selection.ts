// Which runs the cockpit looks at: the filters (model, tier, wave, harness version, repository) and the issue facts
// (tier, wave, order, the original fix's time) that fill in what a run row lacks.
import type { IssueRecord } from '#schema/issue.ts';
import { codeOf, type Tier } from './columns.ts';
import type { RunTable } from './run-table.ts';

export interface RunFilters {
  models: string[];
  tiers: Tier[];
  waves: number[];
  harnessVersions: string[];
  /** The task's repository (`owner/name`); a run without one passes only when none is chosen. */
  repos: string[];
}

export const NO_FILTERS: RunFilters = { models: [], tiers: [], waves: [], harnessVersions: [], repos: [] };

/** What the issue records add to a run: the task's tier and wave when the row lacks them, its order, the original fix's time. */
export type IssueFacts = Pick<IssueRecord, 'taskId' | 'order' | 'tier' | 'wave' | 'prToMergeHours'>;

/** Issue facts laid out by the table's task dictionary index. */
export interface TaskFacts {
  tier: Uint8Array;
  wave: Float64Array;
  order: Float64Array;
  prToMergeHours: Float64Array;
}

export function taskFacts(table: RunTable, issues: readonly IssueFacts[]): TaskFacts {
  const tasks = table.dictionaries.taskId;
  const n = tasks.values.length;
  const facts: TaskFacts = {
    tier: new Uint8Array(n),
    wave: new Float64Array(n).fill(NaN),
    order: new Float64Array(n).fill(NaN),
    prToMergeHours: new Float64Array(n).fill(NaN),
  };
  for (const issue of issues) {
    const t = tasks.indexOf(issue.taskId);
    if (t < 0) continue;
    facts.tier[t] = codeOf('tier', issue.tier);
    facts.wave[t] = issue.wave ?? NaN;
    facts.order[t] = issue.order ?? NaN;
    facts.prToMergeHours[t] = issue.prToMergeHours ?? NaN;
  }
  return facts;
}

/** The row's own tier, else its task's. */
export function tierCode(table: RunTable, facts: TaskFacts | null, i: number): number {
  const own = table.codes.tier[i]!;
  return own || (facts?.tier[table.text.taskId[i]!] ?? 0);
}

export function waveOf(table: RunTable, facts: TaskFacts | null, i: number): number {
  const own = table.numbers.wave[i]!;
  return Number.isNaN(own) && facts ? (facts.wave[table.text.taskId[i]!] ?? NaN) : own;
}

/** Indexes of the rows that pass every filter; an empty filter list lets everything through. */
export function selectRuns(table: RunTable, filters: RunFilters, facts: TaskFacts | null = null): Uint32Array {
  const allow = (field: 'model' | 'harnessVersion' | 'repo', wanted: string[]) => {
    if (!wanted.length) return null;
    const ok = new Uint8Array(table.dictionaries[field].values.length);
    for (const w of wanted) {
      const i = table.dictionaries[field].indexOf(w);
      if (i >= 0) ok[i] = 1;
    }
    return ok;
  };
  const models = allow('model', filters.models);
  const harnesses = allow('harnessVersion', filters.harnessVersions);
  const repos = allow('repo', filters.repos);
  const tiers = filters.tiers.length ? new Set(filters.tiers.map((t) => codeOf('tier', t))) : null;
  const waves = filters.waves.length ? new Set(filters.waves) : null;
  const out = new Uint32Array(table.size);
  let n = 0;
  for (let i = 0; i < table.size; i++) {
    if (models && !models[table.text.model[i]!]) continue;
    if (harnesses && !harnesses[table.text.harnessVersion[i]!]) continue;
    if (repos && !repos[table.text.repo[i]!]) continue;
    if (tiers && !tiers.has(tierCode(table, facts, i))) continue;
    if (waves && !waves.has(waveOf(table, facts, i))) continue;
    out[n++] = i;
  }
  return out.subarray(0, n);
}
