// Cost per resolved task (docs/contract.md §6 "Cost") against figures worked by hand: only priced runs count, and
// the resolved among those same runs; unknown stays unknown and a free model is not "infinitely" good value;
// the Pareto front keeps exactly the configurations no other beats on both cost and rate.
import { describe, expect, it } from '@jest/globals';
import { paretoFront, runCostFigure } from '#analytics/statistics.ts';

describe('run cost per configuration', () => {
  it('sums the known costs and divides by the resolved among those same runs', () => {
    // Four runs, the second unpriced (it resolved, but its cost is unknown, so it counts neither way).
    const figure = runCostFigure([1, NaN, 3, 2], [true, true, false, true]);
    expect(figure).toEqual({
      runs: 4,
      priced: 3,
      totalUsd: 6,
      medianUsd: 2,
      meanUsd: 2,
      resolved: 2,
      perResolvedUsd: 3,
      resolvedPer10Usd: (10 * 2) / 6,
    });
  });

  it('is unknown, never $0, when no run is priced', () => {
    expect(runCostFigure([NaN, NaN], [true, false])).toEqual({
      runs: 2,
      priced: 0,
      totalUsd: null,
      medianUsd: null,
      meanUsd: null,
      resolved: 0,
      perResolvedUsd: null,
      resolvedPer10Usd: null,
    });
  });

  it('has no cost per resolved task when nothing priced resolved, and no count per $10 when the runs cost nothing', () => {
    expect(runCostFigure([0.5, 1.5], [false, false])).toMatchObject({
      totalUsd: 2,
      perResolvedUsd: null,
      resolvedPer10Usd: 0,
    });
    expect(runCostFigure([0, 0], [true, false])).toMatchObject({
      totalUsd: 0,
      perResolvedUsd: 0,
      resolvedPer10Usd: null,
    });
  });
});

describe('the Pareto front', () => {
  it('keeps the points no other is both cheaper (or as cheap) and better than, in order of cost', () => {
    const points = [
      { name: 'a', cost: 1, rate: 0.2 },
      { name: 'b', cost: 2, rate: 0.5 },
      { name: 'c', cost: 3, rate: 0.4 }, // beaten by b
      { name: 'd', cost: 2, rate: 0.3 }, // as cheap as b, worse
      { name: 'e', cost: 5, rate: 0.7 },
      { name: 'f', cost: 5, rate: 0.7 }, // a tie with e: one of them stands for both
    ];
    expect(
      paretoFront(
        points,
        (p) => p.cost,
        (p) => p.rate,
      ).map((p) => p.name),
    ).toEqual(['a', 'b', 'e']);
  });
});
