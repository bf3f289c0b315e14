// Stage 2, land: the lander drains the landing queue, turns each inbox delivery into rows and objects, and
// queues new rows for judging. Records fail one by one (partial batch response), so a poison message
// reaches the dead-letter queue without holding back its batch.
import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { TIMEOUTS } from '../timing.ts';
import { ReplayFunction } from './replay-function.ts';
import type { StageProps } from './stage-props.ts';

export class Land extends Construct {
  readonly function: ReplayFunction;

  constructor(scope: Construct, id: string, { state, alarms }: Pick<StageProps, 'state' | 'alarms'>) {
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
          reportBatchItemFailures: true,
        }),
      );

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
