// The judge's pure rules: strict answers, retry backoff, waiting states and the verdict mapping.
import { describe, expect, it } from '@jest/globals';
import { parseJudgeAnswer } from '#core/judge/answer.ts';
import {
  attemptsExhausted,
  claimed,
  failedAttempt,
  isDecided,
  nextUtcDay,
  retryDelaySeconds,
  returnedAttempt,
  utcDay,
  verdict,
  withCallCost,
} from '#core/judge/transitions.ts';
import { verdictChecks, type VerdictChecks } from '#core/judge/verdict-checks.ts';
import { parseAnthropicSecret, parseGitHubAppSecret } from '#adapters/aws/judge-services.ts';
import type { RunRow } from '#schema/run.ts';
import { runRow } from '../../../helpers/records.ts';

const answer = {
  verdict: 'partial',
  rootCauseFound: true,
  sameFilesAsReference: false,
  testAdded: true,
  wouldCompile: true,
  reason: 'Half of it.',
};
const row = (overrides: Partial<RunRow> = {}): RunRow => runRow({}, overrides);
const NOW = new Date('2026-11-29T23:59:30.000Z');
const checks = (overrides: Partial<VerdictChecks> = {}): VerdictChecks => ({
  screenHits: [],
  sameFiles: true,
  sharesReferenceFile: true,
  changesTest: false,
  ...overrides,
});

describe('the judge answer', () => {
  it('accepts exactly one JSON object of the docs/contract.md §10 shape', () => {
    expect(parseJudgeAnswer(`  ${JSON.stringify(answer)}\n`, '')).toEqual({ ok: true, answer });
  });

  it.each([
    ['prose around the object', `Here you go: ${JSON.stringify(answer)}`],
    ['a code fence', '```json\n' + JSON.stringify(answer) + '\n```'],
    ['two objects', JSON.stringify(answer) + JSON.stringify(answer)],
    ['an array', JSON.stringify([answer])],
    ['a verdict the judge may not give', JSON.stringify({ ...answer, verdict: 'error' })],
    ['a missing field', JSON.stringify({ ...answer, testAdded: undefined })],
    ['an unknown field', JSON.stringify({ ...answer, confidence: 0.9 })],
    ['a string where a boolean belongs', JSON.stringify({ ...answer, wouldCompile: 'yes' })],
    ['an empty reason', JSON.stringify({ ...answer, reason: ' ' })],
    ['nothing', ''],
  ])('refuses %s', (_what, text) => {
    const parsed = parseJudgeAnswer(text, '');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(/^The judge model/);
  });

  it('describes a wrong shape by key, without quoting the answer', () => {
    const parsed = parseJudgeAnswer(JSON.stringify({ ...answer, verdict: 'SECRET-VALUE' }), '');
    expect(parsed).toEqual({ ok: false, problem: expect.stringContaining('verdict') });
    expect(JSON.stringify(parsed)).not.toContain('SECRET-VALUE');
  });
});

