// Landing against the real emulators: conditional writes, content-addressed objects, attempt history. Races at
// scale and crash safety at every step are test/unit/core/landing/landing-races.test.ts, over in-memory ports.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { landEntry, type LandingDeps } from '#core/landing/land.ts';
import { readRunTexts } from '#core/run-texts.ts';
import type { InboxEntry } from '#schema/messages.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { hiddenTestDelivery, inboxEntry, runDelivery, type DeliveryInput } from '../helpers/deliveries.ts';
import { landingDepsOf, startTestStores, type TestStores } from '../helpers/emulators.ts';
import { RecordingQueue } from '../helpers/in-memory-ports.ts';

let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(() => t.stop());

const FIXED_NOW = new Date('2026-11-29T12:00:00.000Z');

const deps = (queue = new RecordingQueue<JudgeMessage>()) => landingDepsOf(t, { now: () => FIXED_NOW }, queue);

const entry = (space: string, delivery: DeliveryInput, deliveryId = 'd-1'): InboxEntry =>
  inboxEntry(space, delivery, { deliveryId });

describe('landing a run', () => {
  it('writes the row, the patch and the summary, and hands the run to the judge', async () => {
    const d = deps();
    // A host of its own: host records are global and every other test here delivers as mac-studio-1.
    const delivery = runDelivery({ host: 'mac-land-1' });
    expect(await landEntry(d, entry('land', delivery))).toBe('new');
    const row = (await t.store.getRun('land', delivery.id))!.value;
    expect(await readRunTexts(t.data, row)).toEqual({ patch: delivery.patch, summary: 'Changed a to b.' });
    expect(row.textsKey).toContain('2026-11-20T10:12:00.000Z');
    expect(d.judgeQueue.sent).toEqual([
      { space: 'land', id: delivery.id, finishedAt: '2026-11-20T10:12:00.000Z', deliveryId: 'd-1' },
    ]);
    expect((await t.store.getHost('land', 'mac-land-1'))?.value).toMatchObject({
      hostHardware: 'Mac Studio M2 Ultra 192 GB',
      space: 'land',
    });
  });

  it('excludes a run whose source recorded no patch: no judge call, a null patch stored, no empty one', async () => {
    const d = deps();
    const delivery = runDelivery({ host: 'mac-land-2', taskId: 'no-diff-1' }, { patch: null });
    expect(await landEntry(d, entry('unrecorded', delivery))).toBe('new');
    const row = (await t.store.getRun('unrecorded', delivery.id))!.value;
    expect(row).toMatchObject({
      judgeVerdict: 'excluded',
      judgeState: 'not-needed',
      judgeReason: 'Its source recorded no patch: there is nothing to judge.',
    });
    expect(await readRunTexts(t.data, row)).toEqual({ patch: null, summary: 'Changed a to b.' });
    expect(d.judgeQueue.sent).toEqual([]);
  });

  it('never lets an older delivery touch the newer patch object or row: it is archived beside it', async () => {
    const d = deps();
    const newer = runDelivery({ finishedAt: '2026-11-22T00:00:00Z' }, { patch: 'diff --git a/n b/n\n+new\n' });
    const older = runDelivery({ finishedAt: '2026-11-21T00:00:00Z' }, { patch: 'diff --git a/o b/o\n+old\n' });
    await landEntry(d, entry('stale', newer, 'n'));
    expect(await landEntry(d, entry('stale', older, 'o'))).toBe('stale');
    const row = (await t.store.getRun('stale', newer.id as string))!.value;
    expect((await readRunTexts(t.data, row)).patch).toBe('diff --git a/n b/n\n+new\n');
    expect(row.deliveries).toEqual(['n']);
    expect(row.attemptCount).toBe(2);
    const objects = await t.data.list('runs/stale/');
    expect(objects.filter((k) => k.includes('2026-11-22T00:00:00.000Z'))).toHaveLength(1);
    expect(objects.filter((k) => k.includes('2026-11-21T00:00:00.000Z'))).toHaveLength(1);
    const [late] = await t.store.listAttempts('stale', newer.id as string);
    expect(late).toMatchObject({
      finishedAt: '2026-11-21T00:00:00.000Z',
      judgeVerdict: null,
      judgeState: 'not-needed',
    });
    expect((await readRunTexts(t.data, late!)).patch).toBe('diff --git a/o b/o\n+old\n');
  });

  it('converges to one row, the latest, when the same id is delivered 6 times in parallel through conditional writes', async () => {
    // The race itself, at 50 deliveries, is test/unit/core/landing/landing-races.test.ts; here the table's conditional writes.
    const d = deps();
    const finishes = Array.from({ length: 6 }, (_, i) => `2026-11-2${i % 3}T10:00:${String(i).padStart(2, '0')}Z`);
    const deliveries = finishes.map((finishedAt, i) =>
      runDelivery({ finishedAt, steps: i }, { patch: `diff --git a/f b/f\n+${finishedAt}\n` }),
    );
    await Promise.all(deliveries.map((delivery, i) => landEntry(d, entry('race', delivery, `d-${i}`))));
    const page = await t.store.listRuns('race', { limit: 100 });
    expect(page.items).toHaveLength(1);
    const latest = [...finishes].sort().at(-1)!;
    const row = page.items[0]!;
    expect(row.finishedAt).toBe(new Date(latest).toISOString());
    expect(row.steps).toBe(finishes.indexOf(latest));
    expect((await readRunTexts(t.data, row)).patch).toBe(`diff --git a/f b/f\n+${latest}\n`);
    // Every other attempt is archived exactly once, and the row counts them all.
    expect(await t.store.listAttempts('race', row.id)).toHaveLength(5);
    expect(row.attemptCount).toBe(6);
  });

  it('holds a hidden-test result until its run lands, ignores one for an earlier run, and takes one that ran later', async () => {
    const d = deps();
    const delivery = runDelivery();
    const F = '2026-11-20T10:12:00Z';
    expect(await landEntry(d, entry('hidden', hiddenTestDelivery(delivery.id, F)))).toBe('hidden-test-held');
    await landEntry(d, entry('hidden', delivery));
    expect((await t.store.getRun('hidden', delivery.id))!.value.hiddenTestResult).toMatchObject({
      status: 'pass',
      total: 3,
    });
    expect(await landEntry(d, entry('hidden', hiddenTestDelivery(delivery.id, '2026-11-01T00:00:00Z', 'fail')))).toBe(
      'hidden-test-ignored',
    );
    const later = hiddenTestDelivery(delivery.id, F, 'fail');
    later.hiddenTestResult.ranAt = '2026-11-21T10:00:00Z';
    expect(await landEntry(d, entry('hidden', later))).toBe('hidden-test-applied');
    expect((await t.store.getRun('hidden', delivery.id))!.value.hiddenTestResult?.status).toBe('fail');
  });

  it('keeps a hidden-test result that lands while its run is landing', async () => {
    // The worst interleaving, forced: the run's landing has looked for a held result and found none, then
    // the hidden-test result lands completely (finding no run, so holding it), then the run's row is written.
    const delivery = runDelivery();
    let heldLookedUp!: () => void;
    const lookedUp = new Promise<void>((r) => (heldLookedUp = r));
    let hiddenLanded!: () => void;
    const landed = new Promise<void>((r) => (hiddenLanded = r));
    const d = deps();
    const runDeps: LandingDeps = {
      ...d,
      issues: Object.assign(Object.create(t.store) as typeof t.store, {
        getPendingHiddenTests: async (space: string, id: string) => {
          const held = await t.store.getPendingHiddenTests(space, id);
          heldLookedUp();
          return held;
        },
      }),
      runs: Object.assign(Object.create(t.store) as typeof t.store, {
        putRun: async (...args: Parameters<typeof t.store.putRun>) => {
          await landed;
          return t.store.putRun(...args);
        },
      }),
    };
    const running = landEntry(runDeps, entry('together', delivery));
    await lookedUp;
    expect(await landEntry(d, entry('together', hiddenTestDelivery(delivery.id, '2026-11-20T10:12:00Z'), 'h'))).toBe(
      'hidden-test-held',
    );
    hiddenLanded();
    await running;
    expect((await t.store.getRun('together', delivery.id))!.value.hiddenTestResult?.status).toBe('pass');
  });

  it('takes a later hidden-test result that lands while its run is landing with an earlier held one', async () => {
    // The run's landing has found the earlier result held, then the later one lands completely (finding no run,
    // it replaces the held one), then the run's row is written with the earlier result: the later one must win.
    const delivery = runDelivery();
    const F = '2026-11-20T10:12:00Z';
    const d = deps();
    expect(await landEntry(d, entry('overtaken', hiddenTestDelivery(delivery.id, F, 'fail'), 'early'))).toBe(
      'hidden-test-held',
    );
    let heldLookedUp!: () => void;
    const lookedUp = new Promise<void>((r) => (heldLookedUp = r));
    let laterLanded!: () => void;
    const landed = new Promise<void>((r) => (laterLanded = r));
    const runDeps: LandingDeps = {
      ...d,
      issues: Object.assign(Object.create(t.store) as typeof t.store, {
        getPendingHiddenTests: async (space: string, id: string) => {
          const held = await t.store.getPendingHiddenTests(space, id);
          heldLookedUp();
          return held;
        },
      }),
      runs: Object.assign(Object.create(t.store) as typeof t.store, {
        putRun: async (...args: Parameters<typeof t.store.putRun>) => {
          await landed;
          return t.store.putRun(...args);
        },
      }),
    };
    const running = landEntry(runDeps, entry('overtaken', delivery));
    await lookedUp;
    const later = hiddenTestDelivery(delivery.id, F, 'pass');
    later.hiddenTestResult.ranAt = '2026-11-21T10:00:00Z';
    expect(await landEntry(d, entry('overtaken', later, 'late'))).toBe('hidden-test-held');
    laterLanded();
    await running;
    expect((await t.store.getRun('overtaken', delivery.id))!.value.hiddenTestResult).toMatchObject({
      status: 'pass',
      ranAt: '2026-11-21T10:00:00.000Z',
    });
  });
});

