// The landing table of docs/contract.md §4 as one pure function: given the stored row (if any) and an incoming
// delivery, what row should exist afterwards? Kept pure so the rules are tested without any store. `landingCase`
// is the table's first column: which case a delivery is, before anything is built.
import { canonicalJson } from '#shared/canonical-json.ts';
import {
  emptyJudgeFields,
  judgeFieldsSchema,
  type StoredHiddenTestResult,
  type JudgeFields,
  type RunRow,
  type RunnerRow,
} from '#schema/run.ts';
import { sameRun, sampleOf } from '#schema/run-id.ts';
import { isDecided } from '../judge/transitions.ts';
import { boundedContamination, recentDeliveries } from './bounds.ts';

export interface IncomingRun {
  space: string;
  id: string;
  deliveryId: string;
  row: RunnerRow;
  patchSha256: string;
  /** `not-recorded`: the source (an import) kept no patch, so there is nothing to judge. */
  patch: 'present' | 'empty' | 'not-recorded';
  patchTruncated: boolean;
  /** The object holding the patch and summary (core/run-texts.ts). */
  textsKey: string;
  /** Where the full contamination list is kept when the row keeps only part of it. */
  contaminationKey: string | null;
  /** When ingest accepted the delivery: of two patches for one finishedAt, the one accepted first stays. */
  acceptedAt: string;
  /**
   * The hosts the space pins the run's model to (`hostsByModel`, docs/contract.md §4), or null where it pins none:
   * only they may own the run while no host does.
   */
  pinnedOwners: readonly string[] | null;
  /** The run names its model as the space pins it, not by a look-alike: only such a run reclaims an id. */
  pinnedName: boolean;
}

/** The run's archived attempts, as landing read them (docs/contract.md §4 attempt history). */
export interface ArchivedAttempts {
  /** Archived attempts, conflicts aside. */
  count: number;
  /** The earliest archived attempt (conflicts aside), or null when none is archived. */
  first: { finishedAt: string; judgeVerdict: RunRow['judgeVerdict'] } | null;
  /** Conflicts archived for the current attempt's finishedAt. */
  conflicts: number;
  /** Attempts other hosts sent for this run id, kept apart (docs/contract.md §4 "Another host's run"). */
  foreign: number;
}

export const NO_ARCHIVED_ATTEMPTS: ArchivedAttempts = { count: 0, first: null, conflicts: 0, foreign: 0 };

/**
 * - new: no row yet; retry: the same finishedAt and patch;
 * - reclaims: the row is another model's run of the same task, harness version and sample whose id is the same (a
 *   look-alike model name, "qwen3_8b" for "qwen3:8b"), landed by a host the space's pin of this model leaves out,
 *   and a pinned host sends the model's own run: the row is archived as a collision and this run takes its place;
 * - rerun: a later finishedAt, or the same finishedAt with a patch accepted before the current one, which then
 *   is the conflict (`displaces`);
 * - conflict: the same finishedAt, another patch, accepted after the current one: archived, never judged;
 * - stale: an earlier finishedAt;
 * - foreign: the row is another host's, or no host owns it yet and this host may not (`hostsByModel`): kept apart;
 * - collision: the row is another run (model, task, harness version) whose id is the same: never replaced.
 */
export type LandingCase =
  'new' | 'retry' | 'rerun' | 'displaces' | 'reclaims' | 'conflict' | 'stale' | 'foreign' | 'collision';

export type LandingDecision =
  | { kind: 'stale' }
  | { kind: 'conflict' }
  | { kind: 'collision' }
  | { kind: 'foreign' }
  | { kind: 'unchanged'; row: RunRow }
  | { kind: 'write'; row: RunRow; case: 'new' | 'retry' | 'rerun' | 'displaces' | 'reclaims' };

/** Of two patches accepted for one (run, finishedAt), whether `a` was accepted first (equal instants: the lower hash). */
export const acceptedFirst = (
  a: { acceptedAt?: string; patchSha256: string },
  b: { acceptedAt?: string; patchSha256: string },
): boolean => {
  // A row landed before acceptance was recorded counts as accepted before anything since.
  const at = (x: { acceptedAt?: string }) => x.acceptedAt ?? '';
  return at(a) < at(b) || (at(a) === at(b) && a.patchSha256 < b.patchSha256);
};

export function landingCase(current: RunRow | null, incoming: IncomingRun): LandingCase {
  const { pinnedOwners } = incoming;
  if (!current) return !pinnedOwners || pinnedOwners.includes(incoming.row.host) ? 'new' : 'foreign';
  if (!sameRun(current, incoming.row))
    return incoming.pinnedName &&
      pinnedOwners?.includes(incoming.row.host) &&
      !pinnedOwners.includes(current.host) &&
      lookAlike(current, incoming.row)
      ? 'reclaims'
      : 'collision';
  // A run id belongs to the host whose row it is: another host's delivery is kept apart (docs/contract.md §4).
  if (current.host !== incoming.row.host) return 'foreign';
  const F = incoming.row.finishedAt;
  if (F < current.finishedAt) return 'stale';
  if (F > current.finishedAt) return 'rerun';
  if (incoming.patchSha256 === current.patchSha256) return 'retry';
  return acceptedFirst(incoming, current) ? 'displaces' : 'conflict';
}

/** Another model's run of the same task, harness version and sample under the same id: its model a look-alike. */
const lookAlike = (current: RunRow, incoming: IncomingRun['row']) =>
  current.model !== incoming.model &&
  current.taskId === incoming.taskId &&
  current.harnessVersion === incoming.harnessVersion &&
  sampleOf(current) === sampleOf(incoming);

