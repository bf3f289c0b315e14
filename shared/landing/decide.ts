// The landing table of SPEC §4 as one pure function: given the stored row (if any) and an incoming
// delivery, what row should exist afterwards? Kept pure so the rules are tested without any store.
import { canonicalJson } from '../canonical-json.ts';
import { emptyJudgeFields, type HiddenTestResult, type JudgeFields, type RunRow, type RunnerRow } from '../schema/run.ts';

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
}

export type LandingDecision =
  | { kind: 'stale' }
  | { kind: 'unchanged'; row: RunRow }
  | { kind: 'write'; row: RunRow; case: 'new' | 'retry' | 'rerun' };

export function decideLanding(
  current: RunRow | null,
  incoming: IncomingRun,
  now: string,
  pendingHiddenTest: { finishedAt: string; hiddenTestResult: HiddenTestResult } | null,
): LandingDecision {
  const F = incoming.row.finishedAt;
  if (current && F < current.finishedAt) return { kind: 'stale' };

  const isRetry = current !== null && F === current.finishedAt && incoming.patchSha256 === current.patchSha256;
  const landingCase = current === null ? 'new' : isRetry ? 'retry' : 'rerun';

  const keptJudge: JudgeFields = isRetry ? pickJudgeFields(current) : emptyJudgeFields();
  const hidden = isRetry
    ? current.hiddenTestResult
    : pendingHiddenTest && pendingHiddenTest.finishedAt === F
      ? pendingHiddenTest.hiddenTestResult
      : null;

  const row: RunRow = {
    ...incoming.row,
    ...applyNoCallVerdicts(keptJudge, incoming, now),
    id: incoming.id,
    space: incoming.space,
    landedAt: isRetry ? current.landedAt : now,
    updatedAt: now,
    deliveries: isRetry
      ? current.deliveries.includes(incoming.deliveryId)
        ? current.deliveries
        : [...current.deliveries, incoming.deliveryId]
      : [incoming.deliveryId],
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
      judgeReason: noCall === 'excluded' ? 'The run reached outside its snapshot (see contamination).' : 'The patch is empty.',
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

export function pickJudgeFields(row: RunRow): JudgeFields {
  const keys = Object.keys(emptyJudgeFields()) as (keyof JudgeFields)[];
  return Object.fromEntries(keys.map((k) => [k, row[k]])) as unknown as JudgeFields;
}

function sameExceptUpdatedAt(a: RunRow, b: RunRow): boolean {
  return canonicalJson({ ...a, updatedAt: '' }) === canonicalJson({ ...b, updatedAt: '' });
}
