// Landing of inbox entries (docs/contract.md §4). Every write that can race is conditional (optimistic revision on the
// row), objects are content-addressed under the run's finishedAt and written create-only, so nothing is
// ever overwritten, and the inbox entry is deleted last: killed between any two steps and redelivered,
// landing ends in the same state.
import { sha256Hex } from '#shared/sha256.ts';
import { inboxEntrySchema, type InboxEntry } from '#schema/messages.ts';
import type { HiddenTestDelivery, IssueDelivery, RunDelivery } from '#schema/delivery.ts';
import type { StoredHost } from '#schema/host.ts';
import type {
  AttemptStore,
  Clock,
  HostStore,
  IssueStore,
  JudgeMessage,
  MessageQueue,
  ObjectStore,
  PendingHiddenTest,
  RunStore,
} from '../ports.ts';
import { distinctAttempts, type ArchivedAttempt } from '#schema/attempt.ts';
import { emptyJudgeFields } from '#schema/run.ts';
import { runIdentity, type RunIdentity } from '#schema/run-id.ts';
import { boundedContamination, rowKeepsTestNames, testNamesJson } from './bounds.ts';
import {
  acceptedFirst,
  applyNoCallVerdicts,
  decideLanding,
  landingCase,
  replacesHiddenTest,
  type ArchivedAttempts,
  type IncomingRun,
  type LandingCase,
  type LandingDecision,
} from './decide.ts';
import { hostRecord, optimisticUpdate, runRecord, type UpdateDecision } from '../optimistic-update.ts';
import { canonicalJson } from '#shared/canonical-json.ts';
import type { HiddenTestResult, RunRow, StoredHiddenTestResult } from '#schema/run.ts';
import { readRunTexts, runTextsObject } from '../run-texts.ts';
import { contaminationKey, testsKey } from '../storage-layout.ts';

export interface LandingDeps {
  runs: RunStore;
  attempts: AttemptStore;
  issues: IssueStore;
  hosts: HostStore;
  objects: ObjectStore;
  inbox: ObjectStore;
  judgeQueue: MessageQueue<JudgeMessage>;
  clock: Clock;
  /**
   * Told when a run from a host that does not own its id (another host's row, or a model the space pins to other
   * hosts) is kept apart as a foreign attempt: the row stays its owner's (docs/contract.md §4).
   */
  keptForeign?: (foreign: ForeignAttempt) => void;
  /**
   * Told when a run reaches landing whose id is already another run's (ingest refuses it with 409, but cannot while
   * the other has not landed yet): the stored run stays, and this one is archived apart, marked `collision`.
   */
  collided?: (collision: IdCollision) => void;
  /** Told which delivery, and which run, an inbox entry is once it has been read: what its log lines are about. */
  identified?: (ids: { deliveryId: string; runId?: string }) => void;
}

export interface IdCollision {
  space: string;
  id: string;
  /** The host that sent the colliding run. */
  host: string;
  stored: RunIdentity;
  delivered: RunIdentity;
}

export interface ForeignAttempt {
  space: string;
  id: string;
  finishedAt: string;
  /** The host that sent it, and the host whose run it is (null: none yet, and the space pins the model elsewhere). */
  host: string;
  owner: string | null;
}

export type LandingOutcome =
  | 'new'
  | 'retry'
  | 'rerun'
  | 'displaces'
  | 'reclaims'
  | 'conflict'
  | 'unchanged'
  | 'stale'
  | 'issue'
  | 'issue-older'
  | 'hidden-test-applied'
  | 'hidden-test-held'
  | 'hidden-test-ignored'
  | 'foreign'
  | 'collision'
  | 'already-landed';

const MAX_CONFLICT_RETRIES = 100;
/** Rows of runs waiting for an issue record read at once when the record lands. */
export const WAKE_READS_AT_ONCE = 25;

/** Lands the entry stored under `inboxKey`; a missing entry means it was landed and removed already. */
export async function landInboxEntry(deps: LandingDeps, inboxKey: string): Promise<LandingOutcome> {
  const text = await deps.inbox.getText(inboxKey);
  if (text === null) return 'already-landed';
  // A corrupt entry throws and, after the queue's retries, reaches the DLQ; the object stays for inspection.
  const entry = inboxEntrySchema.parse(JSON.parse(text));
  const { delivery } = entry;
  deps.identified?.({ deliveryId: entry.deliveryId, runId: delivery.kind === 'issue' ? undefined : delivery.id });
  const outcome = await landEntry(deps, entry);
  await deps.inbox.delete(inboxKey);
  return outcome;
}

