// Figures the browser suites expect, computed here from the runs as the export serves them: plain counting and the
// textbook formulas, none of the cockpit's own code, so a page that counts wrongly cannot agree with itself.

/** A run as `export.json` serves it (the fields these figures read). */
export interface ExportedRun {
  model: string;
  harnessVersion: string;
  taskId: string;
  tier: string | null;
  wave: number | null;
  judgeVerdict: string | null;
  hiddenTestStatus: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

export type Outcome = 'tests' | 'judge';

const Z = 1.959964;

/** The Wilson score interval, written out: (p + z²/2n ± z√(p(1−p)/n + z²/4n²)) / (1 + z²/n). */
export function wilson(k: number, n: number): [number, number] {
  const p = k / n;
  const centre = p + (Z * Z) / (2 * n);
  const half = Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  const scale = 1 + (Z * Z) / n;
  return [(centre - half) / scale, (centre + half) / scale];
}

/** Resolved, counted or outside n on an outcome, as docs/contract.md §6 defines them. */
export function resultOf(run: ExportedRun, outcome: Outcome): 'resolved' | 'not' | 'outside' {
  if (outcome === 'tests')
    return run.hiddenTestStatus === 'pass' ? 'resolved' : run.hiddenTestStatus === 'fail' ? 'not' : 'outside';
  if (run.judgeVerdict === 'resolved') return 'resolved';
  return ['partial', 'wrong', 'no_change'].includes(run.judgeVerdict ?? '') ? 'not' : 'outside';
}

export interface GroupCount {
  model: string;
  harnessVersion: string;
  runs: ExportedRun[];
  resolved: number;
  n: number;
  outside: number;
}

export const groupKey = (r: { model: string; harnessVersion: string }) => `${r.model}\u0000${r.harnessVersion}`;

/** Runs per (model, harness version), counted on the outcome. */
export function countGroups(runs: ExportedRun[], outcome: Outcome): GroupCount[] {
  const groups = new Map<string, GroupCount>();
  for (const run of runs) {
    const key = groupKey(run);
    let g = groups.get(key);
    if (!g)
      groups.set(
        key,
        (g = { model: run.model, harnessVersion: run.harnessVersion, runs: [], resolved: 0, n: 0, outside: 0 }),
      );
    g.runs.push(run);
    const result = resultOf(run, outcome);
    if (result === 'outside') g.outside++;
    else g.n++;
    if (result === 'resolved') g.resolved++;
  }
  return [...groups.values()];
}

/** A rate as the page writes it: whole percent, one decimal below 10 %. */
export const pct = (x: number) => `${(x * 100).toFixed(x > 0 && x < 0.1 ? 1 : 0)}%`;

/** Best rate first, groups without a rate last, ties by model then harness version (the cockpit's order). */
export const byRateThenName = (a: GroupCount, b: GroupCount) =>
  (b.n ? b.resolved / b.n : -1) - (a.n ? a.resolved / a.n : -1) ||
  a.model.localeCompare(b.model) ||
  a.harnessVersion.localeCompare(b.harnessVersion);

/** A run's cost from its tokens at a price per million, or null when unpriced or a count is unknown. */
export function runCost(run: ExportedRun, price: { inputPerMTok: number; outputPerMTok: number } | undefined) {
  if (!price || run.promptTokens === null || run.completionTokens === null) return null;
  return (run.promptTokens * price.inputPerMTok + run.completionTokens * price.outputPerMTok) / 1e6;
}

/** "$4.50", "$0.0123", "$1,234" back to a number. */
export const dollars = (text: string) => Number(text.replace(/[$,]/g, ''));

/** The points no other point beats on both, by brute force: none at most as costly with a rate at least as high, one strictly. */
export function undominated<T>(points: T[], cost: (p: T) => number, rate: (p: T) => number): T[] {
  return points.filter(
    (p) =>
      !points.some(
        (q) => q !== p && cost(q) <= cost(p) && rate(q) >= rate(p) && (cost(q) < cost(p) || rate(q) > rate(p)),
      ),
  );
}

/** Judge against tests, where both have a result: 'agree', 'disagree', or null. */
export function agreement(run: ExportedRun): 'agree' | 'disagree' | null {
  const judge = resultOf(run, 'judge');
  const tests = resultOf(run, 'tests');
  if (judge === 'outside' || tests === 'outside') return null;
  return judge === tests ? 'agree' : 'disagree';
}

/** Cohen's κ of the judge against the tests, written out; null with no runs or an empty margin. */
export function kappaOf(runs: ExportedRun[]): { n: number; kappa: number | null; ci: [number, number] | null } {
  let [a, b, c, d] = [0, 0, 0, 0];
  for (const run of runs) {
    if (agreement(run) === null) continue;
    const judged = resultOf(run, 'judge') === 'resolved';
    const passed = resultOf(run, 'tests') === 'resolved';
    if (judged && passed) a++;
    else if (judged) b++;
    else if (passed) c++;
    else d++;
  }
  const n = a + b + c + d;
  if (!(a + b) || !(c + d) || !(a + c) || !(b + d)) return { n, kappa: null, ci: null };
  const po = (a + d) / n;
  const pe = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n);
  const kappa = (po - pe) / (1 - pe);
  const half = Z * Math.sqrt((po * (1 - po)) / (n * (1 - pe) ** 2));
  return { n, kappa, ci: [Math.max(-1, kappa - half), Math.min(1, kappa + half)] };
}

