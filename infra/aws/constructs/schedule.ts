// Stage 4, schedule: every few minutes the sweeper puts rows whose next judge attempt is due back on the
// judge queue (retries with backoff, next-day budget, a probe while judging is paused).
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule as EventSchedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { TIMEOUTS } from '../timing.ts';
import { ReplayFunction } from './replay-function.ts';
import type { StageProps } from './stage-props.ts';

export const SWEEP_EVERY = Duration.minutes(5);

export class Schedule extends Construct {
  readonly function: ReplayFunction;

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
    });
  }
}