export async function landEntry(deps: LandingDeps, entry: InboxEntry): Promise<LandingOutcome> {
  const { delivery } = entry;
  const hardware = delivery.kind === 'run' ? delivery.row.hostHardware : null;
  await recordHostDelivery(deps.hosts, entry.host, entry.space, entry.receivedAt, hardware);
  switch (delivery.kind) {
    case 'run':
      return landRun(deps, entry, delivery);
    case 'issue':
      return landIssue(deps, entry, delivery);
    case 'hidden-test':
      return landHiddenTest(deps, entry, delivery);
  }
}

async function landRun(deps: LandingDeps, entry: InboxEntry, delivery: RunDelivery): Promise<LandingOutcome> {
  const { space } = entry;
  const F = delivery.row.finishedAt;
  const patchSha256 = sha256Hex(delivery.patch ?? '');
  const fullContamination = boundedContamination(delivery.row.contamination).complete
    ? null
    : JSON.stringify(delivery.row.contamination);
  const texts = runTextsObject(space, delivery.id, F, delivery);
  const incoming: IncomingRun = {
    space,
    id: delivery.id,
    deliveryId: entry.deliveryId,
    row: delivery.row,
    patchSha256,
    patch: patchState(delivery.patch),
    patchTruncated: delivery.patchTruncated,
    textsKey: texts.key,
    contaminationKey:
      fullContamination === null ? null : contaminationKey(space, delivery.id, F, sha256Hex(fullContamination)),
    acceptedAt: entry.receivedAt,
    pinnedOwners: entry.owners ?? null,
    pinnedName: entry.pinnedName ?? true,
  };

  const record = runRecord(deps.runs, space, delivery.id);
  const current = await record.read();
  const first = landingCase(current?.value ?? null, incoming);
  // Content-addressed keys, written create-only: an object already there holds these very bytes (a duplicate
  // or a redelivery), and a different patch gets its own key.
  await deps.objects.putIfAbsent(texts.key, texts.body, 'application/json');
  if (incoming.contaminationKey)
    await deps.objects.putIfAbsent(incoming.contaminationKey, fullContamination!, 'application/json');
  if (first === 'collision') return landCollision(deps, incoming);
  const held = await deps.issues.getPendingHiddenTests(space, delivery.id);
  const pending = held.find((p) => p.host === delivery.row.host) ?? null;
  if (first === 'stale' || first === 'conflict' || first === 'foreign')
    return landAside(deps, incoming, pending, first);

  const decision = await optimisticUpdate(
    record,
    async (latest): Promise<UpdateDecision<RunRow, LandingDecision>> => {
      const which = landingCase(latest?.value ?? null, incoming);
      // A re-run replaces the current attempt, which is archived before the row changes, with the verdict it had.
      // A patch accepted before the current one for the same finishedAt archives the current one as a conflict; a
      // pinned host's run reclaiming its id archives the other run there as a collision, never counted.
      const marks = REPLACED_MARKS[which];
      const replaced = marks ? archived(latest!.value, deps.clock, marks) : null;
      // Only these change which attempts are archived; a first landing or a retry reads them off the row.
      const others = replaced
        ? archivedOtherThan(
            withAttempt(await deps.attempts.listAttempts(space, delivery.id), replaced),
            delivery.row.host,
            F,
            patchSha256,
          )
        : which === 'retry'
          ? {
              count: (latest!.value.attemptCount ?? 1) - 1,
              first: latest!.value.firstAttempt ?? null,
              conflicts: latest!.value.conflictCount ?? 0,
              foreign: latest!.value.foreignCount ?? 0,
            }
          : // A first landing counts the foreign attempts other hosts sent before it.
            archivedOtherThan(await deps.attempts.listAttempts(space, delivery.id), delivery.row.host, F, patchSha256);
      const decided = decideLanding(latest?.value ?? null, incoming, deps.clock.now().toISOString(), pending, others);
      if (decided.kind !== 'write') return { done: decided };
      return {
        write: decided.row,
        result: decided,
        ...(replaced && { before: () => deps.attempts.archiveAttempt(replaced) }),
      };
    },
    { what: `landing ${delivery.id}`, current, maxConflicts: MAX_CONFLICT_RETRIES },
  );
  if (decision.kind === 'stale' || decision.kind === 'conflict' || decision.kind === 'foreign')
    return landAside(deps, incoming, pending, decision.kind);
  if (decision.kind === 'collision') return landCollision(deps, incoming);
  // A hidden-test result held while this landing was under way (see landHiddenTest), also one that ran later than
  // the result this landing wrote: applying it again is idempotent, and an older one changes nothing.
  const ownHeld = (await deps.issues.getPendingHiddenTests(space, delivery.id)).find(
    (p) => p.host === delivery.row.host,
  );
  if (ownHeld?.finishedAt === F)
    await applyHiddenTest(deps, space, delivery.id, delivery.row.host, F, ownHeld.hiddenTestResult);
  // A run for the judge now: a new one, or one waiting for its issue record whose look is due (decide.ts).
  const { judgeState, judgeNextAttemptAt } = decision.row;
  if (
    judgeState === 'pending' ||
    (judgeState === 'waiting-issue' &&
      judgeNextAttemptAt !== null &&
      judgeNextAttemptAt <= deps.clock.now().toISOString())
  )
    await deps.judgeQueue.send({ space, id: delivery.id, finishedAt: F, deliveryId: entry.deliveryId });
  return decision.kind === 'write' ? decision.case : 'unchanged';
}

