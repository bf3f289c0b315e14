// In-memory implementations of the ports (core/ports.ts) for handler and core tests. They keep the
// contracts the DynamoDB, S3 and SQS adapters keep, so a test that passes here is not relying on a fake
// being lenient: writes are conditional on the revision, values are copied in and out (a caller that
// mutates what it read changes nothing stored), pages follow the sort order of the table's keys and a
// cursor this store did not hand out is refused. The judge's model and code host: in-memory-judge-ports.ts.
import { createHash } from 'node:crypto';
import {
  InvalidCursorError,
  type AttemptStore,
  type BudgetDay,
  type BudgetStore,
  type Clock,
  type HostStore,
  type IssueOwnerStore,
  type IssueStore,
  type JudgeBatch,
  type JudgeBatchStore,
  type JudgingStatus,
  type JudgingStatusStore,
  type KeySource,
  type LeaseStore,
  type MessageQueue,
  type QueueRefusal,
  type ObjectStore,
  type Page,
  type PairingCheck,
  type PendingHiddenTest,
  type RunStore,
  type Versioned,
  type DueRun,
  type IssueWaiter,
} from '#core/ports.ts';
import { takesHiddenTest, type ArchivedAttempt } from '#schema/attempt.ts';
import type { StoredHost } from '#schema/host.ts';
import type { SentIssue, StoredIssue } from '#schema/issue.ts';
import type { StoredHiddenTestResult, RunRow } from '#schema/run.ts';
import { replacesHiddenTest } from '#core/landing/decide.ts';
import type { ReadDeps } from '#core/read/read-deps.ts';
import type { ReplayConfig } from '#schema/config.ts';
import { archivedAttemptKey } from '#core/storage-layout.ts';

