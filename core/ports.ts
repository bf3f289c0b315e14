// The dependencies the core takes as interfaces. Only adapters (adapters/**) know AWS SDKs, and
// local mode plugs the same AWS adapters into emulators.
import type { SentIssue, StoredIssue } from '#schema/issue.ts';
import type { StoredHost } from '#schema/host.ts';
import type { RunRow, StoredHiddenTestResult } from '#schema/run.ts';
import type { ArchivedAttempt } from '#schema/attempt.ts';
export type { LandingMessage, JudgeMessage, JudgeQueueMessage } from '#schema/messages.ts';

/** The tokens one model call used, as the judge model's port reports them; a count the provider does not give is null. */
export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  /** Prompt tokens written to the provider's cache (billed above the input price). */
  cacheWriteTokens: number | null;
  /** Prompt tokens read from the provider's cache (billed below it). */
  cacheReadTokens: number | null;
}

/** A stored row with the optimistic-lock revision the store keeps beside it. */
export interface Versioned<T> {
  value: T;
  rev: number;
}

/** A pagination cursor that this API did not hand out. */
export class InvalidCursorError extends Error {}

export interface Page<T> {
  items: T[];
  cursor: string | null;
}

export type DueRun = Pick<RunRow, 'id' | 'finishedAt'>;

export interface RunStore {
  getRun(space: string, id: string): Promise<Versioned<RunRow> | null>;
  /** Writes the row if the stored revision is still `expectedRev` (null: the row must not exist). False on conflict. */
  putRun(row: RunRow, expectedRev: number | null): Promise<boolean>;
  listRuns(space: string, query: { since?: string; cursor?: string; limit: number }): Promise<Page<RunRow>>;
  /**
   * Runs of a space whose next judge attempt is due at or before `dueBy`, soonest first (a sparse index, never a
   * scan): what the sweeper sends, the run's id and finishedAt, which is all the index keeps.
   */
  listDueRuns(space: string, dueBy: string, limit: number): Promise<DueRun[]>;
  countRunsByHost(space: string, host: string): Promise<number>;
}

/** Archived attempts of runs (docs/contract.md §4): written once, never erased. */
export interface AttemptStore {
  /** Archives the attempt unless one with the same item key (storage-layout's archivedAttemptKey) is archived already. */
  archiveAttempt(attempt: ArchivedAttempt): Promise<void>;
  /** Every archived attempt of the run, oldest first. */
  listAttempts(space: string, id: string): Promise<ArchivedAttempt[]>;
  /**
   * Sets the hidden-test result on the archived attempts `host` sent with that finishedAt (collisions aside) whose own
   * result ran earlier (or is absent); how many such attempts there are.
   */
  setAttemptHiddenTest(
    space: string,
    id: string,
    host: string,
    finishedAt: string,
    result: StoredHiddenTestResult,
  ): Promise<number>;
}

/** A hidden-test result that arrived before its run, held per sending host (docs/contract.md §4). */
export interface PendingHiddenTest {
  space: string;
  id: string;
  /** The host that sent it: only the run's own host's result is ever applied. */
  host: string;
  finishedAt: string;
  hiddenTestResult: StoredHiddenTestResult;
}

/** A run that waits for its task's issue record: landing the record wakes it (docs/contract.md §5). */
export interface IssueWaiter {
  space: string;
  taskId: string;
  id: string;
  finishedAt: string;
}

export interface IssueStore {
  /**
   * Writes the record unless the stored one for the task was sent at the same time or later (a conditional write;
   * a stored record without `sentAt` is older than any). Whether it was written.
   */
  putIssue(issue: SentIssue): Promise<boolean>;
  getIssue(space: string, taskId: string): Promise<StoredIssue | null>;
  /** Every issue of the space in task id order, or with `since` those updated at or after it (in no particular order). */
  listIssues(space: string, since?: string): Promise<StoredIssue[]>;
  /**
   * Holds a hidden-test result that arrived before its run, per (run, host): the latest finishedAt wins, and for one
   * finishedAt the result that ran latest.
   */
  putPendingHiddenTest(pending: PendingHiddenTest): Promise<void>;
  /** Every result held for the run, from any host. */
  getPendingHiddenTests(space: string, id: string): Promise<PendingHiddenTest[]>;
  /**
   * Notes that the run waits for its task's issue record, replacing the run's earlier note; kept for
   * EXPIRY_DAYS.issueWaiter from `now` (a waiting run looks again, and notes it again, at least every 6 hours).
   */
  putIssueWaiter(waiter: IssueWaiter, now: Date): Promise<void>;
  /** The runs noted as waiting for the task's issue record (some may no longer wait). */
  getIssueWaiters(space: string, taskId: string): Promise<IssueWaiter[]>;
}