/**
 * An attempt that does not become the row is archived beside it, unjudged (docs/contract.md §4): one earlier than
 * the current attempt ("F earlier"), a conflict, another patch for a finishedAt whose first accepted patch is
 * current, or a foreign attempt, sent by a host that does not own the run (keyed by its host). A late attempt whose
 * finishedAt already has another patch archived is a conflict too. The row changes only its counts (and updatedAt).
 * A held hidden-test result of the sending host comes along.
 */
async function landAside(
  deps: LandingDeps,
  incoming: IncomingRun,
  pending: PendingHiddenTest | null,
  kind: 'stale' | 'conflict' | 'foreign',
): Promise<LandingOutcome> {
  const now = deps.clock.now().toISOString();
  const { space, id, patchSha256 } = incoming;
  const { host, finishedAt: F } = incoming.row;
  const conflict =
    kind === 'conflict' ||
    (kind === 'stale' &&
      (await deps.attempts.listAttempts(space, id)).some(
        (a) => isOwnAttempt(a, host) && !a.conflict && a.finishedAt === F && a.patchSha256 !== patchSha256,
      ));
  const marks = kind === 'foreign' ? { foreign: true } : conflict ? { conflict: true } : {};
  await deps.attempts.archiveAttempt(unjudgedAttempt(incoming, pending, now, marks));
  const owner = await optimisticUpdate(
    runRecord(deps.runs, space, id),
    async (latest): Promise<UpdateDecision<RunRow, string | null>> => {
      if (!latest) return { done: null };
      const { finishedAt } = latest.value;
      const others = archivedOtherThan(
        await deps.attempts.listAttempts(space, id),
        latest.value.host,
        finishedAt,
        latest.value.patchSha256,
      );
      const counts = {
        attemptCount: others.count + 1,
        firstAttempt: others.first && others.first.finishedAt < finishedAt ? others.first : null,
        conflictCount: others.conflicts,
        foreignCount: others.foreign,
      };
      const { attemptCount, firstAttempt, conflictCount, foreignCount } = latest.value;
      if (canonicalJson({ attemptCount, firstAttempt, conflictCount, foreignCount }) === canonicalJson(counts))
        return { done: latest.value.host };
      return { write: { ...latest.value, ...counts, updatedAt: now }, result: latest.value.host };
    },
    { what: `counting the attempts of ${id}`, maxConflicts: MAX_CONFLICT_RETRIES },
  );
  if (kind !== 'foreign') return conflict ? 'conflict' : 'stale';
  // A result of this host held while its attempt was archived (see landHiddenTest) reaches the attempt too.
  const held = (await deps.issues.getPendingHiddenTests(space, id)).find((p) => p.host === host);
  if (held?.finishedAt === F) await deps.attempts.setAttemptHiddenTest(space, id, host, F, held.hiddenTestResult);
  deps.keptForeign?.({ space, id, finishedAt: F, host, owner });
  return 'foreign';
}

/**
 * A run whose id is another stored run's (docs/contract.md §4): archived apart, marked `collision` and keyed by its
 * own run, never judged, never counted among the stored run's attempts; the row does not change.
 */