/** Every table-backed port, as one table (like DynamoStore). */
export class InMemoryTable
  implements
    RunStore,
    AttemptStore,
    IssueStore,
    IssueOwnerStore,
    HostStore,
    BudgetStore,
    JudgingStatusStore,
    JudgeBatchStore
{
  private readonly runs = new Map<string, Versioned<RunRow>>();
  private readonly attempts = new Map<string, ArchivedAttempt>();
  private readonly issues = new Map<string, StoredIssue>();
  private readonly pending = new Map<string, PendingHiddenTest>();
  private readonly issueWaiters = new Map<string, IssueWaiter>();
  private readonly issueOwners = new Map<string, string>();
  private readonly hosts = new Map<string, Versioned<StoredHost>>();
  private readonly budgets = new Map<string, number>();
  private readonly allSpacesBudgets = new Map<string, number>();
  private readonly hostBudgets = new Map<string, number>();
  private readonly spend = new Map<string, number | null>();
  private readonly judging = new Map<string, Versioned<JudgingStatus>>();
  private readonly judgeBatches = new Map<string, JudgeBatch>();
  private readonly batchSpends = new Set<string>();

  async getRun(space: string, id: string): Promise<Versioned<RunRow> | null> {
    return copy(this.runs.get(key(space, id)) ?? null);
  }

  async putRun(row: RunRow, expectedRev: number | null): Promise<boolean> {
    return conditionalPut(this.runs, key(row.space, row.id), row, expectedRev);
  }

  /** Without `since`: by id, as the table's sort key orders them; with `since`: by updatedAt, then id. */
  async listRuns(space: string, query: { since?: string; cursor?: string; limit: number }): Promise<Page<RunRow>> {
    const sortKey = (row: RunRow) => (query.since ? `${row.updatedAt}#${row.id}` : row.id);
    const after = decodeCursor(query.cursor);
    const rows = this.runsOf(space)
      .filter((row) => !query.since || row.updatedAt >= query.since)
      .sort((a, b) => compare(sortKey(a), sortKey(b)))
      .filter((row) => after === null || compare(sortKey(row), after) > 0);
    const items = rows.slice(0, query.limit);
    const more = rows.length > query.limit;
    return { items: copy(items), cursor: more ? encodeCursor(sortKey(items.at(-1)!)) : null };
  }

  async listDueRuns(space: string, dueBy: string, limit: number): Promise<DueRun[]> {
    const due = this.runsOf(space).filter((row) => row.judgeNextAttemptAt !== null && row.judgeNextAttemptAt <= dueBy);
    return due
      .sort((a, b) => compare(a.judgeNextAttemptAt!, b.judgeNextAttemptAt!))
      .slice(0, limit)
      .map(({ id, finishedAt }) => ({ id, finishedAt }));
  }

  async countRunsByHost(space: string, host: string): Promise<number> {
    return this.runsOf(space).filter((row) => row.host === host).length;
  }

  async archiveAttempt(attempt: ArchivedAttempt): Promise<void> {
    const id = attemptItem(attempt);
    if (!this.attempts.has(id)) this.attempts.set(id, copy(attempt));
  }

  /** Oldest first: the table sorts a run's attempts by finishedAt, then patch (then origin). */
  async listAttempts(space: string, id: string): Promise<ArchivedAttempt[]> {
    const attempts = [...this.attempts.values()].filter((attempt) => attempt.space === space && attempt.id === id);
    return copy(attempts.sort((a, b) => compare(attemptItem(a), attemptItem(b))));
  }

  async setAttemptHiddenTest(
    space: string,
    id: string,
    host: string,
    finishedAt: string,
    result: StoredHiddenTestResult,
  ): Promise<number> {
    const matching = (await this.listAttempts(space, id)).filter((a) => takesHiddenTest(a, host, finishedAt));
    for (const attempt of matching.filter((a) => replacesHiddenTest(a.hiddenTestResult, result)))
      this.attempts.set(attemptItem(attempt), {
        ...attempt,
        hiddenTestResult: copy(result),
      });
    return matching.length;
  }

  async putIssue(issue: SentIssue): Promise<boolean> {
    const stored = this.issues.get(key(issue.space, issue.taskId));
    if (stored?.sentAt !== undefined && stored.sentAt >= issue.sentAt) return false;
    this.issues.set(key(issue.space, issue.taskId), copy(issue));
    return true;
  }

  async getIssue(space: string, taskId: string): Promise<StoredIssue | null> {
    return copy(this.issues.get(key(space, taskId)) ?? null);
  }

  async listIssues(space: string, since?: string): Promise<StoredIssue[]> {
    return copy(
      [...this.issues.values()]
        .filter((issue) => issue.space === space && (since === undefined || issue.updatedAt >= since))
        .sort((a, b) => compare(a.taskId, b.taskId)),
    );
  }

  async putPendingHiddenTest(pending: PendingHiddenTest): Promise<void> {
    const id = key(pending.space, pending.id, pending.host);
    const held = this.pending.get(id);
    const later =
      !held ||
      held.finishedAt < pending.finishedAt ||
      (held.finishedAt === pending.finishedAt && replacesHiddenTest(held.hiddenTestResult, pending.hiddenTestResult));
    if (later) this.pending.set(id, copy(pending));
  }

  async getPendingHiddenTests(space: string, id: string): Promise<PendingHiddenTest[]> {
    return copy([...this.pending.values()].filter((p) => p.space === space && p.id === id));
  }

  async putIssueWaiter(waiter: IssueWaiter, _now: Date): Promise<void> {
    this.issueWaiters.set(key(waiter.space, waiter.taskId, waiter.id), copy(waiter));
  }

  async getIssueWaiters(space: string, taskId: string): Promise<IssueWaiter[]> {
    return copy([...this.issueWaiters.values()].filter((w) => w.space === space && w.taskId === taskId));
  }

  async claimIssue(space: string, taskId: string, host: string): Promise<string> {
    const id = key(space, taskId);
    if (!this.issueOwners.has(id)) this.issueOwners.set(id, host);
    return this.issueOwners.get(id)!;
  }

  async getHost(space: string, host: string): Promise<Versioned<StoredHost> | null> {
    return copy(this.hosts.get(key(space, host)) ?? null);
  }

  async putHost(host: StoredHost, expectedRev: number | null): Promise<boolean> {
    return conditionalPut(this.hosts, key(host.space, host.host), host, expectedRev);
  }

  async reserve(space: string, day: string, cap: number): Promise<boolean> {
    return takeUnit(this.budgets, key(space, day), cap);
  }

  async reserveAcrossSpaces(day: string, cap: number): Promise<boolean> {
    return takeUnit(this.allSpacesBudgets, day, cap);
  }

  async release(space: string, day: string): Promise<void> {
    giveBack(this.budgets, key(space, day));
  }

  async reserveForHost(space: string, host: string, day: string, cap: number): Promise<boolean> {
    return takeUnit(this.hostBudgets, key(space, host, day), cap);
  }

  async releaseForHost(space: string, host: string, day: string): Promise<void> {
    giveBack(this.hostBudgets, key(space, host, day));
  }

  async releaseAcrossSpaces(day: string): Promise<void> {
    giveBack(this.allSpacesBudgets, day);
  }

  async addCost(space: string, day: string, costUsd: number | null): Promise<void> {
    const spent = this.spentOn(key(space, day));
    this.spend.set(key(space, day), spent === null || costUsd === null ? null : spent + costUsd);
  }

  /** Calls per day and their spend, as the table keeps them. */
  async listDays(space: string, fromDay: string, toDay: string): Promise<BudgetDay[]> {
    const days: BudgetDay[] = [];
    for (const [k, calls] of this.budgets) {
      const [s, day] = k.split('\u0000') as [string, string];
      if (s === space && day >= fromDay && day <= toDay) days.push({ day, calls, costUsd: this.spentOn(k) });
    }
    return days.sort((a, b) => a.day.localeCompare(b.day));
  }

  async getJudgingStatus(space: string): Promise<Versioned<JudgingStatus> | null> {
    return copy(this.judging.get(space) ?? null);
  }

  async putJudgingStatus(status: JudgingStatus, expectedRev: number | null): Promise<boolean> {
    return conditionalPut(this.judging, status.space, status, expectedRev);
  }

  async putJudgeBatch(batch: JudgeBatch): Promise<void> {
    this.judgeBatches.set(`${batch.space}#${batch.id}`, structuredClone(batch));
  }

  async listJudgeBatches(space: string): Promise<JudgeBatch[]> {
    return [...this.judgeBatches.values()].filter((b) => b.space === space).map((b) => structuredClone(b));
  }

  async closeJudgeBatch(space: string, batchId: string): Promise<void> {
    this.judgeBatches.delete(`${space}#${batchId}`);
  }

  async recordBatchSpend(space: string, batchId: string, customId: string): Promise<boolean> {
    const key = `${space}#${batchId}#${customId}`;
    if (this.batchSpends.has(key)) return false;
    this.batchSpends.add(key);
    return true;
  }

  /** A day's spend: nothing yet is 0, and unknown (null) once a call without a price was added. */
  private spentOn(day: string): number | null {
    return this.spend.has(day) ? this.spend.get(day)! : 0;
  }

  private runsOf(space: string): RunRow[] {
    return [...this.runs.values()].map((stored) => stored.value).filter((row) => row.space === space);
  }
}

