// The judge's daily budgets (docs/contract.md §5) against in-memory ports: the deployment's cap across spaces,
// each space's share of it beside its own cap, one host's share of its space, and the order of the checks
// (the budget before GitHub). Each test has a world of its own, so the shared counter is that test's whole day.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { judgeRun } from '#core/judge/judge-run.ts';
import { nextUtcDay, utcDay } from '#core/judge/transitions.ts';
import { parseConfig } from '#schema/config.ts';
import { inMemoryJudgeWorld, judgeWorldWithFix } from '../../../helpers/in-memory-judge.ts';
import { budgetCalls } from '../../../helpers/in-memory-ports.ts';

const config = parseConfig({
  defaultJudgeModel: 'claude-test-judge',
  judgeDailyCapAllSpaces: 12,
  spaces: {
    North: { senders: ['mac-studio-1'], judge: { dailyCap: 10 } },
    South: { senders: ['mac-studio-1'], judge: { dailyCap: 10 } },
  },
});

let w: ReturnType<typeof inMemoryJudgeWorld>;
beforeEach(() => {
  w = judgeWorldWithFix(config);
});

const landMany = async (space: string, n: number, tag: string) => {
  const messages = [];
  for (let i = 0; i < n; i++) {
    await w.putIssue(space, `${tag}-${i}`);
    messages.push(await w.land(space, { taskId: `${tag}-${i}` }));
  }
  return messages;
};

