// The statistics of docs/contract.md §6 against published worked examples, exact binomial tails worked by hand, and
// properties that must hold for any counts.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  binomialLowerTail,
  cohensKappa,
  mcnemarExactP,
  newcombePairedInterval,
  pairedComparison,
  proportion,
  wilsonInterval,
  type PairedCounts,
} from '#analytics/statistics.ts';
import { describeComparison, holmText } from '#analytics/comparison-sentence.ts';

const toDigits = (interval: [number, number] | null, digits = 4) => interval?.map((x) => Number(x.toFixed(digits)));

describe('Wilson score interval', () => {
  it('matches the four worked examples of Newcombe (1998a, Table I, method 3)', () => {
    expect(toDigits(wilsonInterval(81, 263))).toEqual([0.2553, 0.3662]);
    expect(toDigits(wilsonInterval(15, 148))).toEqual([0.0624, 0.1605]);
    expect(toDigits(wilsonInterval(0, 20))).toEqual([0, 0.1611]);
    expect(toDigits(wilsonInterval(1, 29))).toEqual([0.0061, 0.1718]);
  });

  it('has no rate and no interval without a denominator', () => {
    expect(proportion(0, 0)).toEqual({ hits: 0, n: 0, rate: null, ci: null });
  });

  it('always contains the rate and stays inside [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, share) => {
        const hits = Math.round(share * n);
        const { rate, ci } = proportion(hits, n);
        expect(ci![0]).toBeGreaterThanOrEqual(0);
        expect(ci![1]).toBeLessThanOrEqual(1);
        expect(ci![0]).toBeLessThanOrEqual(rate!);
        expect(ci![1]).toBeGreaterThanOrEqual(rate!);
      }),
    );
  });
});

describe('exact binomial tails and McNemar', () => {
  it('sums the binomial terms exactly', () => {
    // P[X ≤ 1], X ~ Bin(10, ½) = (1 + 10) / 1024; P[X ≤ 2], X ~ Bin(6, ½) = (1 + 6 + 15) / 64.
    expect(binomialLowerTail(1, 10)).toBeCloseTo(11 / 1024, 15);
    expect(binomialLowerTail(2, 6)).toBeCloseTo(22 / 64, 15);
    // P[X ≤ 0], X ~ Bin(3, 0.2) = 0.8³.
    expect(binomialLowerTail(0, 3, 0.2)).toBeCloseTo(0.512, 15);
    expect(binomialLowerTail(5, 5)).toBe(1);
  });

  it('stays finite far beyond the range where 2^-n underflows', () => {
    // Symmetric around n/2: P[X ≤ 1999] for Bin(4000, ½) is just under a half.
    const p = binomialLowerTail(1999, 4000);
    expect(p).toBeGreaterThan(0.48);
    expect(p).toBeLessThan(0.5);
  });

  it('doubles the smaller tail, caps at 1, and is 1 with no discordant pairs', () => {
    // Altman et al. (2000) Table 6.2: 5 discordant pairs one way, none the other: 2 × (½)^5.
    expect(mcnemarExactP(5, 0)).toBeCloseTo(0.0625, 15);
    expect(mcnemarExactP(1, 9)).toBeCloseTo(2 * (11 / 1024), 15);
    expect(mcnemarExactP(4, 4)).toBe(1);
    expect(mcnemarExactP(0, 0)).toBe(1);
  });
});

