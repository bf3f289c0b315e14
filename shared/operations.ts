// Operational contracts shared by the handlers, local mode and the CDK stacks: the metrics a handler
// publishes and the alarms watch, and the timings that must nest. Keeping both sides on these names means an
// alarm can never watch a metric nobody publishes, and a judge call can never outlive its function.

export const METRICS_NAMESPACE = 'ReplayBench';

export type ServiceName = 'ingest' | 'lander' | 'read-api' | 'judge' | 'sweeper' | 'snapshot-compactor';

/** Every metric a handler publishes (Powertools EMF, dimension `service`). */
export const METRICS = {
  deliveryAccepted: 'DeliveryAccepted',
  deliveryRefused: 'DeliveryRefused',
  /** A host's key could not be read; that host's deliveries are refused until it can (alarmed). */
  hostKeyUnreadable: 'HostKeyUnreadable',
  landed: 'Landed',
  /** A run or hidden-test result of one host for another host's run reached landing and was not applied. */
  crossHostRejected: 'CrossHostRejected',
  landingMessageDropped: 'LandingMessageDropped',
  judgeMessageDropped: 'JudgeMessageDropped',
  judgeModelCalls: 'JudgeModelCalls',
  judged: 'Judged',
  judgeErrors: 'JudgeErrors',
  judgingPaused: 'JudgingPaused',
  runsRequeued: 'RunsRequeued',
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
  ingestFunction: 15,
  landerFunction: 30,
  readApiFunction: 15,
  sweeperFunction: 60,
  /** Rebuilding a lost snapshot reads the whole table: 100k runs take well under a minute. */
  snapshotCompactorFunction: 300,
  /** How often the compactor runs; readers cover the time since with the table's `since` query. */
  snapshotCompactEvery: 300,
  /** One reference fetch (each GitHub request bounded by this) plus one model call, plus the writes. */
  githubRequest: 10,
  modelCall: 90,
  judgeFunction: 120,
  /** A claimed row is due again after this long if its attempt died without a word (a crash, a timeout). */
  judgeClaim: 300,
} as const;

export const visibilitySecondsFor = (consumerTimeoutSeconds: number): number => consumerTimeoutSeconds * 6;

/** Receives before a message is set aside in its dead-letter queue. */
export const MAX_RECEIVES = 5;

/**
 * Bytes of body a Lambda answer may carry: Lambda caps a response at 6 MB, and a binary body crosses the
 * boundary as base64 (4 bytes for every 3).
 */
export const LAMBDA_ANSWER_BYTES = 4_400_000;