/** Who publishes each task's issue record: the first host that claimed it (docs/contract.md §4). */
export interface IssueOwnerStore {
  /** Makes `host` the owner of the task's issue record unless another host is (a conditional write); the owner. */
  claimIssue(space: string, taskId: string, host: string): Promise<string>;
}

export interface HostStore {
  getHost(space: string, host: string): Promise<Versioned<StoredHost> | null>;
  putHost(host: StoredHost, expectedRev: number | null): Promise<boolean>;
}

export interface BudgetStore {
  /** Atomically takes one unit of (space, day) if fewer than `cap` were taken; false when the cap is reached. */
  reserve(space: string, day: string, cap: number): Promise<boolean>;
  /** Atomically takes one unit of the day's count across all spaces if fewer than `cap` were taken. */
  reserveAcrossSpaces(day: string, cap: number): Promise<boolean>;
  /** Gives back a unit `reserve` took for a call that was not made; never below zero. */
  release(space: string, day: string): Promise<void>;
  /** Atomically takes one unit of (space, host, day) if fewer than `cap` were taken. */
  reserveForHost(space: string, host: string, day: string, cap: number): Promise<boolean>;
  /** Gives back a unit `reserveForHost` took; never below zero. */
  releaseForHost(space: string, host: string, day: string): Promise<void>;
  /** Gives back a unit `reserveAcrossSpaces` took; never below zero. */
  releaseAcrossSpaces(day: string): Promise<void>;
  /** Adds one call's cost to the day's spend; null marks the day's spend unknown (a call without a price). */
  addCost(space: string, day: string, costUsd: number | null): Promise<void>;
  /** The days from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`) on which units were taken, oldest first. */
  listDays(space: string, fromDay: string, toDay: string): Promise<BudgetDay[]>;
}

export interface BudgetDay {
  day: string;
  calls: number;
  /** Judge spend of the day in USD; null while any attempt's price is unknown or spend is not recorded. */
  costUsd: number | null;
}

/** How often each inbox entry was queued again by the reconciliation (core/landing/reconcile-inbox.ts). */
export interface ReenqueueLedger {
  /** Counts one more time for the entry and answers the count, this one included. */
  countReenqueue(inboxKey: string, at: Date): Promise<number>;
}

/** Short-lived links to answers too large for one HTTP answer (docs/contract.md §6, exports). */
export interface LinkedDownloads {
  /** Stores `body` at `key` and answers a URL that serves it, as a download named `filename`, for `seconds`. */
  publish(key: string, body: Uint8Array, contentType: string, filename: string, seconds: number): Promise<string>;
  /** A URL that serves the object already at `key` (an engine wrote it), as a download named `filename`, for `seconds`. */
  link(key: string, contentType: string, filename: string, seconds: number): Promise<string>;
}

export interface ObjectStore {
  put(key: string, body: string | Uint8Array, contentType?: string): Promise<void>;
  /**
   * Writes the object only if no object has the key (S3's `If-None-Match: *`): true when it was created,
   * false when one exists already (another writer won; read it rather than overwrite it).
   */
  putIfAbsent(key: string, body: string | Uint8Array, contentType?: string): Promise<boolean>;
  /** The object's bytes with the ETag that names this version of it, or null when it does not exist. */
  getWithEtag(key: string): Promise<{ bytes: Uint8Array; etag: string } | null>;
  /**
   * Replaces the object only if it is still the version `etag` names (S3's `If-Match`); null: only if none
   * exists. False when someone else wrote it first: the caller re-reads, never overwrites.
   */
  putIfMatch(key: string, body: string | Uint8Array, etag: string | null, contentType?: string): Promise<boolean>;
  /** The keys under `prefix` last written before `before`. */
  listWrittenBefore(prefix: string, before: Date): Promise<string[]>;
  /** The object's text, or null when it does not exist. */
  getText(key: string): Promise<string | null>;
  /** The object's bytes, or null when it does not exist. */
  getBytes(key: string): Promise<Uint8Array | null>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
}

/** A message the queue did not take (its place among those sent), and its answer (`name: message`). */
export interface QueueRefusal {
  index: number;
  reason: string;
}

