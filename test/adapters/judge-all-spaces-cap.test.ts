// The deployment's daily judge cap across spaces, beside each space's own, against the emulators with the
// Anthropic and GitHub stand-ins (a world of its own: the shared counter is the whole day's).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { judgeRun } from '../../shared/core/judge/judge-run.ts';
import { nextUtcDay, utcDay } from '../../shared/core/judge/transitions.ts';
import { goodAnswer, startJudgeWorld, type JudgeWorld } from '../helpers/judge.ts';
import { budgetCalls } from '../helpers/in-memory-ports.ts';

const BASE = 'a'.repeat(40);
const MERGE = 'b'.repeat(40);
const REFERENCE_DIFF =
  'diff --git a/src/widget.ts b/src/widget.ts\n--- a/src/widget.ts\n+++ b/src/widget.ts\n@@ -1 +1 @@\n-a\n+b\n';

let w: JudgeWorld;
beforeAll(async () => {
  w = await startJudgeWorld({
    defaultJudgeModel: 'claude-test-judge',
    judgeDailyCapAllSpaces: 12,
    spaces: {
      North: { senders: ['mac-studio-1'], judge: { dailyCap: 10 } },
      South: { senders: ['mac-studio-1'], judge: { dailyCap: 10 } },
    },
  });
  w.github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'Widgets crash on empty input.' });
  w.github.setCompare('acme/widgets', BASE, MERGE, REFERENCE_DIFF);
  w.answer = () => goodAnswer();
});
afterAll(() => w.stop());

const landMany = async (space: string, n: number, tag: string) => {
  const messages = [];
  for (let i = 0; i < n; i++) {
    await w.putIssue(space, `${tag}-${i}`);
    messages.push(await w.land(space, { taskId: `${tag}-${i}` }));
  }
  return messages;
};

describe('the daily cap across all spaces', () => {
  it('allows exactly that many model calls among concurrent invocations of two spaces, and gives the refused spaces their units back', async () => {
    const messages = [...(await landMany('North', 10, 'shared-n')), ...(await landMany('South', 10, 'shared-s'))];
    const before = w.anthropic.requests.length;
    const outcomes = await Promise.all(messages.map((m) => judgeRun(w.deps(), m)));

    expect(w.anthropic.requests.length - before).toBe(12);
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(12);
    expect(outcomes.filter((o) => o.result === 'waiting-budget')).toHaveLength(8);
    // Each space's own count holds only the calls made: a unit the shared cap refused was given back.
    const day = utcDay(w.now);
    expect((await budgetCalls(w.stores.store, 'North', day)) + (await budgetCalls(w.stores.store, 'South', day))).toBe(
      12,
    );
    const waiting = await Promise.all(
      messages
        .filter((_, i) => outcomes[i]!.result === 'waiting-budget')
        .map(async (m) => (await w.stores.store.getRun(m.space, m.id))!.value),
    );
    for (const row of waiting)
      expect(row).toMatchObject({
        judgeState: 'waiting-budget',
        judgeAttempts: 0,
        judgeNextAttemptAt: nextUtcDay(w.now),
        judgeLastError: { code: 'all-spaces-daily-cap-reached' },
      });
    expect(waiting[0]!.judgeLastError!.message).toContain('12 calls across all spaces');
  });

  it("still stops a space at its own cap first, naming the space's cap", async () => {
    w.advance(24 * 3600);
    const messages = await landMany('North', 11, 'own');
    const outcomes = await Promise.all(messages.map((m) => judgeRun(w.deps(), m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(10);
    const refused = messages[outcomes.findIndex((o) => o.result === 'waiting-budget')]!;
    expect((await w.stores.store.getRun('North', refused.id))!.value.judgeLastError).toMatchObject({
      code: 'daily-cap-reached',
    });
  });

  it('is absent unless configured: without it only the spaces caps count', async () => {
    w.advance(24 * 3600);
    const config = { ...w.config, judgeDailyCapAllSpaces: undefined };
    const messages = [...(await landMany('North', 10, 'none-n')), ...(await landMany('South', 10, 'none-s'))];
    const outcomes = await Promise.all(messages.map((m) => judgeRun(w.deps({ config }), m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(20);
  });
});