/** Each task's band among the runs' configurations: easy ≥ 2/3 resolved, medium ≥ 1/3, hard > 0, unsolved 0. */
export function difficulties(runs: ExportedRun[], outcome: Outcome): Map<string, string> {
  const byTask = new Map<string, { n: number; resolved: number }>();
  for (const run of runs) {
    const result = resultOf(run, outcome);
    if (result === 'outside') continue;
    const t = byTask.get(run.taskId) ?? { n: 0, resolved: 0 };
    t.n++;
    if (result === 'resolved') t.resolved++;
    byTask.set(run.taskId, t);
  }
  const band = ({ n, resolved }: { n: number; resolved: number }) =>
    resolved / n >= 2 / 3 - 1e-12 ? 'easy' : resolved / n >= 1 / 3 - 1e-12 ? 'medium' : resolved ? 'hard' : 'unsolved';
  return new Map([...byTask].map(([task, t]) => [task, band(t)]));
}

/** McNemar's exact two-sided p from whole binomial coefficients: min(1, 2 · Σ_{i ≤ min(b, c)} C(b + c, i) / 2^(b + c)). */
export function mcnemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let coefficient = 1n;
  let tail = 0n;
  for (let i = 0; i <= Math.min(b, c); i++) {
    if (i > 0) coefficient = (coefficient * BigInt(n - i + 1)) / BigInt(i);
    tail += coefficient;
  }
  return Math.min(1, (2 * Number(tail)) / 2 ** n);
}

/** Holm's step-down, written out: the i-th smallest of m p values × (m − i + 1), non-decreasing, at most 1. */
export function holm(ps: number[]): number[] {
  const order = ps.map((p, k) => ({ p, k })).sort((x, y) => x.p - y.p || x.k - y.k);
  const out: number[] = [];
  let floor = 0;
  order.forEach(({ p, k }, i) => {
    floor = Math.max(floor, Math.min(1, (ps.length - i) * p));
    out[k] = floor;
  });
  return out;
}

/** A p value as the page writes it: two significant digits, more only where two would cross 0.05, 0.01 or 0.001. */
export function pWritten(p: number): string {
  if (p < 0.001) return '< 0.001';
  const written = (digits: number) =>
    new Intl.NumberFormat('en', {
      minimumSignificantDigits: digits,
      maximumSignificantDigits: digits,
      useGrouping: false,
    }).format(p);
  let digits = 2;
  while ([0.05, 0.01, 0.001].some((t) => p < t !== Number(written(digits)) < t)) digits++;
  return written(digits);
}

export interface IndependentPair {
  a: GroupCount;
  b: GroupCount;
  both: number;
  aOnly: number;
  bOnly: number;
  neither: number;
  pairs: number;
  p: number | null;
  holm: number | null;
}

/** Every pair of the groups with tasks in common, A the one with the higher rate (ties by name), Holm over those of 10 or more. */
export function pairsOf(groups: GroupCount[], outcome: Outcome): IndependentPair[] {
  const sorted = [...groups].sort(byRateThenName);
  const out: IndependentPair[] = [];
  for (let x = 0; x < sorted.length; x++)
    for (let y = x + 1; y < sorted.length; y++) {
      const [a, b] = [sorted[x]!, sorted[y]!];
      const of = (g: GroupCount) =>
        new Map(g.runs.filter((r) => resultOf(r, outcome) !== 'outside').map((r) => [r.taskId, resultOf(r, outcome)]));
      const [ra, rb] = [of(a), of(b)];
      const pair = { a, b, both: 0, aOnly: 0, bOnly: 0, neither: 0, pairs: 0, p: null as number | null, holm: null };
      for (const [task, x1] of ra) {
        const y1 = rb.get(task);
        if (y1 === undefined) continue;
        pair.pairs++;
        if (x1 === 'resolved' && y1 === 'resolved') pair.both++;
        else if (x1 === 'resolved') pair.aOnly++;
        else if (y1 === 'resolved') pair.bOnly++;
        else pair.neither++;
      }
      if (!pair.pairs) continue;
      if (pair.pairs >= 10) pair.p = mcnemar(pair.aOnly, pair.bOnly);
      out.push(pair);
    }
  const family = out.filter((r) => r.p !== null);
  holm(family.map((r) => r.p!)).forEach((h, k) => ((family[k] as { holm: number | null }).holm = h));
  return out;
}
