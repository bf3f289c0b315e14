// What a judge call costs: the prompt parts every run of a task shares are sent so the provider caches them,
// each attempt is priced from its usage, and a space's daily cap holds under concurrent invocations. Each
// test has a world of its own, in memory.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { judgeRun } from '#core/judge/judge-run.ts';
import { nextUtcDay, utcDay } from '#core/judge/transitions.ts';
import { parseConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { inMemoryJudgeWorld, judgeWorldWithFix } from '../../../helpers/in-memory-judge.ts';
import { budgetCalls } from '../../../helpers/in-memory-ports.ts';
import { PromptCachingJudgeModel } from '../../../helpers/in-memory-judge-ports.ts';
import { goodAnswer } from '../../../helpers/judge.ts';

const config = parseConfig({
  defaultJudgeModel: 'claude-test-judge',
  spaces: {
    Main: { senders: ['mac-studio-1'] },
    Capped: { senders: ['mac-studio-1'], judge: { dailyCap: 10 } },
  },
  prices: {
    'claude-test-judge': { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, cacheReadPerMTok: 0.3 },
  },
});

let w: ReturnType<typeof inMemoryJudgeWorld>;
beforeEach(() => {
  w = judgeWorldWithFix(config);
});

const row = async (space: string, id: string): Promise<RunRow> => (await w.table.getRun(space, id))!.value;

describe('prompt caching and cost', () => {
  it('sends the fixed prompt and the reference once per task: later runs of the task read them from the cache, and each attempt is priced', async () => {
    const model = new PromptCachingJudgeModel(() => goodAnswer());
    const deps = { ...w.deps, model: async () => model };
    await w.putIssue('Main', 'cached-1');
    const first = await w.land('Main', { taskId: 'cached-1', model: 'qwen3:8b' });
    const second = await w.land('Main', { taskId: 'cached-1', model: 'llama3:70b' });
    await judgeRun(deps, first);
    await judgeRun(deps, second);
    // Both runs of the task send the same system prompt and shared part, so the provider can cache them.
    const [one, two] = model.requests;
    expect(two!.system).toBe(one!.system);
    expect(two!.sharedPrompt).toBe(one!.sharedPrompt);
    const audits = await Promise.all(
      [first, second].map(async (m) => {
        const keys = await w.objects.list(`runs/Main/${encodeURIComponent(m.id)}/`);
        return JSON.parse((await w.objects.getText(keys.find((k) => k.includes('/judge-'))!))!) as {
          usage: Record<string, number>;
          costUsd: number;
        };
      }),
    );
    // The first run of the task writes the fixed system prompt and its part; the second reads both and writes nothing.
    expect(audits[0]!.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(audits[1]!.usage.cacheWriteTokens).toBe(0);
    expect(audits[1]!.usage.cacheReadTokens).toBe(
      audits[0]!.usage.cacheReadTokens! + audits[0]!.usage.cacheWriteTokens!,
    );
    for (const audit of audits) {
      const { inputTokens, outputTokens, cacheWriteTokens, cacheReadTokens } = audit.usage as Record<string, number>;
      const expected =
        (inputTokens! * 3 + outputTokens! * 15 + cacheWriteTokens! * 3.75 + cacheReadTokens! * 0.3) / 1e6;
      expect(audit.costUsd).toBeCloseTo(expected, 12);
    }
    expect((await row('Main', first.id)).judgeCostUsd).toBeCloseTo(audits[0]!.costUsd, 12);
    expect((await row('Main', second.id)).judgeCostUsd).toBeLessThan((await row('Main', first.id)).judgeCostUsd!);
    const [day] = await w.table.listDays('Main', utcDay(w.clock.now()), utcDay(w.clock.now()));
    expect(day).toMatchObject({ calls: 2 });
    expect(day!.costUsd).toBeCloseTo(audits[0]!.costUsd + audits[1]!.costUsd, 12);
  });

  it('keeps the cost unknown when the judge model has no price', async () => {
    const message = await w.land('Main', { taskId: 'unpriced-1' });
    await w.putIssue('Main', 'unpriced-1');
    await judgeRun({ ...w.deps, config: { ...config, prices: {} } }, message);
    expect(await row('Main', message.id)).toMatchObject({ judgeState: 'judged', judgeCostUsd: null });
    const today = utcDay(w.clock.now());
    expect((await w.table.listDays('Main', today, today))[0]?.costUsd).toBeNull();
  });
});

describe('the daily budget', () => {
  it('allows exactly dailyCap model calls among 40 concurrent invocations; the rest wait for the next UTC day', async () => {
    const messages = [];
    for (let i = 0; i < 40; i++) {
      await w.putIssue('Capped', `cap-${i}`);
      messages.push(await w.land('Capped', { taskId: `cap-${i}` }));
    }
    const outcomes = await Promise.all(messages.map((m) => judgeRun(w.deps, m)));
    expect(w.model.requests).toHaveLength(10);
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(10);
    expect(outcomes.filter((o) => o.result === 'waiting-budget')).toHaveLength(30);
    expect(await budgetCalls(w.table, 'Capped', utcDay(w.clock.now()))).toBe(10);
    const waiting = (await Promise.all(messages.map((m) => row('Capped', m.id)))).filter(
      (r) => r.judgeState === 'waiting-budget',
    );
    expect(waiting).toHaveLength(30);
    for (const r of waiting)
      expect(r).toMatchObject({
        judgeAttempts: 0,
        judgeNextAttemptAt: nextUtcDay(w.clock.now()),
        judgeLastError: { code: 'daily-cap-reached' },
      });
  });
});