async function landCollision(deps: LandingDeps, incoming: IncomingRun): Promise<LandingOutcome> {
  const { space, id, row } = incoming;
  await deps.attempts.archiveAttempt(
    unjudgedAttempt(incoming, null, deps.clock.now().toISOString(), { collision: true }),
  );
  const stored = await deps.runs.getRun(space, id);
  deps.collided?.({
    space,
    id,
    host: row.host,
    stored: runIdentity(stored!.value),
    delivered: runIdentity(row),
  });
  return 'collision';
}

/** The attempt an incoming run is when it does not become the row: as it would have landed, never to be judged. */
function unjudgedAttempt(
  incoming: IncomingRun,
  pending: PendingHiddenTest | null,
  now: string,
  marks: Pick<ArchivedAttempt, 'conflict' | 'collision' | 'foreign'>,
): ArchivedAttempt {
  const built = decideLanding(null, { ...incoming, pinnedOwners: null }, now, pending);
  if (built.kind !== 'write') throw new Error('A first landing always writes.');
  const { patch } = incoming;
  return { ...built.row, ...emptyJudgeFields(), judgeState: 'not-needed', archivedAt: now, patch, ...marks };
}

/** Whether a delivery carried a patch, as the no-call verdicts read it (decide.ts applyNoCallVerdicts). */
export const patchState = (patch: string | null): IncomingRun['patch'] =>
  patch === null ? 'not-recorded' : patch.trim() === '' ? 'empty' : 'present';

/** Whether an archived attempt's delivery carried a patch: kept on it, or read from its texts where it predates that. */
export async function patchOfAttempt(
  objects: Pick<ObjectStore, 'getText'>,
  attempt: ArchivedAttempt,
): Promise<IncomingRun['patch']> {
  return attempt.patch ?? patchState((await readRunTexts(objects, attempt, 'patch')).patch);
}

/**
 * The row a run becomes when `attempt`, archived unjudged, is made its current attempt (a run id reassigned to the
 * host that sent it, docs/contract.md §4): the attempt as it landed, its counts taken from `attempts` (every
 * archived attempt of the run, the replaced row among them), its verdict the one it takes without a call, or
 * pending and due now.
 */
export function attemptAsRow(
  attempt: ArchivedAttempt,
  patch: IncomingRun['patch'],
  attempts: ArchivedAttempt[],
  now: string,
): RunRow {
  const { archivedAt: _archivedAt, conflict: _c, collision: _collision, foreign: _f, patch: _patch, ...row } = attempt;
  const others = archivedOtherThan(attempts, row.host, row.finishedAt, row.patchSha256);
  return {
    ...row,
    ...applyNoCallVerdicts(emptyJudgeFields(), { row, patch }, now),
    attemptCount: others.count + 1,
    firstAttempt: others.first && others.first.finishedAt < row.finishedAt ? others.first : null,
    conflictCount: others.conflicts,
    foreignCount: others.foreign,
    updatedAt: now,
  };
}

/** The attempt a host's deliveries would have made the row: the latest finishedAt, of one the first accepted. */
export const newestAttempt = (attempts: ArchivedAttempt[]): ArchivedAttempt | undefined =>
  attempts.reduce<ArchivedAttempt | undefined>(
    (best, a) =>
      !best || a.finishedAt > best.finishedAt || (a.finishedAt === best.finishedAt && acceptedFirst(a, best))
        ? a
        : best,
    undefined,
  );

/** An attempt of the run itself as `owner` sent it: not another host's, nor another run's that shares its id. */
const isOwnAttempt = (attempt: ArchivedAttempt, owner: string) => attempt.host === owner && !attempt.collision;

const isAttempt = (row: RunRow, finishedAt: string, patchSha256: string) =>
  row.finishedAt === finishedAt && row.patchSha256 === patchSha256;

/** The cases whose row is replaced, and how the replaced attempt is marked in the archive. */
const REPLACED_MARKS: Partial<Record<LandingCase, Pick<ArchivedAttempt, 'conflict' | 'collision'>>> = {
  rerun: {},
  displaces: { conflict: true },
  reclaims: { collision: true },
};

export const archived = (
  row: RunRow,
  clock: Clock,
  marks: Pick<ArchivedAttempt, 'conflict' | 'collision'>,
): ArchivedAttempt => ({ ...row, archivedAt: clock.now().toISOString(), ...marks });

