// The judge's adapter wiring: the verdict written to DynamoDB and the audit to S3 through the real SDK, the
// GitHub App's installation token over the wire, a GitHub request that never answers failing on the SDK's
// timeout, the cap across spaces kept by the table's atomic counters, and a repository allowlist keeping
// GitHub from being asked about an unlisted repository. The judge's rules are tested against in-memory ports:
// test/unit/core/judge/judge-run.test.ts, judge-budget-and-cost.test.ts and judge-all-spaces-cap.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { judgeRun } from '#core/judge/judge-run.ts';
import { utcDay } from '#core/judge/transitions.ts';
import { GitHubReferenceSource } from '#adapters/github-reference-source.ts';
import type { RunRow } from '#schema/run.ts';
import { APP, goodAnswer, startJudgeWorld, type JudgeWorld, REFERENCE_DIFF_WITH_LOCK_FILES } from '../helpers/judge.ts';
import { budgetCalls } from '../helpers/in-memory-ports.ts';

const BASE = 'a'.repeat(40);
const MERGE = 'b'.repeat(40);
const ISSUE_TEXT = 'Widgets crash on empty input. Customer ACME-SECRET-CLIENT saw it in production.';

const config = {
  defaultJudgeModel: 'claude-test-judge',
  spaces: {
    Main: { senders: ['mac-studio-1'] },
    Slow: { senders: ['mac-studio-1'], judge: { maxAttempts: 2, retryBaseSeconds: 60 } },
    Listed: { senders: ['mac-studio-1'], repos: ['Acme/Widgets'] },
  },
};

let w: JudgeWorld;
beforeAll(async () => {
  w = await startJudgeWorld(config);
  w.github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: ISSUE_TEXT });
  w.github.setIssue('evil/elsewhere', 42, { title: 'Elsewhere', body: 'Private.' });
  w.github.setCompare('acme/widgets', BASE, MERGE, REFERENCE_DIFF_WITH_LOCK_FILES);
});
afterAll(() => w.stop());

const row = async (space: string, id: string): Promise<RunRow> => (await w.stores.store.getRun(space, id))!.value;

describe('judging a landed run', () => {
  it('writes the verdict with the model, the time and both same-files values, and keeps an audit beside the patch', async () => {
    await w.putIssue('Main', 'verdict-1');
    w.answer = () => goodAnswer({ sameFilesAsReference: false });
    const message = await w.land('Main', { taskId: 'verdict-1' });
    const outcome = await judgeRun(w.deps(), message);
    expect(outcome).toMatchObject({ result: 'judged', modelCall: 'answered' });
    const judged = await row('Main', message.id);
    expect(judged).toMatchObject({
      judgeVerdict: 'resolved',
      judgeRootCauseFound: true,
      judgeSameFilesAsReference: false,
      judgeSameFilesComputed: true,
      judgeTestAdded: false,
      judgeWouldCompile: true,
      judgeReason: 'Fixes the null check like the reference.',
      judgeModel: 'claude-test-judge',
      judgedAt: w.now.toISOString(),
      judgeAttempts: 1,
      judgeNextAttemptAt: null,
      judgeState: 'judged',
      judgeLastError: null,
    });

    const request = w.anthropic.requests.at(-1)!;
    expect(request.model).toBe('claude-test-judge');
    expect(request.body.tools).toBeUndefined();
    expect(request.userText).toContain(ISSUE_TEXT);

    const prefix = judged.textsKey!.slice(0, judged.textsKey!.lastIndexOf('/'));
    const auditKeys = (await w.stores.data.list(prefix)).filter((k) => k.includes('/judge-'));
    expect(auditKeys).toHaveLength(1);
    const auditText = (await w.stores.data.getText(auditKeys[0]!))!;
    const audit = JSON.parse(auditText) as Record<string, unknown>;
    expect(audit).toMatchObject({
      model: 'claude-test-judge',
      attempt: 1,
      answer: goodAnswer({ sameFilesAsReference: false }),
      parsed: { verdict: 'resolved' },
    });
    expect(audit.promptSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(audit.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      cacheWriteTokens: expect.any(Number),
      cacheReadTokens: expect.any(Number),
    });
    expect(audit.latencyMs).toEqual(expect.any(Number));
    // The issue text may name clients: it is used, never stored.
    expect(auditText).not.toContain('ACME-SECRET-CLIENT');
    for (const key of await w.stores.data.list(''))
      expect(await w.stores.data.getText(key)).not.toContain('ACME-SECRET-CLIENT');
  });

  it('asks GitHub for an installation token naming the one repository with read-only permissions', async () => {
    await w.putIssue('Main', 'token-1');
    await judgeRun(w.deps(), await w.land('Main', { taskId: 'token-1' }));
    expect(w.github.tokenRequests.length).toBeGreaterThan(0);
    for (const request of w.github.tokenRequests) {
      expect(request).toEqual({
        installationId: '77',
        repositories: ['widgets'],
        permissions: { contents: 'read', issues: 'read' },
      });
    }
    const dataRequests = w.github.requests.filter((r) => r.path.startsWith('/repos/'));
    expect(dataRequests.map((r) => r.credential)).toEqual(dataRequests.map(() => 'installation-token'));
  });
});

