// The space's repository allowlist in the judge (docs/contract.md §5): GitHub is never asked about an unlisted repository.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { judgeRun } from '../../shared/core/judge/judge-run.ts';
import { startJudgeWorld, type JudgeWorld } from '../helpers/judge.ts';

const config = {
  defaultJudgeModel: 'claude-test-judge',
  spaces: { Listed: { senders: ['mac-studio-1'], repos: ['Acme/Widgets'] } },
};

let w: JudgeWorld;
beforeAll(async () => {
  w = await startJudgeWorld(config);
  w.github.setIssue('acme/widgets', 42, { title: 'Widgets crash', body: 'It crashes.' });
  w.github.setIssue('evil/elsewhere', 42, { title: 'Elsewhere', body: 'Private.' });
  w.github.setCompare(
    'acme/widgets',
    'a'.repeat(40),
    'b'.repeat(40),
    'diff --git a/src/widget.ts b/src/widget.ts\n+b\n',
  );
});
afterAll(() => w.stop());

describe('a space with a repository allowlist', () => {
  it('leaves a run whose stored issue names an unlisted repository waiting-issue, without asking GitHub or the model', async () => {
    await w.putIssue('Listed', 'moved-away', 'evil/elsewhere');
    const message = await w.land('Listed', { taskId: 'moved-away' });
    const githubBefore = w.github.requests.length;
    const outcome = await judgeRun(w.deps(), message);
    expect(outcome.result).toBe('waiting-issue');
    expect(w.github.requests.length).toBe(githubBefore);
    expect(w.github.tokenRequests.some((t) => (t.repositories ?? []).includes('elsewhere'))).toBe(false);
    expect(w.anthropic.requests).toHaveLength(0);
    const row = (await w.stores.store.getRun('Listed', message.id))!.value;
    expect(row).toMatchObject({
      judgeState: 'waiting-issue',
      judgeAttempts: 0,
      judgeLastError: { code: 'repo-not-allowed' },
    });
    expect(row.judgeLastError?.message).toMatch(/evil\/elsewhere/);
  });

  it('judges a run whose repository is listed, whatever its case', async () => {
    await w.putIssue('Listed', 'listed', 'acme/widgets');
    const message = await w.land('Listed', { taskId: 'listed' });
    expect((await judgeRun(w.deps(), message)).result).toBe('judged');
  });
});
