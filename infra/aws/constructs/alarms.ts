// One SNS topic for every alarm of the pipeline, subscribed by the configured email. Stages declare their
// own alarms through `watch`, so an alarm sits next to the resource it is about, and each names its runbook
// (a section of docs/deploy.md, "Reading the alarms") in its description, which the alarm's mail carries.
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_RECEIVES, METRICS, METRICS_NAMESPACE, type MetricName, type ServiceName } from '#core/operations.ts';

export interface Watch {
  metric: IMetric;
  /** Breaches at or above this value. */
  threshold: number;
  description: string;
  /** The alarm's section in docs/deploy.md, "Reading the alarms" (test/infra/operations.test.ts checks it exists). */
  runbook: string;
  evaluationPeriods?: number;
  /** How many of the evaluated periods must breach; default all of them. */
  datapointsToAlarm?: number;
}

/** How an alarm's description names its runbook. */
export const runbookReference = (runbook: string) => `Runbook: docs/deploy.md, "${runbook}".`;

export class Alarms extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: { email?: string }) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'replay-bench alarms', enforceSSL: true });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }

  /** Missing data is not breaching: a quiet pipeline publishes nothing, and that is healthy. */
  watch(scope: Construct, id: string, watch: Watch): Alarm {
    const alarm = new Alarm(scope, id, {
      metric: watch.metric,
      threshold: watch.threshold,
      evaluationPeriods: watch.evaluationPeriods ?? 1,
      datapointsToAlarm: watch.datapointsToAlarm,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      // The runbook goes first: AWS caps a description at 1,024 characters, and a cockpit's name may be long.
      alarmDescription: `${runbookReference(watch.runbook)} ${watch.description}`.slice(0, 1024),
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    return alarm;
  }

  /** Anything in a dead-letter queue is a message the pipeline gave up on and a person must look at. */
  watchDeadLetters(scope: Construct, id: string, dlq: IQueue, what: string, runbook: string): Alarm {
    return this.watch(scope, id, {
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description: `${what} failed ${MAX_RECEIVES} times and wait in the dead-letter queue.`,
      runbook,
    });
  }

  /**
   * A host key the ingest function could not read (a secret being deleted, throttled lookups): that host's
   * deliveries are refused with 401 until it can, while every other host's go through.
   */
  watchUnreadableHostKeys(scope: Construct, id: string): Alarm {
    return this.watch(scope, id, {
      metric: serviceMetric('ingest', METRICS.hostKeyUnreadable, 'Sum', Duration.minutes(5)),
      threshold: 1,
      description:
        "A host's signing key could not be read from Secrets Manager (deleted, scheduled for deletion " +
        "or throttled); that host's deliveries are refused until it can. The ingest logs name the host.",
      runbook: 'Unreadable host keys',
    });
  }

  watchOldestMessage(
    scope: Construct,
    id: string,
    queue: IQueue,
    maxAge: Duration,
    what: string,
    runbook: string,
  ): Alarm {
    return this.watch(scope, id, {
      metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: maxAge.toSeconds(),
      description: `${what} have waited more than ${maxAge.toHumanString()}: the consumer is failing or throttled.`,
      runbook,
    });
  }
}

/** A metric a handler publishes through Powertools (EMF), which adds the `service` dimension. */
export const serviceMetric = (
  service: ServiceName,
  metricName: MetricName,
  statistic: string,
  period: Duration,
): Metric => new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service }, statistic, period });
