// Where the judge and the hidden tests disagree (docs/contract.md §6 "Agreement"), case by case: a run agrees when the
// judge said resolved exactly when the tests passed, disagrees otherwise, and has no agreement without both a
// counted verdict and a pass or fail test; κ is withheld below 10 such runs, with the reason.
import { describe, expect, it } from '@jest/globals';
import { agreementOfRun } from '#analytics/agreement.ts';
import { RunTable } from '#analytics/run-table.ts';
import type { Verdict } from '#schema/run.ts';
import { agreementOf, cohensKappa, kappaWithheld, MIN_KAPPA_N, selectByAgreement } from '#analytics/statistics.ts';
import { compactRunOf as run } from '../../../helpers/compact-runs.ts';

describe('agreement of a run', () => {
  const table = RunTable.fromRuns([
    run({ verdict: 'resolved', hiddenTest: 'pass' }), // agree
    run({ verdict: 'resolved', hiddenTest: 'fail' }), // disagree
    run({ verdict: 'partial', hiddenTest: 'pass' }), // disagree
    run({ verdict: 'wrong', hiddenTest: 'pass' }), // disagree
    run({ verdict: 'no_change', hiddenTest: 'fail' }), // agree
    run({ verdict: 'excluded', hiddenTest: 'pass' }), // no counted verdict
    run({ verdict: 'resolved', hiddenTest: 'error' }), // no pass/fail test
    run({ verdict: null, hiddenTest: 'fail' }), // not judged
    run({ verdict: 'wrong', hiddenTest: null }), // no test result
  ]);

  it('agrees when the judge said resolved exactly when the tests passed, and disagrees otherwise', () => {
    expect(Array.from({ length: table.size }, (_, i) => agreementOf(table, i))).toEqual([
      'agree',
      'disagree',
      'disagree',
      'disagree',
      'agree',
      null,
      null,
      null,
      null,
    ]);
  });

  it('is the same for a stored run, which the run detail reads: an excluded or errored verdict has none', () => {
    const cases: [Verdict | null, string | null, 'pass' | 'fail' | 'error' | null][] = [
      ['resolved', 'judged', 'pass'],
      ['resolved', 'judged', 'fail'],
      ['partial', 'judged', 'pass'],
      ['wrong', 'judged', 'pass'],
      ['no_change', 'judged', 'fail'],
      ['excluded', 'not-needed', 'pass'],
      ['resolved', 'judged', 'error'],
      [null, 'pending', 'fail'],
      ['wrong', 'judged', null],
    ];
    const stored = cases.map(([judgeVerdict, judgeState, status]) =>
      agreementOfRun({ judgeVerdict, judgeState, hiddenTestResult: status && { status } }),
    );
    expect(stored).toEqual(Array.from({ length: table.size }, (_, i) => agreementOf(table, i)));
    expect(
      agreementOfRun({ judgeVerdict: 'error', judgeState: 'error', hiddenTestResult: { status: 'fail' } }),
    ).toBeNull();
    expect(
      agreementOfRun({ judgeVerdict: null, judgeState: 'flagged', hiddenTestResult: { status: 'pass' } }),
    ).toBeNull();
  });

  it('narrows a selection to exactly the disagreeing, or the agreeing, runs', () => {
    const all = Uint32Array.from({ length: table.size }, (_, i) => i);
    expect([...selectByAgreement(table, all, 'disagree')]).toEqual([1, 2, 3]);
    expect([...selectByAgreement(table, all, 'agree')]).toEqual([0, 4]);
  });
});

describe('κ shown or withheld', () => {
  it('is withheld below 10 runs with both results, saying how many there are', () => {
    expect(MIN_KAPPA_N).toBe(10);
    const four = cohensKappa({ resolvedPass: 2, resolvedFail: 0, otherPass: 1, otherFail: 1 });
    expect(four.kappa).not.toBeNull();
    expect(kappaWithheld(four)).toBe('n = 4: too few runs with both a verdict and a test result (κ needs 10)');
  });

  it('is withheld when a margin is empty, and shown from 10 runs with both results up', () => {
    expect(kappaWithheld(cohensKappa({ resolvedPass: 8, resolvedFail: 0, otherPass: 4, otherFail: 0 }))).toBe(
      'the judge or the tests said the same thing every time',
    );
    expect(kappaWithheld(cohensKappa({ resolvedPass: 4, resolvedFail: 1, otherPass: 1, otherFail: 4 }))).toBeNull();
  });
});
