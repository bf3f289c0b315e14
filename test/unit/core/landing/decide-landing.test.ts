import { describe, expect, it } from '@jest/globals';
import { decideLanding, landingCase, pickJudgeFields, type IncomingRun } from '#core/landing/decide.ts';
import { fitsInRow } from '#core/landing/bounds.ts';
import { runnerRowSchema, type RunRow } from '#schema/run.ts';
import { runnerRow } from '../../../helpers/deliveries.ts';

const NOW = '2026-11-29T12:00:00.000Z';

function incoming(overrides: Record<string, unknown> = {}, patch: Partial<IncomingRun> = {}): IncomingRun {
  return {
    space: 'S',
    id: 'run-1',
    deliveryId: 'd1',
    row: runnerRowSchema.parse(runnerRow(overrides)),
    patchSha256: 'sha-A',
    patch: 'present',
    patchTruncated: false,
    textsKey: 't',
    contaminationKey: null,
    acceptedAt: '2026-11-28T00:00:00.000Z',
    pinnedOwners: null,
    pinnedName: false,
    ...patch,
  };
}

function landed(overrides: Record<string, unknown> = {}, patch: Partial<IncomingRun> = {}): RunRow {
  const decision = decideLanding(null, incoming(overrides, patch), '2026-11-28T00:00:00.000Z', null);
  if (decision.kind !== 'write') throw new Error('expected a write');
  return decision.row;
}

const judged = (row: RunRow): RunRow => ({
  ...row,
  judgeVerdict: 'resolved',
  judgeState: 'judged',
  judgedAt: '2026-11-28T01:00:00.000Z',
  judgeAttempts: 1,
  judgeNextAttemptAt: null,
  judgeModel: 'm',
});
const hidden = { status: 'pass' as const, ranAt: '2026-11-28T02:00:00.000Z' };
/** A landed run whose first attempt waits for Message Batch msgbatch_1. */
const waitingForBatch = (): RunRow => ({
  ...landed(),
  judgeState: 'waiting-batch',
  judgeBatchId: 'msgbatch_1',
  judgeAttempts: 1,
  judgeNextAttemptAt: '2026-11-30T00:00:00.000Z',
});

