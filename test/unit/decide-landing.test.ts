import { describe, expect, it } from '@jest/globals';
import { decideLanding, type IncomingRun } from '../../shared/landing/decide.ts';
import { runnerRowSchema, type RunRow } from '../../shared/schema/run.ts';
import { runnerRow, type RunRowInput } from '../helpers/deliveries.ts';

const NOW = '2026-11-29T12:00:00.000Z';

function incoming(overrides: RunRowInput = {}, patch: Partial<IncomingRun> = {}): IncomingRun {
  return {
    space: 'S',
    id: 'run-1',
    deliveryId: 'd1',
    row: runnerRowSchema.parse(runnerRow(overrides)),
    patchSha256: 'sha-A',
    patchEmpty: false,
    patchTruncated: false,
    patchKey: 'p',
    summaryKey: 's',
    ...patch,
  };
}

function landed(overrides: RunRowInput = {}, patch: Partial<IncomingRun> = {}): RunRow {
  const decision = decideLanding(null, incoming(overrides, patch), '2026-11-28T00:00:00.000Z', null);
  if (decision.kind !== 'write') throw new Error('expected a write');
  return decision.row;
}

const judged = (row: RunRow): RunRow => ({ ...row, judgeVerdict: 'resolved', judgeState: 'judged', judgedAt: '2026-11-28T01:00:00.000Z', judgeAttempts: 1, judgeNextAttemptAt: null, judgeModel: 'm' });
const hidden = { status: 'pass' as const, ranAt: '2026-11-28T02:00:00.000Z' };

describe('landing a run delivery', () => {
  it('creates a new row waiting for the judge, due now', () => {
    const decision = decideLanding(null, incoming(), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', case: 'new', row: { judgeState: 'pending', judgeNextAttemptAt: NOW, landedAt: NOW, deliveries: ['d1'], judgeVerdict: null } });
  });

  it('keeps the verdict on a retry (same finishedAt, same patch) and replaces the measurements', () => {
    const current = { ...judged(landed()), hiddenTestResult: hidden };
    const decision = decideLanding(current, incoming({ steps: 99 }, { deliveryId: 'd2' }), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', case: 'retry', row: { steps: 99, judgeVerdict: 'resolved', judgeState: 'judged', hiddenTestResult: hidden, deliveries: ['d1', 'd2'] } });
    expect(decision.kind === 'write' && decision.row.landedAt).toBe(current.landedAt);
  });

  it('counts a repeated delivery id once and changes nothing when the retry is identical', () => {
    const current = judged(landed());
    expect(decideLanding(current, incoming(), NOW, null)).toEqual({ kind: 'unchanged', row: current });
  });

  it('treats the same finishedAt with a different patch as a re-run', () => {
    const decision = decideLanding(judged(landed()), incoming({}, { patchSha256: 'sha-B', deliveryId: 'd2' }), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', case: 'rerun', row: { judgeVerdict: null, judgeState: 'pending', deliveries: ['d2'] } });
  });

  it('clears the verdict and the hidden-test result on a later finishedAt', () => {
    const current = { ...judged(landed()), hiddenTestResult: hidden };
    const decision = decideLanding(current, incoming({ finishedAt: '2026-11-21T10:00:00Z' }, { patchSha256: 'sha-B' }), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', case: 'rerun', row: { judgeVerdict: null, judgedAt: null, judgeAttempts: 0, hiddenTestResult: null, landedAt: NOW } });
  });

  it('changes nothing for an older delivery', () => {
    const current = landed({ finishedAt: '2026-11-21T10:00:00Z' });
    expect(decideLanding(current, incoming(), NOW, null)).toEqual({ kind: 'stale' });
  });

  it('compares finishedAt as instants, not as the strings sent', () => {
    const current = landed({ finishedAt: '2026-11-20T10:12:00Z' });
    expect(decideLanding(current, incoming({ finishedAt: '2026-11-20T12:00:00+02:00' }), NOW, null)).toEqual({ kind: 'stale' });
  });

  it('excludes a contaminated run without a judge call, overriding a kept verdict', () => {
    const current = judged(landed());
    const decision = decideLanding(current, incoming({ contamination: [{ step: 4, path: '/Users/runner/other-run' }] }), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', row: { judgeVerdict: 'excluded', judgeState: 'not-needed', judgeNextAttemptAt: null } });
  });

  it('marks an empty patch no_change without a judge call', () => {
    const decision = decideLanding(null, incoming({}, { patchEmpty: true }), NOW, null);
    expect(decision).toMatchObject({ kind: 'write', row: { judgeVerdict: 'no_change', judgeState: 'not-needed', judgeNextAttemptAt: null } });
  });

  it('prefers excluded over no_change when both apply', () => {
    const decision = decideLanding(null, incoming({ contamination: [{ step: 1, path: '/x' }] }, { patchEmpty: true }), NOW, null);
    expect(decision.kind === 'write' && decision.row.judgeVerdict).toBe('excluded');
  });

  it('applies a hidden-test result that arrived before its run only when finishedAt matches', () => {
    const F = '2026-11-20T10:12:00.000Z';
    expect(decideLanding(null, incoming(), NOW, { finishedAt: F, hiddenTestResult: hidden })).toMatchObject({ row: { hiddenTestResult: hidden } });
    expect(decideLanding(null, incoming(), NOW, { finishedAt: '2026-11-19T00:00:00.000Z', hiddenTestResult: hidden })).toMatchObject({ row: { hiddenTestResult: null } });
  });
});
