// Puts run rows straight into the store, skipping ingest, queue and judge: how the dashboard benchmark
// gets 100k runs (and the browser tests a demo-sized campaign) in seconds rather than hours. Rows are
// built by the real landing rules (decideLanding) so they look exactly like landed ones; a verdict, when
// given, is written as the judge would write it.
import { createHash } from 'node:crypto';
import { decideLanding } from '#core/landing/decide.ts';
import type { IssueStore, RunStore } from '#core/ports.ts';
import type { SentIssue } from '#schema/issue.ts';
import { issueRecordSchema } from '#schema/issue.ts';
import { hiddenTestResultSchema, runnerRowSchema, type RunRow } from '#schema/run.ts';

export interface JudgeAnswerFields {
  verdict: 'resolved' | 'partial' | 'wrong';
  rootCauseFound: boolean;
  sameFilesAsReference: boolean;
  testAdded: boolean;
  wouldCompile: boolean;
  reason: string;
}

/** The row landing would write for this run delivery (patch and summary objects are not stored). */
export function landedRow(
  space: string,
  delivery: Record<string, unknown>,
  now: string,
  hiddenTest?: Record<string, unknown>,
): RunRow {
  const row = runnerRowSchema.parse(delivery.row);
  const patch = (delivery.patch as string | undefined) ?? '';
  const pending = hiddenTest
    ? {
        finishedAt: row.finishedAt,
        hiddenTestResult: hiddenTestResultSchema.parse((hiddenTest as { hiddenTestResult: unknown }).hiddenTestResult),
      }
    : null;
  const decision = decideLanding(
    null,
    {
      space,
      id: delivery.id as string,
      deliveryId: createHash('sha256').update(JSON.stringify(delivery)).digest('hex'),
      row,
      patchSha256: createHash('sha256').update(patch).digest('hex'),
      patch: patch === '' ? 'empty' : 'present',
      patchTruncated: false,
      pinnedOwners: null,
      pinnedName: false,
      textsKey: '',
      contaminationKey: null,
      acceptedAt: now,
    },
    now,
    pending,
  );
  if (decision.kind !== 'write') throw new Error('A new row always lands.');
  return { ...decision.row, textsKey: null };
}

/** A verdict as the judge writes it, unless landing already decided one (excluded, no_change). */
export function judged(row: RunRow, answer: JudgeAnswerFields, judgeModel: string, at: string): RunRow {
  if (row.judgeVerdict !== null) return row;
  return Object.assign({}, row, {
    judgeVerdict: answer.verdict,
    judgeRootCauseFound: answer.rootCauseFound,
    judgeSameFilesAsReference: answer.sameFilesAsReference,
    judgeTestAdded: answer.testAdded,
    judgeWouldCompile: answer.wouldCompile,
    judgeReason: answer.reason,
    judgeModel,
    judgedAt: at,
    judgeAttempts: 1,
    judgeNextAttemptAt: null,
    judgeState: 'judged',
    updatedAt: at,
  });
}

/** An issue record as landing stores it, sent (and landed) at `now`. */
export function storedIssue(space: string, issue: Record<string, unknown>, now: string): SentIssue {
  return { ...issueRecordSchema.parse(issue), space, updatedAt: now, sentAt: now };
}

/** Writes rows with `concurrency` puts in flight; an existing row with the same id is left as it is. */
export async function loadRows(
  store: RunStore,
  rows: RunRow[],
  options: { concurrency?: number; onProgress?: (done: number) => void } = {},
): Promise<void> {
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: options.concurrency ?? 16 }, async () => {
      while (next < rows.length) {
        await store.putRun(rows[next++]!, null);
        if (++done % 5000 === 0) options.onProgress?.(done);
      }
    }),
  );
}

export async function loadIssues(store: IssueStore, issues: SentIssue[]): Promise<void> {
  for (const issue of issues) await store.putIssue(issue);
}