describe('attempts and backoff', () => {
  it('waits 15 min, 30 min, 1 h, … with the default base', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelaySeconds(n, 900))).toEqual([900, 1800, 3600, 7200, 14400]);
  });

  it('counts an attempt when it is claimed, and gives it back when the attempt only waited', () => {
    const taken = claimed(row({ judgeAttempts: 2 }), NOW, 300);
    expect(taken).toEqual({ judgeAttempts: 3, judgeState: 'pending', judgeNextAttemptAt: '2026-11-30T00:04:30.000Z' });
    expect(returnedAttempt(row(taken))).toEqual({ judgeAttempts: 2 });
    expect(returnedAttempt(row({ judgeAttempts: 0 }))).toEqual({ judgeAttempts: 0 });
  });

  it('schedules the retry of a failed (already counted) attempt and keeps the problem', () => {
    const problem = { code: 'provider-http-500', message: 'The judge model provider answered HTTP 500.' };
    expect(
      failedAttempt(row({ judgeAttempts: 3 }), problem, { maxAttempts: 6, retryBaseSeconds: 900 }, 'm', NOW),
    ).toEqual({
      judgeNextAttemptAt: '2026-11-30T00:59:30.000Z',
      judgeState: 'retry-scheduled',
      judgeLastError: problem,
    });
  });

  it('turns the last allowed failure into the verdict error', () => {
    const problem = { code: 'unparsable-answer', message: 'The judge model did not answer with one JSON object.' };
    const fields = failedAttempt(
      row({ judgeAttempts: 6 }),
      problem,
      { maxAttempts: 6, retryBaseSeconds: 900 },
      'm',
      NOW,
    );
    expect(fields).toMatchObject({
      judgeVerdict: 'error',
      judgeState: 'error',
      judgeNextAttemptAt: null,
      judgeModel: 'm',
      judgeLastError: problem,
    });
    expect(fields.judgeReason).toContain('6 failed attempts');
    expect(isDecided(row(fields))).toBe(true);
  });

  it('gives up with the verdict error when every attempt was claimed and none finished', () => {
    const fields = attemptsExhausted(row({ judgeAttempts: 6 }), 'm', NOW);
    expect(fields).toMatchObject({
      judgeVerdict: 'error',
      judgeState: 'error',
      judgeNextAttemptAt: null,
      judgeLastError: { code: 'attempts-exhausted' },
    });
    expect(fields.judgeReason).toContain('All 6 judge attempts were claimed and none finished');
  });

  it('adds the cost of each call to the run, and stays unknown once a part is unknown', () => {
    expect(withCallCost(row({ judgeCostUsd: 0.25 }), 0.5)).toEqual({ judgeCostUsd: 0.75 });
    expect(withCallCost(row({ judgeCostUsd: 0.25 }), null)).toEqual({ judgeCostUsd: null });
    expect(withCallCost(row({ judgeCostUsd: null }), 0.5)).toEqual({ judgeCostUsd: null });
  });

  it('counts budget days in UTC and waits for the next one', () => {
    expect(utcDay(NOW)).toBe('2026-11-29');
    expect(nextUtcDay(NOW)).toBe('2026-11-30T00:00:00.000Z');
    expect(nextUtcDay(new Date('2026-12-31T00:00:00.000Z'))).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('the verdict', () => {
  it('maps the answer, the model, the time and the computed same-files and test flags onto the row', () => {
    expect(verdict({ ...answer, verdict: 'partial' }, checks(), row({ judgeAttempts: 2 }), 'claude-x', NOW)).toEqual({
      judgeVerdict: 'partial',
      judgeRootCauseFound: true,
      judgeSameFilesAsReference: false,
      judgeSameFilesComputed: true,
      judgeTestAdded: true,
      judgeTestAddedComputed: false,
      judgeWouldCompile: true,
      judgeReason: 'Half of it.',
      judgeModel: 'claude-x',
      judgedAt: NOW.toISOString(),
      judgeNextAttemptAt: null,
      judgeState: 'judged',
      judgeLastError: null,
      judgeFlags: [],
    });
  });

  it('withholds a flagged "resolved": no verdict, state flagged, the rules and the answer kept, never judged again', () => {
    const fields = verdict(
      { ...answer, verdict: 'resolved' },
      checks({ screenHits: ['judge-override'] }),
      row(),
      'claude-x',
      NOW,
    );
    expect(fields).toMatchObject({
      judgeVerdict: null,
      judgeState: 'flagged',
      judgeFlags: ['judge-override'],
      judgeReason: 'Half of it.',
      judgeNextAttemptAt: null,
    });
    expect(isDecided({ ...row(), ...fields })).toBe(true);
  });

  it('keeps any other verdict, with the screen hits beside it', () => {
    expect(
      verdict({ ...answer, verdict: 'wrong' }, checks({ screenHits: ['verdict-instruction'] }), row(), 'claude-x', NOW),
    ).toMatchObject({ judgeVerdict: 'wrong', judgeState: 'judged', judgeFlags: ['verdict-instruction'] });
  });

  it('computes same files from both diffs, lock files aside', () => {
    const ref = 'diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n';
    const withLock = `${ref}diff --git a/yarn.lock b/yarn.lock\n--- a/yarn.lock\n+++ b/yarn.lock\n@@ -1 +1 @@\n-1\n+2\n`;
    const other = 'diff --git a/src/b.ts b/src/b.ts\n--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1 +1 @@\n-x\n+y\n';
    const sameFiles = (candidate: string) =>
      verdictChecks(candidate, '', { diff: ref, omittedLockFiles: [] }, '').sameFiles;
    expect(sameFiles(withLock)).toBe(true);
    expect(sameFiles(other)).toBe(false);
    expect(sameFiles(ref + other)).toBe(false);
  });
});

describe('judge credentials from a secret', () => {
  it('reads an Anthropic key as plain text or {"apiKey"}, and nothing else', () => {
    expect(parseAnthropicSecret(' sk-ant-1 \n')).toBe('sk-ant-1');
    expect(parseAnthropicSecret('{"apiKey":"sk-ant-2"}')).toBe('sk-ant-2');
    expect(parseAnthropicSecret('')).toBeNull();
    expect(parseAnthropicSecret('{"key":"x"}')).toBeNull();
  });

  it('reads the GitHub App as {"appId","privateKey","installationId"}', () => {
    expect(parseGitHubAppSecret('{"appId":12,"privateKey":"-----BEGIN","installationId":"34"}')).toEqual({
      kind: 'app',
      appId: '12',
      privateKey: '-----BEGIN',
      installationId: '34',
    });
    expect(parseGitHubAppSecret('{"appId":12}')).toBeNull();
    expect(parseGitHubAppSecret('not json')).toBeNull();
  });
});