describe('outbound calls with a deadline', () => {
  it('fails an attempt whose GitHub request never answers, on its timeout, and retries it on schedule', async () => {
    await w.putIssue('Slow', 'hang-1', 'acme/widgets', { baseSha: 'e'.repeat(40), mergeSha: 'f'.repeat(40) });
    const message = await w.land('Slow', { taskId: 'hang-1' });
    w.github.setHanging(true);
    try {
      const reference = new GitHubReferenceSource(
        { kind: 'app', appId: APP.appId, installationId: APP.installationId, privateKey: w.privateKey },
        w.github.url,
        { timeoutMs: 300 },
      );
      expect(await judgeRun(w.deps({ reference: async () => reference }), message)).toMatchObject({
        result: 'attempt-failed',
        problem: { code: 'github-timeout' },
      });
    } finally {
      w.github.setHanging(false);
    }
    const r = await row('Slow', message.id);
    expect(r).toMatchObject({
      judgeAttempts: 1,
      judgeState: 'retry-scheduled',
      judgeLastError: { code: 'github-timeout' },
    });
    expect(r.judgeNextAttemptAt).toBe(new Date(w.now.getTime() + 60_000).toISOString());
  });
});

describe('the daily cap across all spaces', () => {
  it("is kept by the table's atomic counters among concurrent invocations, the refused space given its unit back", async () => {
    // A day of its own, so the shared counter holds only this test's calls.
    w.advance(24 * 3600);
    // Three spaces of 200 share 4 calls: 2 each (rounded up), 6 in all; the shared counter stops at 4.
    const config = { ...w.config, judgeDailyCapAllSpaces: 4 };
    const messages = [];
    for (const [space, taskId] of [
      ['Main', 'all-1'],
      ['Main', 'all-2'],
      ['Slow', 'all-3'],
      ['Slow', 'all-4'],
      ['Listed', 'all-5'],
      ['Listed', 'all-6'],
    ] as const) {
      await w.putIssue(space, taskId);
      messages.push(await w.land(space, { taskId }));
    }
    const outcomes = await Promise.all(messages.map((m) => judgeRun(w.deps({ config }), m)));
    expect(outcomes.filter((o) => o.result === 'judged')).toHaveLength(4);
    const refused = messages.filter((_, i) => outcomes[i]!.result === 'waiting-budget');
    expect(refused).toHaveLength(2);
    for (const m of refused)
      expect((await row(m.space, m.id)).judgeLastError).toMatchObject({ code: 'all-spaces-daily-cap-reached' });
    const day = utcDay(w.now);
    const calls = await Promise.all(['Main', 'Slow', 'Listed'].map((s) => budgetCalls(w.stores.store, s, day)));
    expect(calls.reduce((a, b) => a + b, 0)).toBe(4);
  });
});

describe('GitHub limiting the rate', () => {
  it.each([
    ['429 with retry-after', 429 as const, () => ({ 'retry-after': '120' }), 120],
    [
      '403 with x-ratelimit-remaining 0',
      403 as const,
      () => ({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 300) }),
      300,
    ],
  ])(
    'leaves a run waiting-github on %s, with no attempt spent and the budget given back',
    async (_, status, headers, seconds) => {
      const taskId = `limited-${status}`;
      await w.putIssue('Main', taskId);
      const message = await w.land('Main', { taskId });
      const day = utcDay(w.now);
      const callsBefore = await budgetCalls(w.stores.store, 'Main', day);
      w.github.setRateLimited({ status, headers: headers() });
      try {
        expect(await judgeRun(w.deps(), message)).toMatchObject({ result: 'waiting-github' });
      } finally {
        w.github.setRateLimited(null);
      }
      const r = await row('Main', message.id);
      expect(r).toMatchObject({
        judgeState: 'waiting-github',
        judgeAttempts: 0,
        judgeLastError: { code: 'github-rate-limited' },
      });
      // The wait GitHub named (the reset time is read against the wall clock, so it may be a second less).
      const waited = (Date.parse(r.judgeNextAttemptAt!) - w.now.getTime()) / 1000;
      expect(waited).toBeGreaterThanOrEqual(seconds - 2);
      expect(waited).toBeLessThanOrEqual(seconds);
      expect(await budgetCalls(w.stores.store, 'Main', day)).toBe(callsBefore);
    },
  );
});

// The space's repository allowlist (docs/contract.md §5): GitHub is never asked about an unlisted repository.
describe('a space with a repository allowlist', () => {
  it('leaves a run whose stored issue names an unlisted repository waiting-issue, without asking GitHub or the model', async () => {
    await w.putIssue('Listed', 'moved-away', 'evil/elsewhere');
    const message = await w.land('Listed', { taskId: 'moved-away' });
    const githubBefore = w.github.requests.length;
    const modelBefore = w.anthropic.requests.length;
    const outcome = await judgeRun(w.deps(), message);
    expect(outcome.result).toBe('waiting-issue');
    expect(w.github.requests.length).toBe(githubBefore);
    expect(w.github.tokenRequests.some((t) => (t.repositories ?? []).includes('elsewhere'))).toBe(false);
    expect(w.anthropic.requests.length).toBe(modelBefore);
    const stored = await row('Listed', message.id);
    expect(stored).toMatchObject({
      judgeState: 'waiting-issue',
      judgeAttempts: 0,
      judgeLastError: { code: 'repo-not-allowed' },
    });
    expect(stored.judgeLastError?.message).toMatch(/evil\/elsewhere/);
  });

  it('judges a run whose repository is listed, whatever its case', async () => {
    await w.putIssue('Listed', 'listed', 'acme/widgets');
    const message = await w.land('Listed', { taskId: 'listed' });
    expect((await judgeRun(w.deps(), message)).result).toBe('judged');
  });
});