describe('the daily cap across all spaces', () => {
  it('allows exactly that many model calls among concurrent invocations of two spaces, each space stopped at its share', async () => {
    const messages = [...(await landMany('North', 10, 'shared-n')), ...(await landMany('South', 10, 'shared-s'))];
    const outcomes = await Promise.all(messages.map((m) => judgeRun(w.deps, m)));

    expect(w.model.requests).toHaveLength(12);
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(12);
    expect(outcomes.filter((o) => o.result === 'waiting-budget')).toHaveLength(8);
    const day = utcDay(w.clock.now());
    expect((await budgetCalls(w.table, 'North', day)) + (await budgetCalls(w.table, 'South', day))).toBe(12);
    const waiting = await Promise.all(
      messages
        .filter((_, i) => outcomes[i]!.result === 'waiting-budget')
        .map(async (m) => (await w.table.getRun(m.space, m.id))!.value),
    );
    for (const row of waiting)
      expect(row).toMatchObject({
        judgeState: 'waiting-budget',
        judgeAttempts: 0,
        judgeNextAttemptAt: nextUtcDay(w.clock.now()),
        judgeLastError: { code: 'space-share-reached' },
      });
    expect(waiting[0]!.judgeLastError!.message).toContain('6 of 12 calls across spaces');
  });

  it('refuses past the shared cap itself where the shares round up beyond it, and gives the space its unit back', async () => {
    // Three spaces of 10 share 10 calls: 4 each, rounded up, 12 in all; the shared counter stops at 10.
    const three = parseConfig({
      defaultJudgeModel: 'claude-test-judge',
      judgeDailyCapAllSpaces: 10,
      spaces: Object.fromEntries(
        ['A', 'B', 'C'].map((s) => [s, { senders: ['mac-studio-1'], judge: { dailyCap: 10 } }]),
      ),
    });
    const world = judgeWorldWithFix(three);
    const messages = [];
    for (const space of ['A', 'B', 'C'])
      for (let i = 0; i < 4; i++) {
        await world.putIssue(space, `${space}-${i}`);
        messages.push(await world.land(space, { taskId: `${space}-${i}` }));
      }
    const outcomes = await Promise.all(messages.map((m) => judgeRun(world.deps, m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(10);
    const refused = messages.filter((_, i) => outcomes[i]!.result === 'waiting-budget');
    for (const m of refused)
      expect((await world.table.getRun(m.space, m.id))!.value.judgeLastError).toMatchObject({
        code: 'all-spaces-daily-cap-reached',
      });
    // Each space's own count holds only the calls made: a unit the shared cap refused was given back.
    const day = utcDay(world.clock.now());
    const calls = await Promise.all(['A', 'B', 'C'].map((s) => budgetCalls(world.table, s, day)));
    expect(calls.reduce((a, b) => a + b, 0)).toBe(10);
  });

  it("stops one space at its share of the deployment's cap, so the other space keeps its calls", async () => {
    // North's 10 and South's 10 share 12 calls: 6 each (in proportion to their caps, rounded up).
    const north = await landMany('North', 11, 'greedy');
    const northOutcomes = await Promise.all(north.map((m) => judgeRun(w.deps, m)));
    expect(northOutcomes.filter((o) => o.result === 'judged')).toHaveLength(6);
    const refused = north[northOutcomes.findIndex((o) => o.result === 'waiting-budget')]!;
    expect((await w.table.getRun('North', refused.id))!.value.judgeLastError).toMatchObject({
      code: 'space-share-reached',
      message: expect.stringContaining('6 of 12 calls across spaces'),
    });
    const south = await landMany('South', 6, 'patient');
    expect((await Promise.all(south.map((m) => judgeRun(w.deps, m)))).map((o) => o.result)).toEqual(
      south.map(() => 'judged'),
    );
  });

  it("still stops a space at its own cap when that is below its share, naming the space's cap", async () => {
    const own = { ...config, judgeDailyCapAllSpaces: 1000 };
    const messages = await landMany('North', 11, 'own');
    const outcomes = await Promise.all(messages.map((m) => judgeRun({ ...w.deps, config: own }, m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(10);
    const refused = messages[outcomes.findIndex((o) => o.result === 'waiting-budget')]!;
    expect((await w.table.getRun('North', refused.id))!.value.judgeLastError).toMatchObject({
      code: 'daily-cap-reached',
    });
  });

  it('is absent unless configured: without it only the spaces caps count', async () => {
    const unset = { ...config, judgeDailyCapAllSpaces: undefined };
    const messages = [...(await landMany('North', 10, 'none-n')), ...(await landMany('South', 10, 'none-s'))];
    const outcomes = await Promise.all(messages.map((m) => judgeRun({ ...w.deps, config: unset }, m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(20);
  });
});

describe("one host's share of its space", () => {
  const shared = parseConfig({
    defaultJudgeModel: 'claude-test-judge',
    spaces: { Team: { senders: ['mac-studio-1', 'mac-mini-2'], judge: { dailyCap: 10, hostShare: 0.3 } } },
  });

  it('stops a host at judge.hostShare of the space, while another host of the space is still judged', async () => {
    const team = judgeWorldWithFix(shared);
    const land = async (host: string, n: number) => {
      const messages = [];
      for (let i = 0; i < n; i++) {
        await team.putIssue('Team', `${host}-${i}`);
        messages.push(await team.land('Team', { taskId: `${host}-${i}`, host }));
      }
      return messages;
    };
    const greedy = await land('mac-studio-1', 5);
    const outcomes = await Promise.all(greedy.map((m) => judgeRun(team.deps, m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(3);
    const refused = greedy[outcomes.findIndex((o) => o.result === 'waiting-budget')]!;
    expect((await team.table.getRun('Team', refused.id))!.value).toMatchObject({
      judgeState: 'waiting-budget',
      judgeAttempts: 0,
      judgeLastError: { code: 'host-share-reached', message: expect.stringContaining('mac-studio-1') },
    });
    const other = await land('mac-mini-2', 3);
    expect((await Promise.all(other.map((m) => judgeRun(team.deps, m)))).map((o) => o.result)).toEqual([
      'judged',
      'judged',
      'judged',
    ]);
    // The space's count holds only the calls made: the host's refused units were given back to it.
    expect(await budgetCalls(team.table, 'Team', utcDay(team.clock.now()))).toBe(6);
  });
});

describe('the order of the checks', () => {
  it('asks GitHub nothing for a run the budget refuses', async () => {
    const messages = await landMany('North', 7, 'backlog');
    for (const m of messages.slice(0, 6)) expect(await judgeRun(w.deps, m)).toMatchObject({ result: 'judged' });
    const fetchesBefore = w.code.requests.length;
    expect(await judgeRun(w.deps, messages[6]!)).toMatchObject({ result: 'waiting-budget' });
    expect(w.code.requests.length).toBe(fetchesBefore);
  });
});