describe('attempt history', () => {
  const id = (delivery: Record<string, unknown>) => delivery.id as string;

  it("archives a replaced attempt with its verdict, a late earlier attempt unjudged, and lands the late one's hidden-test result on it", async () => {
    const d = deps();
    const first = runDelivery({ finishedAt: '2026-11-10T00:00:00Z' }, { patch: 'diff --git a/a b/a\n+1\n' });
    const rerun = runDelivery({ finishedAt: '2026-11-12T00:00:00Z' }, { patch: 'diff --git a/a b/a\n+2\n' });
    const late = runDelivery({ finishedAt: '2026-11-09T00:00:00Z' }, { patch: 'diff --git a/a b/a\n+0\n' });
    await landEntry(d, entry('history', first, 'h1'));
    const landedFirst = (await t.store.getRun('history', id(first)))!;
    await t.store.putRun(
      {
        ...landedFirst.value,
        judgeVerdict: 'wrong',
        judgeState: 'judged',
        judgedAt: '2026-11-11T00:00:00.000Z',
        judgeNextAttemptAt: null,
      },
      landedFirst.rev,
    );

    expect(await landEntry(d, entry('history', rerun, 'h2'))).toBe('rerun');
    expect(await landEntry(d, entry('history', late, 'h3'))).toBe('stale');
    // Redelivering any of them changes nothing.
    expect(await landEntry(d, entry('history', late, 'h3'))).toBe('stale');
    expect(await landEntry(d, entry('history', first, 'h1'))).toBe('stale');

    const row = (await t.store.getRun('history', id(first)))!.value;
    expect(row).toMatchObject({
      finishedAt: '2026-11-12T00:00:00.000Z',
      judgeVerdict: null,
      attemptCount: 3,
      firstAttempt: { finishedAt: '2026-11-09T00:00:00.000Z', judgeVerdict: null },
    });
    const archived = await t.store.listAttempts('history', id(first));
    expect(archived.map((a) => [a.finishedAt, a.judgeVerdict])).toEqual([
      ['2026-11-09T00:00:00.000Z', null],
      ['2026-11-10T00:00:00.000Z', 'wrong'],
    ]);

    expect(
      await landEntry(d, entry('history', hiddenTestDelivery(id(first), '2026-11-10T00:00:00.000Z', 'fail'), 'h4')),
    ).toBe('hidden-test-applied');
    const withResult = (await t.store.listAttempts('history', id(first))).find(
      (a) => a.finishedAt === '2026-11-10T00:00:00.000Z',
    );
    expect(withResult?.hiddenTestResult?.status).toBe('fail');
    expect((await t.store.getRun('history', id(first)))!.value.hiddenTestResult).toBeNull();
  });

  it('lands a 300-entry contamination list: the row keeps 100, the full list is an object of the run', async () => {
    const list = Array.from({ length: 300 }, (_, i) => ({
      step: i,
      path: `/Users/runner/runs/other-${i}/src/main.ts`,
    }));
    const delivery = runDelivery({ contamination: list });
    expect(await landEntry(deps(), entry('bounds', delivery, 'b1'))).toBe('new');
    const row = (await t.store.getRun('bounds', id(delivery)))!.value;
    expect(row).toMatchObject({ contaminationCount: 300, judgeVerdict: 'excluded' });
    expect(row.contamination).toHaveLength(100);
    expect(JSON.parse((await t.data.getText(row.contaminationKey!))!)).toEqual(list);
  });
});