export function decideLanding(
  current: RunRow | null,
  incoming: IncomingRun,
  now: string,
  pendingHiddenTest: { finishedAt: string; hiddenTestResult: StoredHiddenTestResult } | null,
  archived: ArchivedAttempts = NO_ARCHIVED_ATTEMPTS,
): LandingDecision {
  const F = incoming.row.finishedAt;
  const which = landingCase(current, incoming);
  if (which === 'stale' || which === 'conflict' || which === 'collision' || which === 'foreign') return { kind: which };
  // The row this delivery retries, if it does: same finishedAt, same patch.
  const retried = which === 'retry' ? current! : null;

  const keptJudge = retried ? judgeOfRetried(retried, now) : emptyJudgeFields();
  const judge = applyNoCallVerdicts(keptJudge, incoming, now);
  const hidden = retried
    ? retried.hiddenTestResult
    : pendingHiddenTest && pendingHiddenTest.finishedAt === F
      ? pendingHiddenTest.hiddenTestResult
      : null;

  const contamination = boundedContamination(incoming.row.contamination);
  const knownDelivery = retried !== null && retried.deliveries.includes(incoming.deliveryId);
  // Object.assign, not a literal spreading two objects: V8 builds such a literal of ~80 keys by a slow path
  // (about 0.3 ms a row, most of the synthetic campaign's time in `npm run bench:scale`); the same keys, same order.
  const row: RunRow = Object.assign({}, incoming.row, judge, {
    contamination: contamination.kept,
    contaminationCount: incoming.row.contamination.length,
    contaminationKey: incoming.contaminationKey,
    id: incoming.id,
    space: incoming.space,
    landedAt: retried ? retried.landedAt : now,
    updatedAt: now,
    deliveries: retried ? recentDeliveries(retried.deliveries, incoming.deliveryId) : [incoming.deliveryId],
    deliveryCount: retried ? (retried.deliveryCount ?? retried.deliveries.length) + (knownDelivery ? 0 : 1) : 1,
    attemptCount: archived.count + 1,
    firstAttempt: archived.first && archived.first.finishedAt < F ? archived.first : null,
    conflictCount: archived.conflicts,
    foreignCount: archived.foreign,
    acceptedAt:
      retried?.acceptedAt !== undefined && retried.acceptedAt < incoming.acceptedAt
        ? retried.acceptedAt
        : incoming.acceptedAt,
    textsKey: incoming.textsKey,
    patchKey: null,
    summaryKey: null,
    patchTruncated: incoming.patchTruncated,
    patchSha256: incoming.patchSha256,
    hiddenTestResult: hidden,
    judgeSetAside: judge.judgeState === 'not-needed' && judgedBefore(keptJudge) ? keptJudge : null,
  });

  if (retried && sameExceptUpdatedAt(retried, row)) return { kind: 'unchanged', row: retried };
  return { kind: 'write', row, case: which };
}

/**
 * The judge's fields a retry keeps. A no-call verdict is not among them: once a retry's contamination is gone, the
 * fields that verdict set aside come back as they are. An attempt under way meanwhile settled into them (the
 * judge's finishIf), and a run still waiting is found by the sweep when it is due, as before; but for a run waiting
 * for its issue record, which is due now: a record that landed while the run was set aside woke nothing.
 */
function judgeOfRetried(retried: RunRow, now: string): JudgeFields {
  if (retried.judgeState !== 'not-needed') return pickJudgeFields(retried);
  const setAside = retried.judgeSetAside ?? emptyJudgeFields();
  return setAside.judgeState === 'waiting-issue' ? { ...setAside, judgeNextAttemptAt: now } : setAside;
}

/** Fields the judge wrote (a verdict, a decision or an attempt), which a no-call verdict sets aside. */
const judgedBefore = (judge: JudgeFields) => judge.judgeAttempts > 0 || isDecided(judge);

/**
 * Contamination → `excluded`, else a patch its source did not record → `excluded` (nothing to judge, so outside n),
 * else an empty patch → `no_change`, each without a judge call and overriding a kept verdict. Otherwise a row
 * without a verdict waits for the judge, due now.
 */
export function applyNoCallVerdicts(
  judge: JudgeFields,
  incoming: { row: Pick<RunnerRow, 'contamination'>; patch: IncomingRun['patch'] },
  now: string,
): JudgeFields {
  const noCall: { verdict: 'excluded' | 'no_change'; reason: string } | null =
    incoming.row.contamination.length > 0
      ? { verdict: 'excluded', reason: 'The run reached outside its snapshot (see contamination).' }
      : incoming.patch === 'not-recorded'
        ? { verdict: 'excluded', reason: 'Its source recorded no patch: there is nothing to judge.' }
        : incoming.patch === 'empty'
          ? { verdict: 'no_change', reason: 'The patch is empty.' }
          : null;
  if (noCall) {
    return {
      ...emptyJudgeFields(),
      judgeVerdict: noCall.verdict,
      judgeReason: noCall.reason,
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
export const replacesHiddenTest = (
  stored: StoredHiddenTestResult | null | undefined,
  incoming: StoredHiddenTestResult,
) => !stored || incoming.ranAt > stored.ranAt;

/** The row's judge fields, the optional ones (`judgeBatchId`, …) where the row has them. */
export function pickJudgeFields(row: RunRow): JudgeFields {
  const keys = Object.keys(judgeFieldsSchema.shape) as (keyof JudgeFields)[];
  return Object.fromEntries(keys.filter((k) => row[k] !== undefined).map((k) => [k, row[k]])) as JudgeFields;
}

function sameExceptUpdatedAt(a: RunRow, b: RunRow): boolean {
  return canonicalJson({ ...a, updatedAt: '' }) === canonicalJson({ ...b, updatedAt: '' });
}
