// Stage 4, schedule: every few minutes the sweeper puts rows whose next judge attempt is due back on the
// judge queue (retries with backoff, next-day budget, a probe while judging is paused), and the snapshot
// compactor brings each space's persisted runs snapshot up to date (core/read/snapshot-store.ts). A missed
// or failed run is redone by the next one, so neither EventBridge nor Lambda retries one: Lambda would
// otherwise retry a failed asynchronous invocation twice, on top of EventBridge's own retries.
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule as EventSchedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { LEASES, TIMINGS } from '#core/operations.ts';
import { TIMEOUTS } from '../timing.ts';
import { ReplayFunction } from './replay-function.ts';
import type { StageProps } from './stage-props.ts';

export const SWEEP_EVERY = Duration.minutes(5);
export const COMPACT_EVERY = Duration.seconds(TIMINGS.snapshotCompactEvery);

export class Schedule extends Construct {
  readonly function: ReplayFunction;
  readonly compactor: ReplayFunction;

  constructor(scope: Construct, id: string, { config, state, alarms }: StageProps) {
    super(scope, id);
    this.function = new ReplayFunction(this, 'Sweeper', {
      service: 'sweeper',
      description: 'Re-queues runs whose next judge attempt is due.',
      timeout: TIMEOUTS.sweeper,
      memorySize: 256,
      config,
    })
      .usesTable(state.table, 'read-write')
      .sendsTo('JUDGE_QUEUE_URL', state.judgeQueue);
    this.function.lambda.configureAsyncInvoke({ retryAttempts: 0 });

    // A missed sweep is redone by the next one, so a late retry of an old event only duplicates work.
    new Rule(this, 'Every5Minutes', {
      description: 'Runs the judge sweeper.',
      schedule: EventSchedule.rate(SWEEP_EVERY),
      targets: [new LambdaFunction(this.function.lambda, { retryAttempts: 0 })],
    });

    alarms.watch(this, 'Failing', {
      metric: this.function.lambda.metricErrors({ period: SWEEP_EVERY, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 3,
      description: 'The sweeper has failed three times in a row: due judge retries are not being re-queued.',
      runbook: 'Sweeper failing',
    });

    // The one writer of the snapshot objects. It reads the table's changes (whole, streamed, once a day)
    // and writes immutable snapshot parts, one in memory at a time; it never deletes. The heap's limit is
    // set from its memory. A lease in the table, not reserved concurrency, keeps a second run from
    // overlapping a slow one.
    this.compactor = new ReplayFunction(this, 'SnapshotCompactor', {
      service: 'snapshot-compactor',
      description: "Brings each space's persisted runs snapshot up to date for the read API.",
      timeout: TIMEOUTS.snapshotCompactor,
      memorySize: 3008,
      heapFromMemory: true,
      config,
    })
      .usesTable(state.table, 'read')
      .holdsLease(state.table, LEASES.snapshotCompactor.name)
      .usesBucket('DATA_BUCKET', state.dataAccess('snapshot-compactor'));
    this.compactor.lambda.configureAsyncInvoke({ retryAttempts: 0 });

    new Rule(this, 'CompactSnapshots', {
      description: 'Runs the snapshot compactor.',
      schedule: EventSchedule.rate(COMPACT_EVERY),
      targets: [new LambdaFunction(this.compactor.lambda, { retryAttempts: 0 })],
    });

    alarms.watch(this, 'CompactorFailing', {
      metric: this.compactor.lambda.metricErrors({ period: COMPACT_EVERY, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 3,
      description:
        'The snapshot compactor has failed three times in a row: cold cockpits read a growing delta, then the whole table.',
      runbook: 'Compactor failing',
    });
  }
}
