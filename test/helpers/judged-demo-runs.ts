// Demo runs as the judge would leave them, for tests that load a judged campaign straight into a table.
import { judged, landedRow, type JudgeAnswerFields } from '../../bench/direct-load.ts';
import type { DemoCampaign, DemoRun } from '#demo/campaign.ts';
import { DEMO_JUDGE_MODEL, demoIssue, oracleAnswer } from '#demo/judge.ts';
import { judgeAnswerSchema } from '#core/judge/answer.ts';
import { verdict } from '#core/judge/transitions.ts';
import { verdictChecks } from '#core/judge/verdict-checks.ts';
import type { RunRow } from '#schema/run.ts';

/**
 * The row the judge would write for a run of the campaign: where the campaign holds the task's real merged fix
 * (SWE-bench Lite), through the judge's own checks and transition, so computed facts and flags are real; else
 * the stand-in's answer as it is (the Pro campaign's fix is a placeholder, which no check could be held to).
 */
export function judgedRun(space: string, campaign: DemoCampaign, run: DemoRun, now: string): RunRow {
  const row = landedRow(space, run.delivery, now, run.hiddenTest);
  const reference = campaign.references?.get(row.taskId);
  if (!reference || row.judgeVerdict !== null)
    return judged(row, oracleAnswer(run) as unknown as JudgeAnswerFields, DEMO_JUDGE_MODEL, now);
  const { patch, summary } = run.delivery as { patch: string; summary: string };
  // The issue text as the judge reads it from the stand-in GitHub: title, a blank line, body.
  const issue = demoIssue(row.taskId);
  const fields = verdict(
    judgeAnswerSchema.parse(oracleAnswer(run)),
    verdictChecks(patch, summary, { diff: reference, omittedLockFiles: [] }, `${issue.title}\n\n${issue.body}`),
    row,
    DEMO_JUDGE_MODEL,
    new Date(now),
  );
  return { ...row, ...fields, judgeAttempts: 1, updatedAt: now };
}
