// One CloudWatch dashboard per deployment: what came in (deliveries accepted and refused), what landed, what
// the judge did and spent, what waits in the dead-letter queues, and each pipeline function's errors,
// throttles and p95 duration. The cockpits' own figures are on their read APIs' and distributions' metrics.
import { Duration } from 'aws-cdk-lib';
import { Dashboard, GraphWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS, type MetricName, type ServiceName } from '#core/operations.ts';
import { serviceMetric } from './alarms.ts';
import type { ReplayFunction } from './replay-function.ts';

export interface OperationsDashboardProps {
  dashboardName: string;
  functions: Record<string, ReplayFunction>;
  queues: { name: string; queue: IQueue; dlq: IQueue }[];
}

const PERIOD = Duration.minutes(5);
const sum = (service: ServiceName, metric: MetricName, label: string) =>
  serviceMetric(service, metric, 'Sum', PERIOD).with({ label });

export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, { dashboardName, functions, queues }: OperationsDashboardProps) {
    super(scope, id);
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 8, height: 6 });
    const perFunction = (metric: (fn: ReplayFunction, label: string) => IMetric) =>
      Object.entries(functions).map(([label, fn]) => metric(fn, label));
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName,
      widgets: [
        [
          graph('Deliveries', [
            sum('ingest', METRICS.deliveryAccepted, 'accepted (202)'),
            sum('ingest', METRICS.deliveryRefused, 'refused (4xx)'),
          ]),
          graph('Landings', [sum('lander', METRICS.landed, 'landed')]),
          graph(
            'Judge: calls and spend (USD, right)',
            [
              sum('judge', METRICS.judgeModelCalls, 'model calls'),
              sum('judge', METRICS.judged, 'verdicts'),
              sum('judge', METRICS.judgeFlagged, 'flagged'),
              sum('judge', METRICS.judgeErrors, 'errors'),
              serviceMetric('judge', METRICS.judgingPaused, 'Maximum', PERIOD).with({ label: 'paused (1)' }),
            ],
            [sum('judge', METRICS.judgeSpendUsd, 'spend (USD)')],
          ),
        ],
        [
          graph(
            'Dead-letter queues (messages)',
            queues.map(({ name, dlq }) =>
              dlq.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum', label: name }),
            ),
          ),
          graph(
            'Oldest waiting message (s)',
            queues.map(({ name, queue }) =>
              queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum', label: name }),
            ),
          ),
          graph(
            'Function errors',
            perFunction((fn, label) => fn.lambda.metricErrors({ period: PERIOD, statistic: 'Sum', label })),
          ),
        ],
        [
          graph(
            'Function throttles',
            perFunction((fn, label) => fn.lambda.metricThrottles({ period: PERIOD, statistic: 'Sum', label })),
          ),
          graph(
            'Function duration, p95 (ms)',
            perFunction((fn, label) => fn.lambda.metricDuration({ period: PERIOD, statistic: 'p95', label })),
          ),
          graph('Snapshots', [sum('snapshot-compactor', METRICS.snapshotRunsChanged, 'runs changed')]),
          graph('Inbox reconciliation', [
            sum('inbox-reconciler', METRICS.inboxReenqueued, 'queued again'),
            sum('inbox-reconciler', METRICS.inboxDeadLettered, 'set aside'),
          ]),
        ],
      ],
    });
  }
}