/** The archived attempts with this one among them: an attempt is archived once, and the first archive stays. */
export const withAttempt = (list: ArchivedAttempt[], attempt: ArchivedAttempt): ArchivedAttempt[] =>
  list.some((a) => isOwnAttempt(a, attempt.host) && isAttempt(a, attempt.finishedAt, attempt.patchSha256))
    ? list
    : [...list, attempt];

/** The archived attempts other than the one that is (or becomes) the row: counted, with the first, conflicts apart. */
function archivedOtherThan(
  archive: ArchivedAttempt[],
  owner: string,
  finishedAt: string,
  patchSha256: string,
): ArchivedAttempts {
  const list = distinctAttempts(archive);
  const others = list.filter((a) => isOwnAttempt(a, owner) && !isAttempt(a, finishedAt, patchSha256));
  const attempts = others.filter((a) => !a.conflict);
  const first = attempts.reduce<ArchivedAttempt | null>(
    (earliest, a) => (!earliest || a.finishedAt < earliest.finishedAt ? a : earliest),
    null,
  );
  return {
    count: attempts.length,
    first: first && { finishedAt: first.finishedAt, judgeVerdict: first.judgeVerdict },
    conflicts: others.length - attempts.length,
    foreign: list.filter((a) => a.host !== owner && !a.collision).length,
  };
}

/**
 * An issue record replaces the stored one only when it was sent later: a replayed old delivery changes nothing.
 * Either way the runs still waiting for the task's record are then woken, so a landing cut short between the two
 * wakes them when its delivery comes again.
 */
async function landIssue(deps: LandingDeps, entry: InboxEntry, delivery: IssueDelivery): Promise<LandingOutcome> {
  const written = await deps.issues.putIssue({
    ...delivery.issue,
    space: entry.space,
    updatedAt: deps.clock.now().toISOString(),
    host: entry.host,
    sentAt: delivery.sentAt,
  });
  await wakeIssueWaiters(deps, entry.space, delivery.issue.taskId, entry.deliveryId);
  return written ? 'issue' : 'issue-older';
}

/**
 * Sends the judge each run of the task noted as waiting for its issue record and not decided yet (a decided row has
 * no next attempt), marked `issueLanded` so that a run waiting for the record is due at once rather than at its next
 * look (docs/contract.md §5). Whatever state the row is in now: the judge that noted it may not have written its
 * wait yet, and the note may name an earlier landing of the run than the row's. A message the queue does not take
 * fails the landing, whose delivery then comes again.
 */
async function wakeIssueWaiters(deps: LandingDeps, space: string, taskId: string, deliveryId: string): Promise<void> {
  const waiters = await deps.issues.getIssueWaiters(space, taskId);
  const messages: JudgeMessage[] = [];
  // Some rows at a time: a task's thousands of waiting runs (models × harnesses × samples) are read well inside
  // the lander's 30 s.
  for (let i = 0; i < waiters.length; i += WAKE_READS_AT_ONCE) {
    const slice = waiters.slice(i, i + WAKE_READS_AT_ONCE);
    for (const stored of await Promise.all(slice.map((waiter) => deps.runs.getRun(space, waiter.id)))) {
      const row = stored?.value;
      if (row?.taskId === taskId && row.judgeNextAttemptAt !== null)
        messages.push({ space, id: row.id, finishedAt: row.finishedAt, issueLanded: true, deliveryId });
    }
  }
  const refused = messages.length ? await deps.judgeQueue.sendAll(messages) : [];
  if (refused.length)
    throw new Error(`The judge queue refused ${refused.length} wake-up message(s): ${refused[0]!.reason}`);
}

