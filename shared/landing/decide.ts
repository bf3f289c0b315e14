// The landing table of docs/contract.md §4 as one pure function: given the stored row (if any) and an incoming
// delivery, what row should exist afterwards? Kept pure so the rules are tested without any store.
import { canonicalJson } from '../canonical-json.ts';
import {
  emptyJudgeFields,
  type HiddenTestResult,
  type JudgeFields,
  type RunRow,
  type RunnerRow,
} from '../schema/run.ts';
import { boundedContamination, recentDeliveries } from './bounds.ts';

export interface IncomingRun {
  space: string;
  id: string;
  deliveryId: string;
  row: RunnerRow;
  patchSha256: string;
  patchEmpty: boolean;
  patchTruncated: boolean;
  patchKey: string;
  summaryKey: string;
  /** Where the full contamination list is kept when the row keeps only part of it. */
  contaminationKey: string | null;
}

/** The run's archived attempts, as landing read them (docs/contract.md §4 attempt history). */
export interface ArchivedAttempts {
  count: number;
  /** The earliest archived attempt, or null when none is archived. */
  first: { finishedAt: string; judgeVerdict: RunRow['judgeVerdict'] } | null;
}

export const NO_ARCHIVED_ATTEMPTS: ArchivedAttempts = { count: 0, first: null };

export type LandingDecision =
  | { kind: 'stale' }
  | { kind: 'not-owner'; owner: string }
  | { kind: 'unchanged'; row: RunRow }
  | { kind: 'write'; row: RunRow; case: 'new' | 'retry' | 'rerun' };

export function decideLanding(
  current: RunRow | null,
  incoming: IncomingRun,
  now: string,
  pendingHiddenTest: { finishedAt: string; hiddenTestResult: HiddenTestResult } | null,
  archived: ArchivedAttempts = NO_ARCHIVED_ATTEMPTS,
): LandingDecision {
  const F = incoming.row.finishedAt;
  // A run id belongs to the host whose row it is: another host's delivery changes nothing (docs/contract.md §4).
  if (current && current.host !== incoming.row.host) return { kind: 'not-owner', owner: current.host };
  if (current && F < current.finishedAt) return { kind: 'stale' };

  const isRetry = current !== null && F === current.finishedAt && incoming.patchSha256 === current.patchSha256;
  const landingCase = current === null ? 'new' : isRetry ? 'retry' : 'rerun';

  // A no-call verdict is never kept: a retry whose contamination is gone is judged like a new run.
  const keptJudge: JudgeFields =
    isRetry && current.judgeState !== 'not-needed' ? pickJudgeFields(current) : emptyJudgeFields();
  const hidden = isRetry
    ? current.hiddenTestResult
    : pendingHiddenTest && pendingHiddenTest.finishedAt === F
      ? pendingHiddenTest.hiddenTestResult
      : null;

  const contamination = boundedContamination(incoming.row.contamination);
  const knownDelivery = isRetry && current.deliveries.includes(incoming.deliveryId);
  const row: RunRow = {
    ...incoming.row,
    ...applyNoCallVerdicts(keptJudge, incoming, now),
    contamination: contamination.kept,
    contaminationCount: incoming.row.contamination.length,
    contaminationKey: incoming.contaminationKey,
    id: incoming.id,
    space: incoming.space,
    landedAt: isRetry ? current.landedAt : now,
    updatedAt: now,
    deliveries: isRetry ? recentDeliveries(current.deliveries, incoming.deliveryId) : [incoming.deliveryId],
    deliveryCount: isRetry ? (current.deliveryCount ?? current.deliveries.length) + (knownDelivery ? 0 : 1) : 1,
    attemptCount: archived.count + 1,
    firstAttempt: archived.first && archived.first.finishedAt < F ? archived.first : null,
    patchKey: incoming.patchKey,
    summaryKey: incoming.summaryKey,
    patchTruncated: incoming.patchTruncated,
    patchSha256: incoming.patchSha256,
    hiddenTestResult: hidden,
  };

  if (isRetry && sameExceptUpdatedAt(current, row)) return { kind: 'unchanged', row: current };
  return { kind: 'write', row, case: landingCase };
}

/**
 * Contamination → `excluded`, else an empty patch → `no_change`, both without a judge call and overriding
 * a kept verdict. Otherwise a row without a verdict waits for the judge, due now.
 */
function applyNoCallVerdicts(judge: JudgeFields, incoming: IncomingRun, now: string): JudgeFields {
  const noCall = incoming.row.contamination.length > 0 ? 'excluded' : incoming.patchEmpty ? 'no_change' : null;
  if (noCall) {
    return {
      ...emptyJudgeFields(),
      judgeVerdict: noCall,
      judgeReason:
        noCall === 'excluded' ? 'The run reached outside its snapshot (see contamination).' : 'The patch is empty.',
      judgeAttempts: judge.judgeAttempts,
      judgeCostUsd: judge.judgeCostUsd,
      judgeState: 'not-needed',
    };
  }
  if (judge.judgeVerdict === null && judge.judgeState === 'pending' && judge.judgeAttempts === 0) {
    return { ...judge, judgeNextAttemptAt: judge.judgeNextAttemptAt ?? now };
  }
  return judge;
}

/**
 * A hidden-test result replaces the stored one only when it ran later (docs/contract.md §4): of two with the same
 * `ranAt`, the first stays, so a replay of an old result changes nothing.
 */
export const replacesHiddenTest = (stored: HiddenTestResult | null | undefined, incoming: HiddenTestResult) =>
  !stored || incoming.ranAt > stored.ranAt;

export function pickJudgeFields(row: RunRow): JudgeFields {
  const keys = Object.keys(emptyJudgeFields()) as (keyof JudgeFields)[];
  return Object.fromEntries(keys.map((k) => [k, row[k]])) as unknown as JudgeFields;
}

function sameExceptUpdatedAt(a: RunRow, b: RunRow): boolean {
  return canonicalJson({ ...a, updatedAt: '' }) === canonicalJson({ ...b, updatedAt: '' });
}