describe("Newcombe's paired interval (method 10)", () => {
  it('matches example (a) of Newcombe (1998b): 36 both, 12 and 2 discordant, 0 neither', () => {
    expect(toDigits(newcombePairedInterval({ bothResolved: 36, aOnly: 12, bOnly: 2, neither: 0 }))).toEqual([
      0.0569, 0.3404,
    ]);
  });

  it('matches the worked example of Altman et al. (2000), Table 6.2: 14, 5, 0, 22', () => {
    const comparison = pairedComparison({ bothResolved: 14, aOnly: 5, bOnly: 0, neither: 22 });
    expect(comparison.pairs).toBe(41);
    expect(comparison.difference!.toFixed(3)).toBe('0.122');
    expect(toDigits(comparison.ci, 3)).toEqual([0.011, 0.226]);
  });

  it('answers no pairs with null statistics, never NaN', () => {
    const none = pairedComparison({ bothResolved: 0, aOnly: 0, bOnly: 0, neither: 0 });
    expect(none).toEqual({
      bothResolved: 0,
      aOnly: 0,
      bOnly: 0,
      neither: 0,
      pairs: 0,
      difference: null,
      ci: null,
      mcnemarP: null,
    });
    expect(JSON.stringify(none)).not.toContain('NaN');
  });

  const counts = fc
    .record({ bothResolved: fc.nat(400), aOnly: fc.nat(400), bOnly: fc.nat(400), neither: fc.nat(400) })
    .filter((c) => c.bothResolved + c.aOnly + c.bOnly + c.neither > 0);

  it('contains the difference and stays inside [−1, 1] for any counts', () => {
    fc.assert(
      fc.property(counts, (c: PairedCounts) => {
        const { difference, ci } = pairedComparison(c);
        expect(ci![0]).toBeGreaterThanOrEqual(-1);
        expect(ci![1]).toBeLessThanOrEqual(1);
        expect(ci![0]).toBeLessThanOrEqual(difference!);
        expect(ci![1]).toBeGreaterThanOrEqual(difference!);
      }),
    );
  });

  it('negates the difference and its interval and keeps p when A and B swap', () => {
    fc.assert(
      fc.property(counts, (c: PairedCounts) => {
        const ab = pairedComparison(c);
        const ba = pairedComparison({ ...c, aOnly: c.bOnly, bOnly: c.aOnly });
        expect(ba.difference!).toBeCloseTo(-ab.difference!, 12);
        expect(ba.ci![0]).toBeCloseTo(-ab.ci![1], 12);
        expect(ba.ci![1]).toBeCloseTo(-ab.ci![0], 12);
        expect(ba.mcnemarP).toBe(ab.mcnemarP);
      }),
    );
  });

  it('says the comparison in the one sentence a reader can quote, with the Holm clause when pairs were compared at once', () => {
    // 412 tasks: 150 both, 51 A only, 23 B only, 188 neither. A 201 (48.8%), B 173 (42.0%), +28/412 = +6.8 points;
    // McNemar 2 · P[X ≤ 23], X ~ Bin(74, ½) = 0.00152 (summed with exact binomial coefficients).
    const c = {
      outcome: 'tests' as const,
      ...pairedComparison({ bothResolved: 150, aOnly: 51, bOnly: 23, neither: 188 }),
    };
    const text = describeComparison('A', 'B', c, { pairs: 6, holmP: 0.0182, bound: false });
    expect(text).toMatch(
      /^On 412 tasks both ran \(outcome: hidden tests\), A resolved 201 \(48\.8%\) and B 173 \(42\.0%\): a difference of \+6\.8 points \(95% CI \+\d\.\d to \+\d+\.\d\), McNemar p = 0\.0015 \(Holm-adjusted over 6 pairs: 0\.018\)\.$/,
    );
    // One pair alone has nothing to adjust; p below 0.001 reads "p < 0.001"; a negative difference its minus.
    const judged = {
      outcome: 'judge' as const,
      ...pairedComparison({ bothResolved: 10, aOnly: 2, bOnly: 30, neither: 8 }),
    };
    expect(describeComparison('A', 'B', judged, { pairs: 1, holmP: 0.0000001, bound: false })).toMatch(
      /^On 50 tasks both ran \(outcome: judge\), A resolved 12 \(24\.0%\) and B 40 \(80\.0%\): a difference of −56\.0 points \(95% CI −\d+\.\d to −\d+\.\d\), McNemar p < 0\.001\.$/,
    );
    // A Holm p from a sign-flip p at its least is a bound above, rounded up.
    expect(holmText({ holmP: 45 / 2001, bound: true })).toBe('≤ 0.023');
    expect(holmText({ holmP: 45 / 2001, bound: false })).toBe('0.022');
    const none = {
      outcome: 'tests' as const,
      ...pairedComparison({ bothResolved: 0, aOnly: 0, bOnly: 0, neither: 0 }),
    };
    expect(describeComparison('A', 'B', none)).toBe(
      'A and B have no task with a result on the hidden tests in common.',
    );
  });
});

describe("Cohen's κ", () => {
  it('matches the worked two-rater example: 20 agree yes, 15 agree no, 5 and 10 disagree', () => {
    // po = 35/50 = 0.7, pe = (25·30 + 25·20)/50² = 0.5, κ = 0.4; se = √(0.21 / (50 · 0.25)).
    const agreement = cohensKappa({ resolvedPass: 20, resolvedFail: 5, otherPass: 10, otherFail: 15 });
    expect(agreement.n).toBe(50);
    expect(agreement.kappa).toBeCloseTo(0.4, 12);
    const half = 1.959964 * Math.sqrt(0.21 / 12.5);
    expect(agreement.ci![0]).toBeCloseTo(0.4 - half, 12);
    expect(agreement.ci![1]).toBeCloseTo(0.4 + half, 12);
  });

  it('is null with no runs, and null when a margin is empty (one rater said the same thing every time)', () => {
    expect(cohensKappa({ resolvedPass: 0, resolvedFail: 0, otherPass: 0, otherFail: 0 })).toMatchObject({
      n: 0,
      kappa: null,
      ci: null,
    });
    // Judge always "resolved", tests always pass: pe = 1.
    expect(cohensKappa({ resolvedPass: 7, resolvedFail: 0, otherPass: 0, otherFail: 0 })).toMatchObject({
      n: 7,
      kappa: null,
      ci: null,
    });
    // The tests passed every time (the fail column is empty) while the judge varied: po = 5/8 = pe, a κ of
    // 0 that measures nothing. Likewise a judge that said "not resolved" every time.
    expect(cohensKappa({ resolvedPass: 5, resolvedFail: 0, otherPass: 3, otherFail: 0 })).toMatchObject({
      n: 8,
      kappa: null,
      ci: null,
    });
    expect(cohensKappa({ resolvedPass: 0, resolvedFail: 0, otherPass: 2, otherFail: 6 })).toMatchObject({
      n: 8,
      kappa: null,
    });
  });

  it('is 1 for perfect agreement and keeps its interval inside [−1, 1]', () => {
    expect(cohensKappa({ resolvedPass: 3, resolvedFail: 0, otherPass: 0, otherFail: 4 }).kappa).toBeCloseTo(1, 12);
    fc.assert(
      fc.property(fc.nat(300), fc.nat(300), fc.nat(300), fc.nat(300), (a, b, c, d) => {
        const { kappa, ci } = cohensKappa({ resolvedPass: a, resolvedFail: b, otherPass: c, otherFail: d });
        if (kappa === null) return;
        expect(ci![0]).toBeGreaterThanOrEqual(-1);
        expect(ci![1]).toBeLessThanOrEqual(1);
        expect(ci![0]).toBeLessThanOrEqual(kappa + 1e-12);
        expect(ci![1]).toBeGreaterThanOrEqual(kappa - 1e-12);
      }),
    );
  });
});