async function landHiddenTest(
  deps: LandingDeps,
  entry: InboxEntry,
  delivery: HiddenTestDelivery,
): Promise<LandingOutcome> {
  const { space, id, host, finishedAt } = { space: entry.space, ...delivery };
  const hiddenTestResult = await storedHiddenTest(deps, space, id, finishedAt, delivery.hiddenTestResult);
  // Another host's run: the result belongs to this host's foreign attempt of that finishedAt, or waits for one
  // (held, as for a run not landed yet) and for an operator's reassignment.
  const apply = async () => {
    const applied = await applyHiddenTest(deps, space, id, host, finishedAt, hiddenTestResult);
    if (applied !== 'foreign') return applied;
    return (await deps.attempts.setAttemptHiddenTest(space, id, host, finishedAt, hiddenTestResult)) > 0
      ? 'applied'
      : 'no-run';
  };
  let result = await apply();
  if (result === 'no-run') {
    await deps.issues.putPendingHiddenTest({ space, id, host, finishedAt, hiddenTestResult });
    // The run may have landed between the read and the hold. Landing looks for a held result after its own
    // write, and this looks for the run after the hold: whichever comes second sees the other's write.
    result = await apply();
  }
  // The run has moved on to a later attempt: the result belongs to an archived one, if it has landed.
  if (
    result === 'moved-on' &&
    (await deps.attempts.setAttemptHiddenTest(space, id, host, finishedAt, hiddenTestResult)) > 0
  )
    return 'hidden-test-applied';
  const outcomes = {
    applied: 'hidden-test-applied',
    'no-run': 'hidden-test-held',
    'moved-on': 'hidden-test-ignored',
    older: 'hidden-test-ignored',
  } as const;
  return outcomes[result];
}

/**
 * The result as the row, a held result and an archived attempt keep it: test names past the row's share go to
 * the run's objects first (content-addressed, so a redelivery writes the same object), and `testsKey` says where.
 */
async function storedHiddenTest(
  deps: LandingDeps,
  space: string,
  id: string,
  finishedAt: string,
  result: HiddenTestResult,
): Promise<StoredHiddenTestResult> {
  const names = testNamesJson(result);
  if (names === null || rowKeepsTestNames(names)) return result;
  const key = testsKey(space, id, finishedAt, sha256Hex(names));
  await deps.objects.put(key, names, 'application/json');
  const { failedTests: _failed, passedTests: _passed, ...kept } = result;
  return { ...kept, testsKey: key };
}

type HiddenTestApplied = 'applied' | 'no-run' | 'moved-on' | 'older' | 'foreign';

/**
 * Sets the result on the run with that finishedAt; a run not landed yet, or since re-run, is left alone, and a run
 * of another host is never touched.
 */
async function applyHiddenTest(
  deps: LandingDeps,
  space: string,
  id: string,
  host: string,
  finishedAt: string,
  result: StoredHiddenTestResult,
): Promise<HiddenTestApplied> {
  return optimisticUpdate(
    runRecord(deps.runs, space, id),
    (current): UpdateDecision<RunRow, HiddenTestApplied> => {
      if (current && current.value.host !== host) return { done: 'foreign' };
      if (!current || current.value.finishedAt < finishedAt) return { done: 'no-run' };
      if (current.value.finishedAt > finishedAt) return { done: 'moved-on' };
      if (canonicalJson(current.value.hiddenTestResult) === canonicalJson(result)) return { done: 'applied' };
      if (!replacesHiddenTest(current.value.hiddenTestResult, result)) return { done: 'older' };
      return {
        write: { ...current.value, hiddenTestResult: result, updatedAt: deps.clock.now().toISOString() },
        result: 'applied',
      };
    },
    { what: `applying the hidden-test result of ${id}`, maxConflicts: MAX_CONFLICT_RETRIES },
  );
}

/** Per (space, host): the latest hardware and delivery time this space saw; order-independent. */
async function recordHostDelivery(
  hosts: HostStore,
  host: string,
  space: string,
  at: string,
  hardware: string | null,
): Promise<void> {
  await optimisticUpdate(
    hostRecord(hosts, space, host),
    (current): UpdateDecision<StoredHost, void> => {
      const before: StoredHost = current?.value ?? {
        host,
        space,
        hostHardware: null,
        firstDeliveryAt: null,
        lastDeliveryAt: null,
      };
      const isLatest = before.lastDeliveryAt === null || at >= before.lastDeliveryAt;
      const next: StoredHost = {
        host,
        space,
        hostHardware: isLatest && hardware ? hardware : before.hostHardware,
        firstDeliveryAt: before.firstDeliveryAt === null || at < before.firstDeliveryAt ? at : before.firstDeliveryAt,
        lastDeliveryAt: isLatest ? at : before.lastDeliveryAt,
      };
      return current && JSON.stringify(next) === JSON.stringify(before)
        ? { done: undefined }
        : { write: next, result: undefined };
    },
    { what: `updating host ${host} of space ${space}`, maxConflicts: MAX_CONFLICT_RETRIES },
  );
}
