// Operational contracts shared by the handlers, local mode and the CDK stacks: the metrics a handler
// publishes and the alarms watch, and the timings that must nest. Keeping both sides on these names means an
// alarm can never watch a metric nobody publishes, and a judge call can never outlive its function.

export const METRICS_NAMESPACE = 'ReplayBench';

export type ServiceName =
  'ingest' | 'lander' | 'read-api' | 'judge' | 'sweeper' | 'snapshot-compactor' | 'inbox-reconciler';

/** Every metric a handler publishes (Powertools EMF, dimension `service`). */
export const METRICS = {
  deliveryAccepted: 'DeliveryAccepted',
  deliveryRefused: 'DeliveryRefused',
  /** A host's key could not be read; that host's deliveries are refused until it can (alarmed). */
  hostKeyUnreadable: 'HostKeyUnreadable',
  /** A delivery verified with a host key shorter than 32 bytes: accepted, but that host should be paired anew. */
  weakHostKey: 'WeakHostKey',
  landed: 'Landed',
  /** A run of a host that does not own its id was kept apart as a foreign attempt (docs/contract.md §4). */
  foreignAttempt: 'ForeignAttempt',
  /** A run landed under the id of another stored run (model, task, harness version): archived apart, never current. */
  runIdCollision: 'RunIdCollision',
  landingMessageDropped: 'LandingMessageDropped',
  judgeMessageDropped: 'JudgeMessageDropped',
  judgeModelCalls: 'JudgeModelCalls',
  /** USD the model calls cost, as priced by the configuration (calls without a price add nothing). */
  judgeSpendUsd: 'JudgeSpendUsd',
  judged: 'Judged',
  /** An answer of "resolved" a flag rule contradicted: the run is flagged, not counted (docs/contract.md §5). */
  judgeFlagged: 'JudgeFlagged',
  judgeErrors: 'JudgeErrors',
  judgingPaused: 'JudgingPaused',
  runsRequeued: 'RunsRequeued',
  /** An accepted delivery found in the inbox past its landing time and queued again (docs/contract.md §3). */
  inboxReenqueued: 'InboxReenqueued',
  /** One queued again three times without landing: set aside in the landing dead-letter queue (alarmed). */
  inboxDeadLettered: 'InboxDeadLettered',
  snapshotRunsChanged: 'SnapshotRunsChanged',
  snapshotRebuilt: 'SnapshotRebuilt',
} as const;

export type MetricName = (typeof METRICS)[keyof typeof METRICS];

/**
 * Seconds. The judge's outbound calls end before its function does, the function ends before its claim on a
 * row lapses (so a row is never judged twice at once), and each queue hides a message longer than its
 * consumer can run (AWS asks for six times).
 */
export const TIMINGS = {
  /** Ingest's calls in a row (host keys, the owner check's claim and read-back, inbox, queue) fail inside it. */
  ingestFunction: 25,
  landerFunction: 30,
  readApiFunction: 15,
  sweeperFunction: 60,
  /** A rebuild reads the table in pages, stopping a minute short of this; the next run goes on. */
  snapshotCompactorFunction: 300,
  /** How often the compactor runs; readers cover the time since with the table's `since` query. */
  snapshotCompactEvery: 300,
  /** The compactor's lease (core/lease.ts) outlives its function, so a run cut off by the timeout frees it by expiry. */
  snapshotCompactorLease: 360,
  /** One reference fetch (each GitHub request bounded by this) plus one model call, plus the writes. */
  githubRequest: 10,
  modelCall: 90,
  judgeFunction: 120,
  /** A claimed row is due again after this long if its attempt died without a word (a crash, a timeout). */
  judgeClaim: 300,
  inboxReconcilerFunction: 120,
  /** How often the inbox reconciliation runs. */
  inboxReconcileEvery: 900,
} as const;

/** The limits of one AWS SDK call, in milliseconds (docs/contract.md §8). */
export interface AwsCallTimeouts {
  /** TCP (and TLS) to the service's endpoint. */
  connectMs: number;
  /** From sending a request, its body included, to the answer's headers; the SDK's standard retries then try again. */
  answerMs: number;
  /** Silence on a socket while an answer's body arrives; retried like a late answer. */
  socketIdleMs: number;
  /** The whole call, every retry and back-off included: past it the call fails, so the invocation can still answer. */
  deadlineMs: number;
}

/**
 * Items, messages, secrets, deliveries and patches take milliseconds; the deadline leaves room for the
 * SDK's back-off on throttling (from 1 s) and lets ingest's five calls in a row fail before its function
 * times out. The data bucket of the functions that read or write whole snapshots (tens of MB at a million
 * runs) gets the bulk limits. The local emulators share the machine's cores with the handlers and, under
 * load, answer in seconds what AWS answers in milliseconds: local mode and the tests give them their own.
 */
export const AWS_CALLS = {
  standard: { connectMs: 1_000, answerMs: 2_000, socketIdleMs: 2_000, deadlineMs: 4_000 },
  bulk: { connectMs: 1_000, answerMs: 10_000, socketIdleMs: 5_000, deadlineMs: 12_000 },
  emulated: { connectMs: 2_000, answerMs: 30_000, socketIdleMs: 30_000, deadlineMs: 60_000 },
} as const satisfies Record<string, AwsCallTimeouts>;

/** The leases scheduled jobs hold while they run (core/lease.ts). */
export const LEASES = {
  snapshotCompactor: { name: 'snapshot-compactor', seconds: TIMINGS.snapshotCompactorLease },
  inboxReconciler: { name: 'inbox-reconciler', seconds: TIMINGS.inboxReconcilerFunction + 60 },
} as const;

export const visibilitySecondsFor = (consumerTimeoutSeconds: number): number => consumerTimeoutSeconds * 6;

/**
 * Receives before a message is set aside in its dead-letter queue. A throttled invocation counts as a receive,
 * so this is also how long a queue rides out an account out of Lambda concurrency: ten visibility timeouts, 30
 * minutes for landing and two hours for the judge, where five (AWS's minimum advice) gave a new account's
 * 10 concurrent executions 15 minutes before a throttled delivery reached the DLQ.
 */
export const MAX_RECEIVES = 10;

/**
 * Bytes of body a Lambda answer may carry: Lambda caps a response at 6 MB, and a binary body crosses the
 * boundary as base64 (4 bytes for every 3).
 */
export const LAMBDA_ANSWER_BYTES = 4_400_000;
