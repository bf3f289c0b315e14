// The audit object of one judge attempt, kept beside the run's patch whatever the call's fate: what was
// exchanged (prompt hash, answer, token usage, cost, latency), never the prompt text itself, which holds the
// issue text.
import { sha256Hex } from '#shared/sha256.ts';
import type { TokenUsage } from '../ports.ts';
import type { ObjectStore } from '../ports.ts';
import type { StoredIssue } from '#schema/issue.ts';
import type { RunRow } from '#schema/run.ts';
import { auditKey, referenceDiffKey } from '../storage-layout.ts';
import type { JudgeAnswer } from './answer.ts';
import type { JudgePrompt } from './prompt.ts';
import type { JudgeProblem } from './transitions.ts';

export interface AuditedCall {
  model: string;
  prompt: JudgePrompt;
  startedAt: Date;
  latencyMs: number;
  answerText: string | null;
  usage: TokenUsage | null;
  costUsd: number | null;
  parsed: JudgeAnswer | null;
  /** The flag rules that fired (docs/contract.md §5): the screen's, and for an answer the fact rule too. */
  flags: string[];
  problem: (JudgeProblem & { pausesJudging?: boolean }) | null;
}

export async function writeAudit(
  objects: ObjectStore,
  row: RunRow,
  issue: StoredIssue & { baseSha: string; mergeSha: string },
  call: AuditedCall,
): Promise<void> {
  const { prompt } = call;
  const record = {
    space: row.space,
    id: row.id,
    finishedAt: row.finishedAt,
    patchSha256: row.patchSha256,
    attempt: row.judgeAttempts,
    model: call.model,
    reference: {
      repo: issue.repo,
      baseSha: issue.baseSha,
      mergeSha: issue.mergeSha,
      cacheKey: referenceDiffKey(row.space, issue.repo, issue.baseSha, issue.mergeSha),
    },
    promptSha256: sha256Hex(`${prompt.system}\n\n${prompt.sharedPrompt}\n${prompt.prompt}`),
    promptChars: prompt.system.length + prompt.sharedPrompt.length + prompt.prompt.length,
    startedAt: call.startedAt.toISOString(),
    latencyMs: call.latencyMs,
    answer: call.answerText,
    usage: call.usage,
    costUsd: call.costUsd,
    parsed: call.parsed,
    flags: call.flags,
    problem: call.problem,
  };
  const key = auditKey(row.space, row.id, row.finishedAt, call.startedAt.toISOString(), row.judgeAttempts);
  await objects.put(key, JSON.stringify(record, null, 2), 'application/json');
}
