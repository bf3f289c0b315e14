// Stage 3, judge: one model call per landed run, fed by the judge queue. The queue's event source mapping
// bounds the parallel calls to the model provider and GitHub (nothing else invokes the judge; `concurrency.judge`
// in the configuration), without
// reserved concurrency, which an account whose concurrency quota is 10 cannot grant; the daily caps are
// enforced in the table.
import { Annotations, Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { METRICS } from '#core/operations.ts';
import { judgedSpacesWithoutRepos } from '#schema/config.ts';
import { TIMEOUTS } from '../timing.ts';
import { serviceMetric } from './alarms.ts';
import { SWEEP_EVERY } from './schedule.ts';
import { ReplayFunction } from './replay-function.ts';
import type { StageProps } from './stage-props.ts';

export class Judge extends Construct {
  readonly function: ReplayFunction;

  constructor(scope: Construct, id: string, { config, state, alarms }: StageProps) {
    super(scope, id);
    this.function = new ReplayFunction(this, 'Judge', {
      service: 'judge',
      description:
        'Judges one landed run: fetches the reference fix, reserves budget, asks the judge model, writes the verdict.',
      timeout: TIMEOUTS.judge,
      // It mostly waits on the model, billed per GB-second: 256 MB is 1.66× its peak on the largest delivery
      // (154 MB, `npm run bench:judge-memory`; docs/performance.md says why not 192 MB).
      memorySize: 256,
      config,
    })
      .usesTable(state.table, 'read-write-count')
      .usesBucket('DATA_BUCKET', state.dataAccess('judge'))
      .readsSecret('ANTHROPIC_SECRET_ARN', state.anthropicKey)
      .readsSecret('GITHUB_APP_SECRET_ARN', state.githubApp)
      // One run per invocation, so a slow model call never holds other runs past their visibility timeout.
      .addEventSource(
        new SqsEventSource(state.judgeQueue, {
          batchSize: 1,
          maxConcurrency: config.concurrency.judge,
          reportBatchItemFailures: true,
        }),
      );

    // Without `repos` the judge fetches (and caches, for the space's cockpits) any repository the GitHub App can read.
    for (const space of judgedSpacesWithoutRepos(config))
      Annotations.of(this).addWarningV2(
        `replay:space-without-repos:${space}`,
        `Space ${space} is judged but lists no "repos": its judge fetches the fix of any repository the GitHub App can read, ` +
          `private ones included, for any issue record its senders deliver. List the space's repositories under "repos" (docs/deploy.md).`,
      );

    alarms.watchDeadLetters(this, 'DeadLetters', state.judgeDlq, 'Judge messages', 'Judge dead letters');
    alarms.watchOldestMessage(
      this,
      'Backlog',
      state.judgeQueue,
      Duration.hours(2),
      'Runs waiting for the judge',
      'Judge backlog',
    );
    alarms.watch(this, 'Errors', {
      metric: serviceMetric('judge', METRICS.judgeErrors, 'Sum', Duration.minutes(15)),
      threshold: 3,
      description:
        'Judge attempts are failing (model or GitHub unreachable, unparsable answers); rows retry with backoff until judge.maxAttempts.',
      runbook: 'Judge errors',
    });
    // While paused, the judge speaks only when a sweep's probe is refused, once per sweep: any refusal in the
    // last three sweeps keeps the alarm on, so the quiet minutes between probes do not clear it, and it
    // clears three sweeps after the last refusal.
    alarms.watch(this, 'Paused', {
      metric: serviceMetric('judge', METRICS.judgingPaused, 'Maximum', SWEEP_EVERY),
      threshold: 1,
      evaluationPeriods: 3,
      datapointsToAlarm: 1,
      description:
        'Judging is paused: the model provider refused the credentials (401/403) or the ' +
        'model. Put a working key in the Anthropic secret; the next sweep probes and resumes.',
      runbook: 'Judging paused',
    });
  }
}
