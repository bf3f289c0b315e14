// The timings of core/operations.ts nest: no outbound call outlives the judge function, no function
// outlives the claim on its row or the visibility of its message, and an AWS call that hangs fails while its
// invocation can still answer.
import { describe, expect, it } from '@jest/globals';
import { AWS_CALLS, TIMINGS, visibilitySecondsFor } from '#core/operations.ts';

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

  it(
    "fail ingest's five AWS calls in a row (host keys, the owner check's claim and " +
      'read-back, inbox, queue), each at its deadline, before its function times out',
    () => {
      expect(5 * AWS_CALLS.standard.deadlineMs).toBeLessThan(TIMINGS.ingestFunction * 1000);
    },
  );

  it('answer an ingest request before API Gateway gives up on it (30 s)', () => {
    expect(TIMINGS.ingestFunction).toBeLessThan(30);
  });

  it('fail a bulk call (a whole snapshot) before the read API, the function that waits on it, times out', () => {
    expect(AWS_CALLS.bulk.deadlineMs).toBeLessThan(TIMINGS.readApiFunction * 1000);
  });

  it("let an AWS call's attempt end and be retried before the call's deadline", () => {
    for (const limits of Object.values(AWS_CALLS))
      for (const attempt of [limits.connectMs, limits.answerMs, limits.socketIdleMs])
        expect(attempt).toBeLessThan(limits.deadlineMs);
  });

  it("leave a throttled call room for the SDK's first back-off (up to 1 s) and another attempt", () => {
    expect(AWS_CALLS.standard.deadlineMs).toBeGreaterThan(1_000 + AWS_CALLS.standard.answerMs);
  });
});