/** A bucket: keys listed in lexicographic order, as S3 lists them. */
export class InMemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, { body: Uint8Array; contentType: string | undefined; writtenAt: Date }>();

  async put(key: string, body: string | Uint8Array, contentType?: string): Promise<void> {
    this.objects.set(key, { body: Buffer.from(body), contentType, writtenAt: new Date() });
  }

  async putIfAbsent(key: string, body: string | Uint8Array, contentType?: string): Promise<boolean> {
    if (this.objects.has(key)) return false;
    await this.put(key, body, contentType);
    return true;
  }

  /** The ETag S3 gives an object written in one PUT: the MD5 of its bytes, quoted. */
  async getWithEtag(key: string): Promise<{ bytes: Uint8Array; etag: string } | null> {
    const object = this.objects.get(key);
    return object ? { bytes: object.body, etag: `"${createHash('md5').update(object.body).digest('hex')}"` } : null;
  }

  async putIfMatch(
    key: string,
    body: string | Uint8Array,
    etag: string | null,
    contentType?: string,
  ): Promise<boolean> {
    if (etag === null) return this.putIfAbsent(key, body, contentType);
    if ((await this.getWithEtag(key))?.etag !== etag) return false;
    await this.put(key, body, contentType);
    return true;
  }

  async getText(key: string): Promise<string | null> {
    const object = this.objects.get(key);
    return object ? Buffer.from(object.body).toString('utf8') : null;
  }

  async getBytes(key: string): Promise<Uint8Array | null> {
    return this.objects.get(key)?.body ?? null;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort(compare);
  }

  async listWrittenBefore(prefix: string, before: Date): Promise<string[]> {
    return (await this.list(prefix)).filter((k) => this.objects.get(k)!.writtenAt < before);
  }
}

/** A queue that keeps what was sent, in order, for the test to read. */
export class RecordingQueue<T> implements MessageQueue<T> {
  readonly sent: T[] = [];

  async send(message: T): Promise<void> {
    this.sent.push(structuredClone(message));
  }

