// The stand-ins the demo's judge talks to: `demo-oracle` on the Anthropic Messages protocol, which answers each
// run from its hidden-test outcome, and a GitHub stand-in serving placeholder issues and the original fixes.
import { rebuiltDiff } from '#shared/diff.ts';
import { blockEnd } from '#core/judge/prompt.ts';
import type { DemoCampaign, DemoRun } from './campaign.ts';
import { startAnthropicStandIn } from '#infra/local/stand-ins/anthropic-stand-in.ts';
import { startGitHubStandIn } from '#infra/local/stand-ins/github-stand-in.ts';

/** How much of a candidate patch identifies it: the judge's prompt may cut a long patch, never its head. */
const PATCH_HEAD_CHARS = 2000;
const patchHead = (patch: string) => patch.slice(0, PATCH_HEAD_CHARS).trimEnd();
const CANDIDATE_BLOCK = /<<<BEGIN_DATA candidate_patch nonce=([0-9a-f]+)>>>\n/;

/**
 * The stand-in judge finds the run it is asked about by the candidate patch in the prompt's candidate block
 * (the patch as the judge reads it: rebuilt from its parsed diff, shared/diff.ts)
 * (core/judge/prompt.ts). Runs with the same patch get the same answer, as they would from a judge.
 */
export function demoRunFinder(runs: DemoRun[]): (userText: string) => DemoRun | null {
  const byHead = new Map<string, DemoRun>();
  for (const run of runs) {
    const patch = run.delivery.patch as string | null;
    // A run whose source recorded no patch is never judged, so the judge is never asked about it.
    if (patch === null) continue;
    const head = patchHead(rebuiltDiff(patch));
    if (head && !byHead.has(head)) byHead.set(head, run);
  }
  return (userText) => {
    const block = CANDIDATE_BLOCK.exec(userText);
    if (!block) return null;
    const start = block.index + block[0].length;
    const end = userText.indexOf(blockEnd(block[1]!), start);
    return byHead.get(patchHead(userText.slice(start, end < 0 ? undefined : end))) ?? null;
  };
}

/**
 * What `demo-oracle` answers (docs/contract.md §10 judge answer): the hidden-test outcome, except for a fixed tenth
 * of runs where it disagrees on purpose, so the judge-against-tests view has something to show.
 */
export function oracleAnswer(run: Pick<DemoRun, 'token' | 'resolved'>): Record<string, unknown> {
  const draw = Number.parseInt(run.token.slice(0, 8), 16) / 0xffffffff;
  const verdict = run.resolved
    ? draw < 0.9
      ? 'resolved'
      : draw < 0.97
        ? 'partial'
        : 'wrong'
    : draw < 0.8
      ? 'wrong'
      : draw < 0.92
        ? 'partial'
        : 'resolved';
  const agrees = (verdict === 'resolved') === run.resolved;
  return {
    verdict,
    rootCauseFound: verdict !== 'wrong',
    sameFilesAsReference: verdict === 'resolved',
    testAdded: draw < 0.3,
    wouldCompile: verdict !== 'wrong' || draw < 0.5,
    reason:
      `demo-oracle stand-in: the hidden tests ${run.resolved ? 'passed' : 'failed'}, so it answers ${verdict}` +
      `${agrees ? '' : ' — a deliberate disagreement, as a real judge sometimes would'}. Not a model's judgement.`,
  };
}

export const DEMO_JUDGE_MODEL = 'demo-oracle';

/** The issue the stand-in GitHub serves for a task: a placeholder, as issue text is never part of the demo data. */
export const demoIssue = (taskId: string) => ({
  title: `Demo task ${taskId}`,
  body: 'Generated: the problem statement is not part of the demo data.',
});

export interface DemoJudge {
  /** Set before local mode starts: the judge reads them when its handler is imported. */
  env: Record<string, string>;
  anthropicUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the stand-ins the judge talks to: `demo-oracle` on the Anthropic Messages protocol, answering
 * from the hidden-test outcome, and a GitHub stand-in serving each task's issue (a placeholder: issue
 * text is never part of the demo data) and original fix (the campaign's, or a placeholder). Only runs of
 * this campaign get an answer.
 */
export async function startDemoJudge(campaign: DemoCampaign): Promise<DemoJudge> {
  const findRun = demoRunFinder(campaign.runs);
  const anthropic = await startAnthropicStandIn({
    answer: (request) => {
      const run = findRun(request.userText);
      return run
        ? JSON.stringify(oracleAnswer(run))
        : { status: 500, message: 'demo-oracle only knows the runs of the demo campaign.' };
    },
  });
  const token = 'demo-github-token';
  const github = await startGitHubStandIn({ token });
  for (const issue of campaign.issues as {
    taskId: string;
    repo: string;
    issueNumber: number;
    baseSha: string;
    mergeSha: string;
  }[]) {
    github.setIssue(issue.repo, issue.issueNumber, demoIssue(issue.taskId));
    github.setCompare(
      issue.repo,
      issue.baseSha,
      issue.mergeSha,
      campaign.references?.get(issue.taskId) ??
        'diff --git a/DEMO_REFERENCE_FIX.md b/DEMO_REFERENCE_FIX.md\n--- a/DEMO_REFERENCE_FIX.md\n' +
          '+++ b/DEMO_REFERENCE_FIX.md\n@@ -1 +1 @@\n-Generated stand-in for the merged fix.\n' +
          '+The real fix is not part of the demo data.\n',
    );
  }
  return {
    env: {
      ANTHROPIC_API_KEY: 'demo-oracle-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      GITHUB_API_URL: github.url,
      GITHUB_TOKEN: token,
    },
    anthropicUrl: anthropic.url,
    stop: async () => {
      await Promise.all([anthropic.stop(), github.stop()]);
    },
  };
}
