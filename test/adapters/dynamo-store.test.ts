import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decideLanding } from '../../shared/landing/decide.ts';
import { InvalidCursorError } from '../../shared/ports.ts';
import { runnerRowSchema, type RunRow } from '../../shared/schema/run.ts';
import { runnerRow } from '../helpers/deliveries.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';

let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(() => t.stop());

function row(space: string, id: string, updatedAt: string, extra: Partial<RunRow> = {}): RunRow {
  const decision = decideLanding(
    null,
    { space, id, deliveryId: 'd', row: runnerRowSchema.parse(runnerRow()), patchSha256: 'x', patchEmpty: false, patchTruncated: false, patchKey: 'p', summaryKey: 's' },
    updatedAt,
    null,
  );
  if (decision.kind !== 'write') throw new Error('unexpected');
  return { ...decision.row, ...extra };
}

describe('DynamoDB store (dynalite)', () => {
  it('creates a row only if absent and updates it only at the expected revision', async () => {
    const r = row('rev', 'a', '2026-01-01T00:00:00.000Z');
    expect(await t.store.putRun(r, null)).toBe(true);
    expect(await t.store.putRun(r, null)).toBe(false);
    const stored = await t.store.getRun('rev', 'a');
    expect(stored).toMatchObject({ rev: 1, value: { id: 'a', judgeState: 'pending' } });
    expect(await t.store.putRun({ ...r, steps: 3 }, 1)).toBe(true);
    expect(await t.store.putRun({ ...r, steps: 4 }, 1)).toBe(false);
    expect((await t.store.getRun('rev', 'a'))?.value.steps).toBe(3);
  });

  it('returns rows without internal attributes', async () => {
    const stored = await t.store.getRun('rev', 'a');
    expect(Object.keys(stored!.value)).not.toContain('pk');
    expect(Object.keys(stored!.value)).not.toContain('rev');
    expect(Object.keys(stored!.value)).not.toContain('dueAt');
  });

  it('pages through all runs of a space with a cursor and filters by updatedAt with since', async () => {
    for (let i = 0; i < 7; i++) await t.store.putRun(row('page', `r${i}`, `2026-01-0${i + 1}T00:00:00.000Z`), null);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await t.store.listRuns('page', { limit: 3, cursor });
      seen.push(...page.items.map((r) => r.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(seen.sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    const since = await t.store.listRuns('page', { limit: 100, since: '2026-01-05T00:00:00.000Z' });
    expect(since.items.map((r) => r.id)).toEqual(['r4', 'r5', 'r6']);
  });

  it('refuses a cursor it did not hand out', async () => {
    await expect(t.store.listRuns('page', { limit: 3, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('lists only rows with a due judge attempt (sparse index)', async () => {
    await t.store.putRun(row('due', 'waiting', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: '2026-01-01T00:00:00.000Z' }), null);
    await t.store.putRun(row('due', 'later', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: '2026-02-01T00:00:00.000Z' }), null);
    await t.store.putRun(row('due', 'judged', '2026-01-01T00:00:00.000Z', { judgeNextAttemptAt: null, judgeState: 'judged' }), null);
    const due = await t.store.listDueRuns('due', '2026-01-15T00:00:00.000Z', 10);
    expect(due.map((r) => r.id)).toEqual(['waiting']);
  });

  it('counts runs per host in a space', async () => {
    expect(await t.store.countRunsByHost('page', 'mac-studio-1')).toBe(7);
    expect(await t.store.countRunsByHost('page', 'mac-mini-2')).toBe(0);
  });

  it('never reserves more than the cap under concurrency', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => t.store.reserve('S', '2026-11-29', 10)));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await t.store.used('S', '2026-11-29')).toBe(10);
    expect(await t.store.reserve('S', '2026-11-30', 10)).toBe(true);
  });

  it('keeps the held hidden-test result of the latest finishedAt', async () => {
    const result = (status: 'pass' | 'fail') => ({ status, ranAt: '2026-01-01T00:00:00.000Z' });
    await t.store.putPendingHiddenTest({ space: 'h', id: 'x', finishedAt: '2026-01-02T00:00:00.000Z', hiddenTestResult: result('pass') });
    await t.store.putPendingHiddenTest({ space: 'h', id: 'x', finishedAt: '2026-01-01T00:00:00.000Z', hiddenTestResult: result('fail') });
    expect(await t.store.getPendingHiddenTest('h', 'x')).toMatchObject({ finishedAt: '2026-01-02T00:00:00.000Z', hiddenTestResult: { status: 'pass' } });
  });
});

describe('S3 object store (s3rver)', () => {
  it('stores, reads, lists past one page, and deletes objects', async () => {
    await Promise.all(Array.from({ length: 1005 }, (_, i) => t.inbox.put(`inbox/list/${String(i).padStart(4, '0')}.json`, `{"i":${i}}`)));
    const keys = await t.inbox.list('inbox/list/');
    expect(keys).toHaveLength(1005);
    expect(await t.inbox.getText('inbox/list/0007.json')).toBe('{"i":7}');
    await t.inbox.delete('inbox/list/0007.json');
    expect(await t.inbox.getText('inbox/list/0007.json')).toBeNull();
  });
});
