// A run's cost (docs/contract.md §6 Cost): the cost its harness recorded wins; without one, its tokens at the
// configured price; with neither, unknown — and a group's sum is over the runs whose cost is known, saying
// how many of its runs those are.
import { describe, expect, it } from '@jest/globals';
import { RunTable } from '#analytics/run-table.ts';
import { groupStatistics, runCostUsd } from '#core/read/group-stats.ts';
import { compactRunOf } from '../../../helpers/compact-runs.ts';

const price = { inputPerMTok: 1, outputPerMTok: 10 };
const tokens = { promptTokens: 2_000_000, completionTokens: 100_000 };

describe('the cost of a run', () => {
  it('is what the harness recorded, else its tokens at the configured price, else unknown', () => {
    expect(runCostUsd(price, { costUsd: 0.5, ...tokens })).toBe(0.5);
    expect(runCostUsd(null, { costUsd: 0.5, promptTokens: null, completionTokens: null })).toBe(0.5);
    expect(runCostUsd(price, { costUsd: null, ...tokens })).toBeCloseTo(3, 12);
    expect(runCostUsd(null, { costUsd: null, ...tokens })).toBeNull();
  });

  it('sums per group from recorded costs even when the model is unpriced, over the priced runs alone', () => {
    const table = RunTable.fromRuns([
      compactRunOf({ model: 'recorded', costUsd: 0.25, promptTokens: null, completionTokens: null }),
      compactRunOf({ model: 'recorded', costUsd: 0.5, promptTokens: null, completionTokens: null }),
      compactRunOf({ model: 'priced', costUsd: 1, ...tokens }),
      compactRunOf({ model: 'priced', costUsd: null, ...tokens }),
      compactRunOf({ model: 'partly', costUsd: 0.1 }),
      compactRunOf({ model: 'partly', costUsd: null }),
    ]);
    const all = Uint32Array.from({ length: table.size }, (_, i) => i);
    const cost = Object.fromEntries(
      groupStatistics(table, all, { priced: price }, 'judge', 10).map((g) => [g.model, g.runCost]),
    );
    expect(cost.recorded).toMatchObject({ runs: 2, priced: 2 });
    expect(cost.recorded!.totalUsd).toBeCloseTo(0.75, 12);
    expect(cost.priced).toMatchObject({ runs: 2, priced: 2 });
    expect(cost.priced!.totalUsd).toBeCloseTo(4, 12);
    // One run of two recorded its cost and the model is unpriced: priced 1 of 2, never a whole of $0.10.
    expect(cost.partly).toMatchObject({ runs: 2, priced: 1, totalUsd: 0.1 });
  });
});
