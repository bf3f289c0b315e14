// One pass over runs, from which the cockpit's figures, its calibration table and `/stats`
// (core/read/group-stats.ts) all derive, so none of them can count a run differently.
import type { AgreementTable } from './statistics.ts';
import { codeOf, HIDDEN_TEST_STATUSES as HIDDEN_TESTS, VERDICTS as VERDICT_NAMES } from './columns.ts';
import type { RunTable } from './run-table.ts';
import { emptyVerdictCounts, type HiddenColumn, type VerdictCounts } from './rate-figures.ts';

export interface RunCounts {
  runs: number;
  /** byVerdictAndTest[verdict, 'flagged' or 'unjudged'][hidden-test status or 'none'] */
  byVerdictAndTest: Record<keyof VerdictCounts, Record<HiddenColumn, number>>;
  verdicts: VerdictCounts;
  /** Each run's first attempt's verdict (its current one when it was never re-run). */
  firstVerdicts: VerdictCounts;
  hiddenTests: Record<HiddenColumn, number>;
  /** Runs with a counted verdict and a pass/fail hidden test: judge resolved or not × tests pass or fail. */
  agreement: AgreementTable;
  /** Runs with more than one attempt. */
  reruns: number;
  /** Runs whose "resolved" was flagged (no verdict), as `verdicts.flagged`: not among `verdicts.unjudged`. */
  flagged: number;
  /** Patches archived as conflicts, over the runs (docs/contract.md §4). */
  conflicts: number;
  /** Attempts hosts other than the owner sent, kept apart, over the runs (docs/contract.md §4). */
  foreign: number;
  /** Runs whose figures were generated (demo data). */
  generated: number;
  /** Runs that ended because a step or wall-time budget ran out. */
  budget: number;
  /**
   * Runs for which that is known: all of them where some run declares a step or wall-time budget or ended by one
   * (a configuration is one harness, which stops its runs alike: its other runs finished or failed within the
   * budget), else none.
   */
  budgetKnown: number;
}

const GENERATED = codeOf('metricsSource', 'generated');
const BUDGET = codeOf('outcome', 'budget');
const FLAGGED = codeOf('judgeState', 'flagged');
/** Verdict and hidden-test names by code (0 is unknown); a flagged run is counted under the code after the last verdict. */
const VERDICT_BY_CODE = ['unjudged', ...VERDICT_NAMES, 'flagged'] as const;
const FLAGGED_ROW = VERDICT_BY_CODE.length - 1;
const HIDDEN_BY_CODE = ['none', ...HIDDEN_TESTS] as const;

export function countRuns(table: RunTable, rows: Uint32Array): RunCounts {
  // Counted by code (verdict code × hidden-test code) and named afterwards: a pass over 100k runs without string keys.
  const tests = HIDDEN_BY_CODE.length;
  const byCode = new Uint32Array(VERDICT_BY_CODE.length * tests);
  const firstByCode = new Uint32Array(VERDICT_BY_CODE.length);
  const { verdict, firstVerdict, hiddenTest, metricsSource, outcome, judgeState } = table.codes;
  const attempts = table.numbers.attemptCount;
  const conflictCounts = table.numbers.conflicts;
  const foreignCounts = table.numbers.foreign;
  let reruns = 0;
  let flagged = 0;
  let conflicts = 0;
  let foreign = 0;
  let generated = 0;
  let budget = 0;
  let budgeted = false;
  const { maxSteps, wallBudgetSeconds } = table.numbers;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    const isFlagged = judgeState[i] === FLAGGED;
    byCode[(isFlagged ? FLAGGED_ROW : verdict[i]!) * tests + hiddenTest[i]!]!++;
    firstByCode[firstVerdict[i]!]!++;
    if (attempts[i]! > 1) reruns++;
    if (isFlagged) flagged++;
    // Unknown (NaN, rows landed before conflicts were counted) is none.
    if (conflictCounts[i]! > 0) conflicts += conflictCounts[i]!;
    if (foreignCounts[i]! > 0) foreign += foreignCounts[i]!;
    if (metricsSource[i] === GENERATED) generated++;
    if (outcome[i] === BUDGET) budget++;
    if (outcome[i] === BUDGET || !Number.isNaN(maxSteps[i]!) || !Number.isNaN(wallBudgetSeconds[i]!)) budgeted = true;
  }
  const byVerdictAndTest = {} as RunCounts['byVerdictAndTest'];
  const verdicts = emptyVerdictCounts();
  const firstVerdicts = emptyVerdictCounts();
  const hiddenTests: Record<HiddenColumn, number> = { pass: 0, fail: 0, error: 0, none: 0 };
  VERDICT_BY_CODE.forEach((v, vc) => {
    const row = (byVerdictAndTest[v] = {} as Record<HiddenColumn, number>);
    HIDDEN_BY_CODE.forEach((t, tc) => {
      const n = byCode[vc * tests + tc]!;
      row[t] = n;
      verdicts[v] += n;
      hiddenTests[t] += n;
    });
    firstVerdicts[v] = firstByCode[vc]!;
  });
  const m = byVerdictAndTest;
  const others = (t: 'pass' | 'fail') => m.partial[t] + m.wrong[t] + m.no_change[t];
  const agreement = {
    resolvedPass: m.resolved.pass,
    resolvedFail: m.resolved.fail,
    otherPass: others('pass'),
    otherFail: others('fail'),
  };
  return {
    runs: rows.length,
    byVerdictAndTest,
    verdicts,
    firstVerdicts,
    hiddenTests,
    agreement,
    reruns,
    flagged,
    conflicts,
    foreign,
    generated,
    budget,
    budgetKnown: budgeted ? rows.length : 0,
  };
}
