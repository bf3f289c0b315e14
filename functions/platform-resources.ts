// What a function's wiring is built from, on either platform: the stores, buckets and queues of a deployment
// (functions/aws-resources.ts: the stack's, from the environment) or of local mode (infra/local/local-mode.ts:
// the emulators'). Each function's `wire.ts` takes the resources it needs and the environment's settings, so
// AWS and local mode assemble a handler's dependencies with the same code (docs/contract.md §9).
import type { DynamoLeaseStore } from '#adapters/aws/dynamo-lease.ts';
import type { DynamoReenqueueLedger } from '#adapters/aws/dynamo-reenqueue-ledger.ts';
import type { DynamoStore } from '#adapters/aws/dynamo-store.ts';
import type { SecretValues } from '#adapters/aws/secret-values.ts';
import type {
  AnalyticsEngine,
  Clock,
  JudgeQueueMessage,
  KeySource,
  LandingMessage,
  LinkedDownloads,
  MessageQueue,
  ObjectStore,
  PairingCheck,
} from '#core/ports.ts';
import type { ReplayConfig } from '#schema/config.ts';

export interface PlatformResources {
  config: ReplayConfig;
  /** The one table: runs, attempts, issues, hosts, budgets, judging status, open judge batches. */
  table: DynamoStore;
  leases: DynamoLeaseStore;
  reenqueueLedger: DynamoReenqueueLedger;
  inbox: ObjectStore;
  data: ObjectStore;
  /** The data bucket for readers of whole snapshots (longer timeouts in AWS). */
  bulkData: ObjectStore;
  landingQueue: MessageQueue<LandingMessage>;
  /**
   * Where the landing queue is durable (SQS), the largest landing message: a delivery that fits travels in it,
   * with no inbox object. Absent locally, where the queue lives in memory and the inbox is replayed on start.
   */
  landingMessageMaxBytes?: number;
  /** Which object keys the object store takes, where it takes less than any key of 1,024 bytes (local mode). */
  objectKeyFits?: (key: string) => boolean;
  landingDeadLetters: MessageQueue<LandingMessage>;
  judgeQueue: MessageQueue<JudgeQueueMessage>;
  hostKeys: KeySource;
  pairing: PairingCheck;
  /** Where the judge's credentials live in AWS (Secrets Manager); absent locally (the environment holds them). */
  secrets?: SecretValues;
  /** Where exports too large for one answer go; absent: such an export is refused. */
  downloads?: LinkedDownloads;
  /** The analytics engine over the run dataset (DuckDB locally, Athena in AWS); absent: the read API holds the runs. */
  engine?: AnalyticsEngine;
  /** Bytes one read answer may carry (a Lambda answer's limit); absent: no limit. */
  answerBytes?: number;
  clock: Clock;
}
