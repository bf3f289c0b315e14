// The CDK's view of the timings in core/operations.ts: function timeouts and the queue visibility timeouts
// derived from them, so the stacks and the handlers can never disagree.
import { Duration } from 'aws-cdk-lib';
import { TIMINGS, visibilitySecondsFor } from '#core/operations.ts';

export { MAX_RECEIVES } from '#core/operations.ts';

export const TIMEOUTS = {
  ingest: Duration.seconds(TIMINGS.ingestFunction),
  lander: Duration.seconds(TIMINGS.landerFunction),
  readApi: Duration.seconds(TIMINGS.readApiFunction),
  judge: Duration.seconds(TIMINGS.judgeFunction),
  sweeper: Duration.seconds(TIMINGS.sweeperFunction),
  snapshotCompactor: Duration.seconds(TIMINGS.snapshotCompactorFunction),
  inboxReconciler: Duration.seconds(TIMINGS.inboxReconcilerFunction),
} as const;

export const visibilityFor = (consumerTimeout: Duration): Duration =>
  Duration.seconds(visibilitySecondsFor(consumerTimeout.toSeconds()));
