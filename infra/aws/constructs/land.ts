// Stage 2, land: the lander drains the landing queue, turns each inbox delivery into rows and objects, and
// queues new rows for judging. Records fail one by one (partial batch response), so a poison message
// reaches the dead-letter queue without holding back its batch. Every 15 minutes the inbox reconciler queues
// again what outlived its queue message (core/landing/reconcile-inbox.ts); like the other scheduled jobs,
// neither EventBridge nor Lambda retries a failed run, and a lease keeps two runs from overlapping.
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule as EventSchedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { LEASES, TIMINGS } from '#core/operations.ts';
import { TIMEOUTS } from '../timing.ts';
import { ReplayFunction } from './replay-function.ts';
import type { StageProps } from './stage-props.ts';

export class Land extends Construct {
  readonly function: ReplayFunction;
  readonly reconciler: ReplayFunction;

  constructor(scope: Construct, id: string, { config, state, alarms }: StageProps) {
    super(scope, id);
    this.function = new ReplayFunction(this, 'Lander', {
      service: 'lander',
      description:
        'Lands queued deliveries: rows in the table, patch and summary in the data bucket; queues rows for judging.',
      timeout: TIMEOUTS.lander,
      memorySize: 512,
    })
      .usesTable(state.table, 'read-write')
      .usesBucket('INBOX_BUCKET', state.objectAccess('inbox', 'read-delete'))
      .usesBucket('DATA_BUCKET', state.dataAccess('lander'))
      .sendsTo('JUDGE_QUEUE_URL', state.judgeQueue)
      .addEventSource(
        new SqsEventSource(state.landingQueue, {
          batchSize: 10,
          maxBatchingWindow: Duration.seconds(1),
          // Bounded so a backlog after an outage cannot take a new account's whole concurrency from ingest.
          maxConcurrency: config.concurrency.lander,
          reportBatchItemFailures: true,
        }),
      );

    this.reconciler = new ReplayFunction(this, 'InboxReconciler', {
      service: 'inbox-reconciler',
      description: 'Queues again accepted deliveries whose landing message was lost; sets aside what never lands.',
      timeout: TIMEOUTS.inboxReconciler,
      memorySize: 256,
    })
      .countsReenqueues(state.table)
      .holdsLease(state.table, LEASES.inboxReconciler.name)
      .usesBucket('INBOX_BUCKET', state.objectAccess('inbox', 'list'))
      .sendsTo('LANDING_QUEUE_URL', state.landingQueue)
      .sendsTo('LANDING_DLQ_URL', state.landingDlq);
    this.reconciler.lambda.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'ReconcileInbox', {
      description: 'Runs the inbox reconciliation.',
      schedule: EventSchedule.rate(Duration.seconds(TIMINGS.inboxReconcileEvery)),
      targets: [new LambdaFunction(this.reconciler.lambda, { retryAttempts: 0 })],
    });

    alarms.watch(this, 'ReconcilerFailing', {
      metric: this.reconciler.lambda.metricErrors({
        period: Duration.seconds(TIMINGS.inboxReconcileEvery),
        statistic: 'Sum',
      }),
      threshold: 1,
      evaluationPeriods: 2,
      description:
        'The inbox reconciler has failed twice in a row: an accepted delivery whose queue message was lost is not queued again.',
      runbook: 'Reconciler failing',
    });
    alarms.watchDeadLetters(
      this,
      'DeadLetters',
      state.landingDlq,
      'Deliveries that could not be landed',
      'Landing dead letters',
    );
    alarms.watchOldestMessage(
      this,
      'Backlog',
      state.landingQueue,
      Duration.minutes(15),
      'Deliveries waiting to land',
      'Landing backlog',
    );
  }
}