describe('landing a run delivery', () => {
  it('creates a new row waiting for the judge, due now', () => {
    const decision = decideLanding(null, incoming(), NOW, null);
    expect(decision).toMatchObject({
      kind: 'write',
      case: 'new',
      row: { judgeState: 'pending', judgeNextAttemptAt: NOW, landedAt: NOW, deliveries: ['d1'], judgeVerdict: null },
    });
  });

  it('keeps the verdict on a retry (same finishedAt, same patch) and replaces the measurements', () => {
    const current = { ...judged(landed()), hiddenTestResult: hidden };
    const decision = decideLanding(current, incoming({ steps: 99 }, { deliveryId: 'd2' }), NOW, null);
    expect(decision).toMatchObject({
      kind: 'write',
      case: 'retry',
      row: {
        steps: 99,
        judgeVerdict: 'resolved',
        judgeState: 'judged',
        hiddenTestResult: hidden,
        deliveries: ['d1', 'd2'],
      },
    });
    expect(decision.kind === 'write' && decision.row.landedAt).toBe(current.landedAt);
  });

  it('counts a repeated delivery id once and changes nothing when the retry is identical', () => {
    const current = judged(landed());
    expect(decideLanding(current, incoming(), NOW, null)).toEqual({ kind: 'unchanged', row: current });
  });

  it('keeps the first accepted patch of one finishedAt: another patch accepted later is a conflict, changing nothing', () => {
    const current = judged(landed());
    const later = incoming({}, { patchSha256: 'sha-B', deliveryId: 'd2', acceptedAt: '2026-11-28T00:00:01.000Z' });
    expect(landingCase(current, later)).toBe('conflict');
    expect(decideLanding(current, later, NOW, null)).toEqual({ kind: 'conflict' });
  });

  it('makes a patch of the same finishedAt accepted before the current one current, to be judged afresh', () => {
    const current = judged(landed({}, { patchSha256: 'sha-B', acceptedAt: '2026-11-28T00:00:05.000Z' }));
    const earlier = incoming({}, { deliveryId: 'd2', acceptedAt: '2026-11-28T00:00:01.000Z' });
    expect(
      decideLanding(current, earlier, NOW, null, { count: 0, first: null, conflicts: 1, foreign: 0 }),
    ).toMatchObject({
      kind: 'write',
      case: 'displaces',
      row: {
        patchSha256: 'sha-A',
        judgeVerdict: null,
        judgeState: 'pending',
        acceptedAt: '2026-11-28T00:00:01.000Z',
        conflictCount: 1,
      },
    });
  });

  it('breaks a tie of acceptance instants by the lower patch hash, and counts a row landed before acceptance was recorded as first', () => {
    const at = '2026-11-28T00:00:00.000Z';
    const current = landed({}, { patchSha256: 'sha-B', acceptedAt: at });
    expect(landingCase(current, incoming({}, { patchSha256: 'sha-A', acceptedAt: at }))).toBe('displaces');
    expect(landingCase(current, incoming({}, { patchSha256: 'sha-C', acceptedAt: at }))).toBe('conflict');
    const { acceptedAt: _none, ...legacy } = current;
    expect(landingCase(legacy, incoming({}, { patchSha256: 'sha-A', acceptedAt: at }))).toBe('conflict');
  });

  it('keeps the earliest acceptance of a retried attempt', () => {
    const current = landed({}, { acceptedAt: '2026-11-28T00:00:05.000Z' });
    const decision = decideLanding(
      current,
      incoming({}, { deliveryId: 'd2', acceptedAt: '2026-11-28T00:00:01.000Z' }),
      NOW,
      null,
    );
    expect(decision).toMatchObject({ kind: 'write', case: 'retry', row: { acceptedAt: '2026-11-28T00:00:01.000Z' } });
    const replay = decideLanding(current, incoming({}, { acceptedAt: '2026-11-28T00:00:09.000Z' }), NOW, null);
    expect(replay).toEqual({ kind: 'unchanged', row: current });
  });

  it('clears the verdict and the hidden-test result on a later finishedAt', () => {
    const current = { ...judged(landed()), hiddenTestResult: hidden };
    const decision = decideLanding(
      current,
      incoming({ finishedAt: '2026-11-21T10:00:00Z' }, { patchSha256: 'sha-B' }),
      NOW,
      null,
    );
    expect(decision).toMatchObject({
      kind: 'write',
      case: 'rerun',
      row: { judgeVerdict: null, judgedAt: null, judgeAttempts: 0, hiddenTestResult: null, landedAt: NOW },
    });
  });

  it('changes nothing for an older delivery', () => {
    const current = landed({ finishedAt: '2026-11-21T10:00:00Z' });
    expect(decideLanding(current, incoming(), NOW, null)).toEqual({ kind: 'stale' });
  });

  it('compares finishedAt as instants, not as the strings sent', () => {
    const current = landed({ finishedAt: '2026-11-20T10:12:00Z' });
    expect(decideLanding(current, incoming({ finishedAt: '2026-11-20T12:00:00+02:00' }), NOW, null)).toEqual({
      kind: 'stale',
    });
  });

  it('excludes a contaminated run without a judge call, overriding a kept verdict', () => {
    const current = judged(landed());
    const decision = decideLanding(
      current,
      incoming({ contamination: [{ step: 4, path: '/Users/runner/other-run' }] }),
      NOW,
      null,
    );
    expect(decision).toMatchObject({
      kind: 'write',
      row: { judgeVerdict: 'excluded', judgeState: 'not-needed', judgeNextAttemptAt: null },
    });
  });

  it('marks an empty patch no_change without a judge call', () => {
    const decision = decideLanding(null, incoming({}, { patch: 'empty' }), NOW, null);
    expect(decision).toMatchObject({
      kind: 'write',
      row: { judgeVerdict: 'no_change', judgeState: 'not-needed', judgeNextAttemptAt: null },
    });
  });

  it('excludes a run whose source recorded no patch, without a judge call, so it stays outside n', () => {
    const decision = decideLanding(null, incoming({}, { patch: 'not-recorded' }), NOW, null);
    expect(decision).toMatchObject({
      kind: 'write',
      row: {
        judgeVerdict: 'excluded',
        judgeState: 'not-needed',
        judgeNextAttemptAt: null,
        judgeReason: 'Its source recorded no patch: there is nothing to judge.',
      },
    });
  });

  it('prefers excluded over no_change when both apply', () => {
    const decision = decideLanding(
      null,
      incoming({ contamination: [{ step: 1, path: '/x' }] }, { patch: 'empty' }),
      NOW,
      null,
    );
    expect(decision.kind === 'write' && decision.row.judgeVerdict).toBe('excluded');
  });

  it('applies a hidden-test result that arrived before its run only when finishedAt matches', () => {
    const F = '2026-11-20T10:12:00.000Z';
    expect(decideLanding(null, incoming(), NOW, { finishedAt: F, hiddenTestResult: hidden })).toMatchObject({
      row: { hiddenTestResult: hidden },
    });
    expect(
      decideLanding(null, incoming(), NOW, { finishedAt: '2026-11-19T00:00:00.000Z', hiddenTestResult: hidden }),
    ).toMatchObject({ row: { hiddenTestResult: null } });
  });

  it('drops a kept no-call verdict on a retry whose contamination is gone, and sends the run to the judge', () => {
    const excluded = landed({ contamination: [{ step: 4, path: '/Users/runner/other-run' }] });
    expect(excluded).toMatchObject({ judgeVerdict: 'excluded', judgeState: 'not-needed' });
    const decision = decideLanding(excluded, incoming({ contamination: [] }, { deliveryId: 'd2' }), NOW, null);
    expect(decision).toMatchObject({
      kind: 'write',
      case: 'retry',
      row: { judgeVerdict: null, judgeState: 'pending', judgeNextAttemptAt: NOW, judgeReason: null },
    });
  });

  describe('a no-call verdict on a retry of a judged attempt', () => {
    const contaminated = { contamination: [{ step: 4, path: '/Users/runner/other-run' }] };
    const retry = (row: RunRow, overrides: Record<string, unknown>, deliveryId: string) => {
      const decision = decideLanding(row, incoming(overrides, { deliveryId }), NOW, null);
      if (decision.kind !== 'write') throw new Error(`expected a write, got ${decision.kind}`);
      return decision.row;
    };
    const judgeOf = (row: RunRow) => pickJudgeFields(row);

    it('sets the verdict aside and gives it back, so one patch is never judged twice', () => {
      const wrong = { ...judged(landed()), judgeVerdict: 'wrong' as const, judgeCostUsd: 0.02 };
      const excluded = retry(wrong, contaminated, 'd2');
      expect(excluded).toMatchObject({ judgeVerdict: 'excluded', judgeState: 'not-needed', judgeAttempts: 1 });
      expect(excluded.judgeSetAside).toEqual(judgeOf(wrong));
      // Still contaminated: still set aside.
      expect(retry(excluded, contaminated, 'd3').judgeSetAside).toEqual(judgeOf(wrong));
      const clean = retry(excluded, {}, 'd4');
      expect(judgeOf(clean)).toEqual(judgeOf(wrong));
      expect(clean.judgeSetAside).toBeNull();
    });

    it('keeps a flagged answer flagged: it is never judged again', () => {
      const flagged = {
        ...judged(landed()),
        judgeVerdict: null,
        judgeState: 'flagged' as const,
        judgeFlags: ['judge-override'],
      };
      const clean = retry(retry(flagged, contaminated, 'd2'), {}, 'd3');
      expect(clean).toMatchObject({ judgeState: 'flagged', judgeVerdict: null, judgeFlags: ['judge-override'] });
    });

    it('gives a run the judge had not decided back as it waited: its batch, attempts and cost kept', () => {
      const waiting = { ...waitingForBatch(), judgeAttempts: 2, judgeCostUsd: 0.01 };
      const excluded = retry(waiting, contaminated, 'd2');
      // The same contaminated delivery again changes nothing.
      expect(decideLanding(excluded, incoming(contaminated, { deliveryId: 'd2' }), NOW, null).kind).toBe('unchanged');
      const clean = retry(excluded, {}, 'd3');
      expect(pickJudgeFields(clean)).toEqual(pickJudgeFields(waiting));
    });

    it('sets nothing aside for a run never judged', () => {
      expect(retry(landed(), contaminated, 'd2').judgeSetAside).toBeNull();
    });
  });

  it('keeps the batch a retried run waits for', () => {
    const decision = decideLanding(waitingForBatch(), incoming({ steps: 99 }, { deliveryId: 'd2' }), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', row: { judgeState: 'waiting-batch', judgeBatchId: 'msgbatch_1' } });
  });

  it('keeps the first 100 contamination entries with their texts cut to 300 characters, and counts them all', () => {
    const list = Array.from({ length: 300 }, (_, i) => ({
      step: i,
      path: `/runs/other-${i}/${'x'.repeat(400)}`,
      reason: 'r'.repeat(500),
    }));
    const decision = decideLanding(
      null,
      incoming({ contamination: list }, { contaminationKey: 'full-list' }),
      NOW,
      null,
    );
    if (decision.kind !== 'write') throw new Error('expected a write');
    expect(decision.row.contamination).toHaveLength(100);
    expect(decision.row.contamination.every((c) => c.path.length === 300 && c.reason!.length === 300)).toBe(true);
    expect(decision.row).toMatchObject({
      contaminationCount: 300,
      contaminationKey: 'full-list',
      judgeVerdict: 'excluded',
    });
  });

  it('keeps the last 20 delivery ids and counts every distinct one', () => {
    let row = landed();
    for (let i = 2; i <= 30; i++) {
      const decision = decideLanding(row, incoming({}, { deliveryId: `d${i}` }), NOW, null);
      if (decision.kind !== 'write') throw new Error('expected a write');
      row = decision.row;
    }
    expect(row.deliveries).toHaveLength(20);
    expect(row.deliveries.at(-1)).toBe('d30');
    expect(row.deliveryCount).toBe(30);
  });

  it('counts the archived attempts and names the first one when it is earlier', () => {
    const archived = {
      count: 2,
      first: { finishedAt: '2026-11-01T00:00:00.000Z', judgeVerdict: 'wrong' as const },
      conflicts: 0,
      foreign: 0,
    };
    expect(decideLanding(null, incoming(), NOW, null, archived)).toMatchObject({
      row: { attemptCount: 3, firstAttempt: archived.first },
    });
    expect(decideLanding(null, incoming(), NOW, null)).toMatchObject({ row: { attemptCount: 1, firstAttempt: null } });
  });
});

describe('the row bounds', () => {
  it('refuses only a row that would not fit even with its contamination bounded', () => {
    const row = runnerRowSchema.parse(runnerRow());
    expect(
      fitsInRow({
        ...row,
        contamination: Array.from({ length: 5000 }, (_, i) => ({ step: i, path: 'p'.repeat(2000) })),
      }),
    ).toBe(true);
    expect(fitsInRow({ ...row, hostHardware: 'h'.repeat(400_000) })).toBe(false);
  });
});
