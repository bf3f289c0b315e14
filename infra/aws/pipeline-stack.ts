// Everything that can be replaced without losing data: the functions, the ingest endpoint, the schedule,
// the alarms and what the cockpits share (their cockpit-stack.ts stacks hold the cockpits themselves). It
// reads the stateful stack only through the typed `PipelineState`.
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnBudget } from 'aws-cdk-lib/aws-budgets';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { ReplayConfig } from './deployment-config.ts';
import type { PipelineState } from './stateful-stack.ts';
import { Alarms } from './constructs/alarms.ts';
import { CockpitHeaders } from './constructs/cockpit-headers.ts';
import { OperationsDashboard } from './constructs/operations-dashboard.ts';
import { DEPLOYMENT_TAG, type DeploymentNames } from './deployment-names.ts';
import { Ingest, INGEST_ROUTE } from './constructs/ingest.ts';
import { readWebAclArn, type IngestFirewallStack } from './ingest-firewall-stack.ts';
import { Judge } from './constructs/judge.ts';
import { Land } from './constructs/land.ts';
import { Schedule } from './constructs/schedule.ts';

export interface PipelineStackProps extends StackProps {
  config: ReplayConfig;
  state: PipelineState;
  names: DeploymentNames;
  /** With `ingest.waf`: the firewall stack whose web ACL the ingest front uses. */
  firewall?: IngestFirewallStack;
}

export class PipelineStack extends Stack {
  readonly alarms: Alarms;
  readonly ingest: Ingest;
  readonly land: Land;
  readonly judge: Judge;
  readonly schedule: Schedule;
  readonly cockpitHeaders: CockpitHeaders;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config, state, names, firewall } = props;
    if (firewall) this.addDependency(firewall, 'the ingest front reads the web ACL the firewall stack publishes');
    const webAclArn = firewall && readWebAclArn(this, firewall.arnParameterName);
    this.alarms = new Alarms(this, 'Alarms', { email: config.alarms.email });
    this.ingest = new Ingest(this, 'IngestStage', { config, state, alarms: this.alarms, webAclArn });
    this.land = new Land(this, 'LandStage', { config, state, alarms: this.alarms });
    this.judge = new Judge(this, 'JudgeStage', { config, state, alarms: this.alarms });
    this.schedule = new Schedule(this, 'ScheduleStage', { config, state, alarms: this.alarms });
    this.cockpitHeaders = new CockpitHeaders(this, 'CockpitHeaders', (kind) =>
      names.prefixed(`ReplayBench-CockpitHeaders-${kind}`),
    );

    const functions = {
      ingest: this.ingest.function,
      lander: this.land.function,
      judge: this.judge.function,
      sweeper: this.schedule.function,
      'snapshot-compactor': this.schedule.compactor,
      'inbox-reconciler': this.land.reconciler,
    };
    const period = Duration.minutes(5);
    this.alarms.watch(this, 'Throttles', {
      metric: new MathExpression({
        // Lambda publishes Throttles only for a function that was invoked: FILL keeps the sum defined
        // when some of the six are quiet.
        expression: Object.keys(functions)
          .map((_, i) => `FILL(t${i}, 0)`)
          .join(' + '),
        usingMetrics: Object.fromEntries(
          Object.values(functions).map((fn, i) => [`t${i}`, fn.lambda.metricThrottles({ period, statistic: 'Sum' })]),
        ),
        period,
        label: 'Throttled invocations of the pipeline functions',
      }),
      threshold: 1,
      evaluationPeriods: 2,
      description:
        'A pipeline function was throttled in two 5-minute periods running: the account or region is out of Lambda concurrency.',
      runbook: 'Throttled functions',
    });
    const operations = new OperationsDashboard(this, 'Operations', {
      dashboardName: names.prefixed('ReplayBench'),
      functions,
      queues: [
        { name: 'landing', queue: state.landingQueue, dlq: state.landingDlq },
        { name: 'judge', queue: state.judgeQueue, dlq: state.judgeDlq },
      ],
    });
    // The configuration refuses a budget without an email (shared/schema/config.ts).
    if (config.alarms.monthlyBudgetUsd !== undefined && config.alarms.email)
      monthlyBudget(this, names, config.alarms.monthlyBudgetUsd, config.alarms.email);

    // One output for every space (CloudFormation allows 200 outputs): `npm run deploy` fills in each space.
    new CfnOutput(this, 'IngestUrlTemplate', {
      description: 'Runner hosts POST to this URL with {space} replaced by the space name',
      value: `${this.ingest.baseUrl}${INGEST_ROUTE}`,
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', {
      value: operations.dashboard.dashboardName,
      description: 'The operations dashboard (CloudWatch → Dashboards; docs/deploy.md, "Reading the alarms")',
    });
  }
}

/**
 * An AWS Budget on the deployment's cost-allocation tag (docs/deploy.md, "What it costs"): mail when the month's
 * actual cost passes 80 % of the amount, and when the forecast passes it.
 */
function monthlyBudget(scope: Construct, names: DeploymentNames, amount: number, email: string): CfnBudget {
  const notify = (notificationType: 'ACTUAL' | 'FORECASTED', threshold: number) => ({
    notification: { notificationType, comparisonOperator: 'GREATER_THAN', threshold, thresholdType: 'PERCENTAGE' },
    subscribers: [{ subscriptionType: 'EMAIL', address: email }],
  });
  return new CfnBudget(scope, 'MonthlyBudget', {
    budget: {
      budgetName: names.prefixed('ReplayBench-Monthly'),
      budgetType: 'COST',
      timeUnit: 'MONTHLY',
      budgetLimit: { amount, unit: 'USD' },
      costFilters: { TagKeyValue: [`user:${DEPLOYMENT_TAG}$${names.tagValue}`] },
    },
    notificationsWithSubscribers: [notify('ACTUAL', 80), notify('FORECASTED', 100)],
  });
}