  async sendAll(messages: readonly T[]): Promise<QueueRefusal[]> {
    const refused: QueueRefusal[] = [];
    for (const [index, message] of messages.entries())
      await this.send(message).catch((error: Error) =>
        refused.push({ index, reason: `${error.name}: ${error.message}` }),
      );
    return refused;
  }
}

/** Host keys by `{secretConfigKey}:{host}`, as the key source names them; paired means at least one key. */
export class InMemoryKeySource implements KeySource, PairingCheck {
  constructor(private readonly keys: Record<string, string[]>) {}

  async keysFor(secretConfigKey: string, host: string): Promise<string[]> {
    return [...(this.keys[`${secretConfigKey}:${host}`] ?? [])];
  }

  async isPaired(secretConfigKey: string, host: string): Promise<boolean> {
    return (await this.keysFor(secretConfigKey, host)).length > 0;
  }
}

/** Leases as the table keeps them: taken when free or expired, given up only by their holder. */
export class InMemoryLeases implements LeaseStore {
  private readonly leases = new Map<string, { holder: string; expiresAt: string }>();

  async acquireLease(name: string, holder: string, now: Date, expiresAt: Date): Promise<boolean> {
    const held = this.leases.get(name);
    if (held && held.expiresAt >= now.toISOString()) return false;
    this.leases.set(name, { holder, expiresAt: expiresAt.toISOString() });
    return true;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }
}

/** A clock that stands still until a test moves it. */
export class SettableClock implements Clock {
  constructor(private current: Date) {}

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

type AsyncMethodOf<T> = { [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof T];

/**
 * `target` with one method failing, as a service outage makes it fail, whenever `when` holds for its
 * arguments; everything else is passed through to the target.
 */
export function failingWhen<T extends object, K extends AsyncMethodOf<T>>(
  target: T,
  method: K,
  when: (...args: T[K] extends (...args: infer A) => unknown ? A : never) => boolean,
  error: () => Error,
): T {
  return new Proxy(target, {
    get(object, prop, receiver) {
      const value: unknown = Reflect.get(object, prop, receiver);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(object);
      if (prop !== method) return bound;
      return async (...args: Parameters<typeof when>) => {
        if (when(...args)) throw error();
        return bound(...args);
      };
    },
  });
}

const key = (...parts: string[]) => parts.join('\u0000');
const attemptItem = (attempt: ArchivedAttempt) => {
  const { pk, sk } = archivedAttemptKey(attempt);
  return key(pk, sk);
};

/** Code-unit order, which for the keys used here is the byte order DynamoDB and S3 sort by. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const copy = <T>(value: T): T => structuredClone(value);

function conditionalPut<T>(map: Map<string, Versioned<T>>, id: string, value: T, expectedRev: number | null): boolean {
  const stored = map.get(id);
  if ((stored?.rev ?? null) !== expectedRev) return false;
  map.set(id, { value: copy(value), rev: (expectedRev ?? 0) + 1 });
  return true;
}

function encodeCursor(after: string): string {
  return Buffer.from(JSON.stringify({ after })).toString('base64url');
}

function decodeCursor(cursor: string | undefined): string | null {
  if (!cursor) return null;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof decoded.after === 'string') return decoded.after;
  } catch {
    // refused below
  }
  throw new InvalidCursorError('The cursor is not one this API returned.');
}

function giveBack(counts: Map<string, number>, at: string): void {
  const used = counts.get(at) ?? 0;
  if (used > 0) counts.set(at, used - 1);
}

function takeUnit(counts: Map<string, number>, at: string, cap: number): boolean {
  const used = counts.get(at) ?? 0;
  if (used >= cap) return false;
  counts.set(at, used + 1);
  return true;
}

/** Judge calls taken from a space's budget on one UTC day, read through the port the read API uses. */
export const budgetCalls = async (budget: BudgetStore, space: string, day: string): Promise<number> =>
  (await budget.listDays(space, day, day))[0]?.calls ?? 0;

/** The read API's ports over one in-memory table, with no pairing keys, at `now`. */
export const inMemoryReadDeps = (table: InMemoryTable, config: ReplayConfig, now: Date): ReadDeps => ({
  config,
  runs: table,
  attempts: table,
  issues: table,
  hosts: table,
  objects: new InMemoryObjectStore(),
  pairing: new InMemoryKeySource({}),
  budget: table,
  clock: new SettableClock(now),
});
