// The timings of shared/operations.ts nest: no outbound call outlives the judge function, no function
// outlives the claim on its row or the visibility of its message.
import { describe, expect, it } from '@jest/globals';
import { TIMINGS, visibilitySecondsFor } from '../../shared/operations.ts';

describe('the operational timings', () => {
  it('fit a judge attempt (token exchange, then the reference fetch, then one model call) inside the judge function', () => {
    const githubRoundsInSequence = 2; // the installation token, then the issue and the diff side by side
    expect(githubRoundsInSequence * TIMINGS.githubRequest + TIMINGS.modelCall).toBeLessThan(TIMINGS.judgeFunction);
  });

  it('keep a claimed row claimed for longer than the function that claimed it can run', () => {
    expect(TIMINGS.judgeFunction).toBeLessThan(TIMINGS.judgeClaim);
  });

  it('hide a queued message for longer than its consumer can run', () => {
    for (const consumer of [TIMINGS.landerFunction, TIMINGS.judgeFunction])
      expect(visibilitySecondsFor(consumer)).toBeGreaterThan(consumer);
  });
});
