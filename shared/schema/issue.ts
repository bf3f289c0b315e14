// The benchmark task. By design there is no member that could hold an issue title or body: they may name
// clients. Unknown keys (title, body, …) in a delivery are dropped like any other unknown key.
import * as z from './zod.ts';
import {
  gitSha,
  optionalAmount,
  optionalBool,
  optionalCount,
  optionalInstant,
  optionalText,
  orNull,
  pathSafeIdentity,
  positiveCount,
  repoName,
  tier,
} from './primitives.ts';

export const issueRecordSchema = z.object({
  taskId: pathSafeIdentity,
  order: optionalCount,
  repo: repoName,
  issueNumber: positiveCount,
  fixPrNumber: optionalCount,
  tier: orNull(tier),
  wave: optionalCount,
  codeLinesChanged: optionalCount,
  codeFilesChanged: optionalCount,
  filesChanged: optionalCount,
  linesAdded: optionalCount,
  linesRemoved: optionalCount,
  fixHasTests: optionalBool,
  originalFixModel: optionalText(),
  commits: optionalCount,
  issueToMergeHours: optionalAmount,
  prToMergeHours: optionalAmount,
  mergedAt: optionalInstant,
  baseSha: orNull(gitSha),
  mergeSha: orNull(gitSha),
});
export type IssueRecord = z.output<typeof issueRecordSchema>;

/**
 * The stored issue adds only pipeline bookkeeping: its space, when it changed, the host that published it and the
 * `sentAt` of the delivery that carried it (both absent on records stored before they were recorded).
 */
export type StoredIssue = IssueRecord & { space: string; updatedAt: string; host?: string; sentAt?: string };
/** What landing writes: every record it stores carries the `sentAt` of its delivery. */
export type SentIssue = StoredIssue & { sentAt: string };
export type IssueField = keyof StoredIssue;

/** Every field of a stored issue: what `GET …/issues?fields=` may name. */
export const ISSUE_FIELDS = [
  ...Object.keys(issueRecordSchema.shape),
  'space',
  'updatedAt',
  'host',
  'sentAt',
] as IssueField[];