export interface MessageQueue<T> {
  send(message: T): Promise<void>;
  /** Sends each message, several to a call where the queue takes them so; answers those it did not take. */
  sendAll(messages: readonly T[]): Promise<QueueRefusal[]>;
}

/** Per-host signing keys by name (`{secretConfigKey}:{host}`): zero, one, or two during a rotation. */
export interface KeySource {
  keysFor(secretConfigKey: string, host: string): Promise<string[]>;
}

/** Whether a host has a key, without reading it (the read API may never see key values). */
export interface PairingCheck {
  isPaired(secretConfigKey: string, host: string): Promise<boolean>;
}

export interface Clock {
  now(): Date;
}

/**
 * A lease on a named job (core/lease.ts): at most one holder at a time, until it gives the lease up or
 * the lease expires (a holder that crashed or timed out keeps it no longer than that).
 */
export interface LeaseStore {
  /** Takes the lease for `holder` until `expiresAt` if nobody holds it, or the last holder's lease expired before `now`. */
  acquireLease(name: string, holder: string, now: Date, expiresAt: Date): Promise<boolean>;
  /** Gives the lease up if `holder` still holds it; a lease taken over by another holder is left alone. */
  releaseLease(name: string, holder: string): Promise<void>;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Whether a space's judging is held as a whole. While held, rows wait and the sweeper sends one probe per
 * sweep (`probeRunId`) instead of every due row, so a refused key or an absent one costs one call or one
 * check per sweep rather than one per row. `judging` means not held; there is no delete, so a hold ends by
 * being overwritten.
 */
export interface JudgingStatus {
  space: string;
  state: 'judging' | 'paused' | 'waiting-credentials';
  since: string;
  reason: { code: string; message: string } | null;
  probeRunId: string | null;
}

export interface JudgingStatusStore {
  getJudgingStatus(space: string): Promise<Versioned<JudgingStatus> | null>;
  /** Writes if the stored revision is still `expectedRev` (null: none stored yet). False on conflict. */
  putJudgingStatus(status: JudgingStatus, expectedRev: number | null): Promise<boolean>;
}

export interface JudgeModelRequest {
  model: string;
  system: string;
  /**
   * The part of the user message every run of one task shares (the issue and the reference fix), sent ahead
   * of `prompt` and marked so the provider can cache it: a task judged for many models pays for it once.
   */
  sharedPrompt: string;
  prompt: string;
  maxTokens: number;
  /** The JSON Schema the answer must match, asked of the provider as structured output (no tools). */
  answerSchema: Record<string, unknown>;
}

export interface JudgeModelAnswer {
  text: string;
  usage: TokenUsage;
}

/** One request of a Message Batch, named by the judge (run id and attempt). */
export interface JudgeBatchRequest {
  customId: string;
  request: JudgeModelRequest;
}

/** One request's result in an ended batch: its answer, or why it has none (errored, expired, canceled). */
export type JudgeBatchResult =
  { customId: string; answer: JudgeModelAnswer } | { customId: string; error: JudgeModelError };

/**
 * The judge model: one tool-free call (`ask`), or the same requests as one Message Batch, at the provider's batch
 * price. Failures throw `JudgeModelError`.
 */
export interface JudgeModel {
  ask(request: JudgeModelRequest): Promise<JudgeModelAnswer>;
  /** Submits the requests as one batch and answers its id. */
  submitBatch(requests: JudgeBatchRequest[]): Promise<string>;
  /** The results of an ended batch; null while it is still in progress. */
  batchResults(batchId: string): Promise<JudgeBatchResult[] | null>;
  /**
   * The batch created between `from` and `to` whose requests are exactly those named `customIds`: its id;
   * 'in-progress' while a batch created then has not ended (its requests cannot be read before); null when none.
   */
  findBatch(customIds: readonly string[], from: Date, to: Date): Promise<string | 'in-progress' | null>;
}

/** A Message Batch a batch-mode space's judge submitted: which attempt of which run each request is. */
export interface JudgeBatch {
  space: string;
  id: string;
  submittedAt: string;
  /**
   * `inputsSha256` fingerprints what the request was built from (batch.ts callFingerprint): an answer is read
   * only against the same inputs.
   */
  runs: { id: string; finishedAt: string; attempt: number; customId: string; inputsSha256: string }[];
  /**
   * Written before the requests go to the provider, under an id of the judge's own: the provider's batch, if the
   * submission created one, is found by its requests' names when this is collected (batch.ts).
   */
  unconfirmed?: boolean;
}

/** The batches submitted, one record each, listed until they are collected. */
export interface JudgeBatchStore {
  putJudgeBatch(batch: JudgeBatch): Promise<void>;
  /** The space's batches not yet collected. */
  listJudgeBatches(space: string): Promise<JudgeBatch[]>;
  /** The batch's results are all written: it is no longer listed (and is deleted a little later). */
  closeJudgeBatch(space: string, batchId: string, at: Date): Promise<void>;
  /**
   * Notes that the spend of the batch's request `customId` is counted: true the first time, false once it was (a
   * collect sent again), so a spend counted apart from its row's write counts once.
   */
  recordBatchSpend(space: string, batchId: string, customId: string): Promise<boolean>;
}

/** The code of the failure `batchResults` throws for a batch the provider does not have (any more). */
export const BATCH_NOT_FOUND = 'batch-not-found';

/**
 * A failed model call. A failure that `pausesJudging` (the provider refused the key: `bad-credentials`; it
 * does not know the model or retired it: `model-unavailable`) holds the whole space instead of costing an
 * attempt; any other failure is a failed attempt.
 */
export class JudgeModelError extends Error {
  /**
   * `unanswered`: the request may have reached the provider, but no answer came (a timeout, a dropped connection,
   * a 500, 502 or 504), so what it did with it is unknown; a batch submission so failed may still have been taken.
   */
  constructor(
    readonly code: string,
    message: string,
    readonly pausesJudging = false,
    readonly unanswered = false,
  ) {
    super(message);
  }
}

/** The merged fix of a task, read from the code host. Failures throw `ReferenceFetchError`. */
export interface ReferenceSource {
  /** The issue's title and body: used in the prompt, never stored or logged. */
  issueText(repo: string, issueNumber: number): Promise<string>;
  /** The unified diff `baseSha...mergeSha`. */
  diff(repo: string, baseSha: string, mergeSha: string): Promise<string>;
}

export class ReferenceFetchError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Set when the code host limits the rate: how long to wait before asking again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * Resolves a credentialed service when it is needed, so credentials that appear or change are used without
 * a restart; null when none are configured.
 */
export type ServiceProvider<T> = () => Promise<T | null>;

/** A value of an engine's answer row: numbers and strings as the engine typed them, bigints as numbers. */
export type EngineValue = string | number | boolean | null;

/**
 * An SQL engine over the run dataset in the data bucket (DuckDB in local mode, Athena in AWS): it runs the
 * shared queries of core/read/engine-queries.ts and answers every row, values as plain scalars.
 */
export interface AnalyticsEngine {
  /** The relation the queries read the run dataset as, with its `space` partition column. */
  readonly runDataset: string;
  /**
   * Whether an export's rows come sorted by run id (Athena, which sorts on its own machines) or in the order the
   * engine reads them (DuckDB, which runs in the read process: a sort holds every row of the export at once).
   */
  readonly exportsInIdOrder: boolean;
  /** Every row `sql` answers; EngineAnswerTooLargeError for more than the read function holds. */
  rows(sql: string): Promise<Record<string, EngineValue>[]>;
  /**
   * Writes the rows `sql` answers, in its column order, to the data bucket, no row passing through the caller,
   * and answers how many rows it wrote and where. `one`: a single object (DuckDB; Athena's CSV, its SELECT's
   * result): Parquet; CSV (RFC 4180, a header row, null as an empty cell); or JSON, `{"runs":[…]}` and the `extra`
   * members. `parts` (Athena's UNLOAD of Parquet or JSON): several objects under `prefix`, each sorted as `sql`
   * orders its rows: Parquet, or gzip-compressed JSON Lines (one object per row).
   */
  exportTo(
    sql: string,
    format: 'parquet' | 'csv' | 'json',
    where: { prefix: string; filename: string },
    extra: Record<string, string>,
  ): Promise<EngineExport>;
}

/** An engine's answer of more rows than the read function holds: refused, where reading it would run out of memory. */
export class EngineAnswerTooLargeError extends Error {
  override readonly name = 'EngineAnswerTooLargeError';
}

/** Where an engine wrote an export: one object in the format asked for, or parts (AnalyticsEngine.exportTo). */
export interface EngineExport {
  runs: number;
  layout: 'one' | 'parts';
  keys: string[];
}
