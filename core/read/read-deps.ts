// What the read API's routes take: the stores and settings both the read-api Lambda and local mode wire.
import type { ReplayConfig } from '#schema/config.ts';
import type {
  AnalyticsEngine,
  AttemptStore,
  BudgetStore,
  Clock,
  HostStore,
  IssueStore,
  LinkedDownloads,
  ObjectStore,
  PairingCheck,
  RunStore,
} from '../ports.ts';

export interface ReadDeps {
  config: ReplayConfig;
  runs: RunStore;
  attempts: AttemptStore;
  issues: IssueStore;
  hosts: HostStore;
  objects: ObjectStore;
  pairing: PairingCheck;
  budget: BudgetStore;
  clock: Clock;
  /** Bytes of body one answer may carry (LAMBDA_ANSWER_BYTES behind API Gateway); unset: no limit (local mode). */
  maxAnswerBytes?: number;
  /** Where an export too large for one answer is put, to be fetched by a short-lived link (unset: 413). */
  downloads?: LinkedDownloads;
  /**
   * The analytics engine over the run dataset: it answers `/stats`, `/pairs` and the exports of a space whose
   * persisted snapshot counts more runs than the configuration's `engine.aboveRuns` (unset: never).
   */
  engine?: AnalyticsEngine;
}
