// Landing under races and crashes, against in-memory ports with the stores' conditional-write contracts: many
// deliveries of one run converge to its latest attempt, and a landing killed at any step and delivered again
// ends as a clean landing does. Each test has stores of its own.
import { describe, expect, it } from '@jest/globals';
import { landEntry, landInboxEntry, WAKE_READS_AT_ONCE, type LandingDeps } from '#core/landing/land.ts';
import { readRunTexts } from '#core/run-texts.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { inboxSpacePrefix, runSpacePrefix } from '#core/storage-layout.ts';
import { inboxEntry, issueDelivery, runDelivery } from '../../../helpers/deliveries.ts';
import { InMemoryObjectStore, InMemoryTable, RecordingQueue, SettableClock } from '../../../helpers/in-memory-ports.ts';

function stores() {
  const table = new InMemoryTable();
  const data = new InMemoryObjectStore();
  const inbox = new InMemoryObjectStore();
  const clock = new SettableClock(new Date('2026-11-29T12:00:00.000Z'));
  const deps = (judgeQueue = new RecordingQueue<JudgeMessage>()): LandingDeps => ({
    runs: table,
    attempts: table,
    issues: table,
    hosts: table,
    objects: data,
    inbox,
    judgeQueue,
    clock,
  });
  return { table, data, inbox, deps };
}

describe('landing a run', () => {
  it('converges to one row, the latest, when the same id is delivered 50 times in parallel', async () => {
    const { table, data, deps } = stores();
    const finishes = Array.from({ length: 50 }, (_, i) => `2026-11-2${i % 5}T10:00:${String(i).padStart(2, '0')}Z`);
    const deliveries = finishes.map((finishedAt, i) =>
      runDelivery({ finishedAt, steps: i }, { patch: `diff --git a/f b/f\n+${finishedAt}\n` }),
    );
    await Promise.all(
      deliveries.map((delivery, i) => landEntry(deps(), inboxEntry('race', delivery, { deliveryId: `d-${i}` }))),
    );
    const page = await table.listRuns('race', { limit: 100 });
    expect(page.items).toHaveLength(1);
    const latest = [...finishes].sort().at(-1)!;
    const row = page.items[0]!;
    expect(row.finishedAt).toBe(new Date(latest).toISOString());
    expect(row.steps).toBe(finishes.indexOf(latest));
    expect((await readRunTexts(data, row)).patch).toBe(`diff --git a/f b/f\n+${latest}\n`);
    // Every other attempt is archived exactly once, and the row counts them all.
    expect(await table.listAttempts('race', row.id)).toHaveLength(49);
    expect(row.attemptCount).toBe(50);
  });
});

describe('landing is crash-safe', () => {
  // Every call into a store is a step; crash at each one in turn, redeliver, and compare with a clean landing.
  function crashingAfter(steps: number, d: LandingDeps): LandingDeps {
    let left = steps;
    const wrap = <T extends object>(target: T): T =>
      new Proxy(target, {
        get(obj, prop, receiver) {
          const value = Reflect.get(obj, prop, receiver);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            if (left-- <= 0) throw new Error('simulated crash');
            return (value as (...a: unknown[]) => unknown).apply(obj, args);
          };
        },
      });
    return {
      ...d,
      runs: wrap(d.runs),
      issues: wrap(d.issues),
      hosts: wrap(d.hosts),
      objects: wrap(d.objects),
      inbox: wrap(d.inbox),
      judgeQueue: wrap(d.judgeQueue),
    };
  }

  it('ends in the same state whichever step it was killed at', async () => {
    const { table, data, inbox, deps } = stores();
    const delivery = runDelivery();
    const land = async (space: string, d: LandingDeps) => {
      const key = `inbox/${space}/d-1.json`;
      if ((await inbox.getText(key)) === null && !(await table.getRun(space, delivery.id))) {
        await inbox.put(key, JSON.stringify(inboxEntry(space, delivery)));
      }
      return landInboxEntry(d, key);
    };
    const snapshot = async (space: string) => {
      const row = (await table.getRun(space, delivery.id))!.value;
      return {
        row: JSON.parse(JSON.stringify(row).replaceAll(space, 'SPACE')) as unknown,
        patch: (await readRunTexts(data, row)).patch,
        objects: (await data.list(runSpacePrefix(space))).map((k) => k.replace(runSpacePrefix(space), '')),
        inbox: await inbox.list(inboxSpacePrefix(space)),
      };
    };
    await land('clean', deps());
    const expected = await snapshot('clean');
    expect(expected.inbox).toEqual([]);

    for (let crashAt = 0; crashAt < 14; crashAt++) {
      const space = `crash-${crashAt}`;
      await land(space, crashingAfter(crashAt, deps())).catch((e: Error) => expect(e.message).toBe('simulated crash'));
      await land(space, deps());
      expect(await snapshot(space)).toEqual(expected);
    }
  });
});

describe("landing an issue record a task's many runs wait for", () => {
  it('reads their rows some at a time, and wakes every one', async () => {
    const { table, deps } = stores();
    const runs = 2 * WAKE_READS_AT_ONCE + 10;
    const ids: string[] = [];
    for (let i = 0; i < runs; i++) {
      const delivery = runDelivery({ model: `model-${i}`, taskId: 'crowded' });
      ids.push(delivery.id);
      await landEntry(deps(), inboxEntry('race', delivery, { deliveryId: `r-${i}` }));
      const waiter = { space: 'race', taskId: 'crowded', id: delivery.id, finishedAt: delivery.row.finishedAt };
      await table.putIssueWaiter(waiter, new Date());
    }
    let reading = 0;
    let most = 0;
    const runsRead = Object.create(table) as typeof table;
    runsRead.getRun = async (space, id) => {
      most = Math.max(most, ++reading);
      await new Promise((resolve) => setImmediate(resolve));
      reading--;
      return table.getRun(space, id);
    };
    const queue = new RecordingQueue<JudgeMessage>();
    await landEntry({ ...deps(queue), runs: runsRead }, inboxEntry('race', issueDelivery({ taskId: 'crowded' })));
    expect(most).toBe(WAKE_READS_AT_ONCE);
    expect(queue.sent.map((m) => m.id).sort()).toEqual(ids.sort());
    expect(queue.sent.every((m) => m.issueLanded === true)).toBe(true);
  });
});
