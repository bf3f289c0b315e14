// Watching a deployment: the operations dashboard, every alarm and its runbook in docs/deploy.md, the
// optional AWS Budget, the cost-allocation tags and the outputs an operator reads the stored data by.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { parseConfig } from '#schema/config.ts';
import { METRICS } from '#core/operations.ts';
import { SWEEP_EVERY } from '#infra/aws/constructs/schedule.ts';
import { DEPLOYMENT_TAG } from '#infra/aws/deployment-names.ts';
import { ofType, type Resource } from './template-queries.ts';
import { PROJECT_ROOT, richConfig, synthesize } from './synth.ts';

const withBudget = () => parseConfig({ ...richConfig(), alarms: { email: 'ops@example.com', monthlyBudgetUsd: 250 } });
const rich = synthesize(richConfig());
const budgeted = synthesize(withBudget(), { deployment: 'staging' });
const deployDoc = readFileSync(`${PROJECT_ROOT}docs/deploy.md`, 'utf8');

const RUNBOOK = /^Runbook: docs\/deploy\.md, "([^"]+)"\./;
const alarmsOf = (t: Template) => ofType(t, 'AWS::CloudWatch::Alarm');
const allAlarms = (s: ReturnType<typeof synthesize>) => [...s.templates.values()].flatMap(alarmsOf);
const runbookOf = ([, alarm]: [string, Resource]) => RUNBOOK.exec(alarm.Properties.AlarmDescription as string)?.[1];
const alarmNamed = (t: Template, runbook: string) => {
  const found = alarmsOf(t).filter((a) => runbookOf(a) === runbook);
  expect(found).toHaveLength(1);
  return found[0]![1];
};
/** The `### name` sections of "Reading the alarms", each with its text. */
const runbookSections = (): Map<string, string> => {
  const part = deployDoc.slice(deployDoc.indexOf('## Reading the alarms'), deployDoc.indexOf('## What it costs'));
  return new Map(
    part
      .split(/^### /m)
      .slice(1)
      .map((section) => [section.slice(0, section.indexOf('\n')).trim(), section]),
  );
};

describe('the operations dashboard', () => {
  it('shows deliveries, landings, judge calls and spend, dead letters, errors, throttles and p95 durations', () => {
    const dashboards = ofType(rich.pipeline, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    // The body is JSON joined around references; a reference reads as the logical id it names.
    const parts = (dashboards[0]![1].Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const body = JSON.parse(
      parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part).replace(/"/g, ''))).join(''),
    ) as { widgets: { properties: { title: string; metrics: unknown[][] } }[] };
    const graphs = new Map(
      body.widgets.map((w) => [
        w.properties.title,
        w.properties.metrics.map((m) => ({
          metric: `${m[0] as string}/${m[1] as string}`,
          of: String(m[3]),
          ...(m.at(-1) as { label: string; stat: string }),
        })),
      ]),
    );
    const shown = (title: string) => graphs.get(title)!.map((m) => m.metric);
    expect(shown('Deliveries')).toEqual(['ReplayBench/DeliveryAccepted', 'ReplayBench/DeliveryRefused']);
    expect(shown('Landings')).toEqual(['ReplayBench/Landed']);
    expect(shown('Judge: calls and spend (USD, right)')).toEqual(
      expect.arrayContaining([`ReplayBench/${METRICS.judgeModelCalls}`, `ReplayBench/${METRICS.judgeSpendUsd}`]),
    );
    const dlqs = graphs.get('Dead-letter queues (messages)')!;
    expect(dlqs.map((m) => m.metric)).toEqual(Array(2).fill('AWS/SQS/ApproximateNumberOfMessagesVisible'));
    expect(dlqs.map((m) => m.of)).toEqual([expect.stringContaining('LandingDlq'), expect.stringContaining('JudgeDlq')]);
    // Errors, throttles and the p95 duration of each of the six pipeline functions.
    const functions = ['ingest', 'lander', 'judge', 'sweeper', 'snapshot-compactor', 'inbox-reconciler'];
    for (const [title, metric, stat] of [
      ['Function errors', 'Errors', 'Sum'],
      ['Function throttles', 'Throttles', 'Sum'],
      ['Function duration, p95 (ms)', 'Duration', 'p95'],
    ] as const) {
      const lines = graphs.get(title)!;
      expect(lines.map((m) => m.label)).toEqual(functions);
      for (const line of lines) expect(line).toMatchObject({ metric: `AWS/Lambda/${metric}`, stat });
    }
  });

  it("is named after the deployment, so two deployments' dashboards do not collide", () => {
    const name = (s: ReturnType<typeof synthesize>) =>
      ofType(s.pipeline, 'AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardName;
    expect(name(rich)).toBe('ReplayBench');
    expect(name(budgeted)).toBe('staging-ReplayBench');
  });
});

describe('the alarms', () => {
  it('exist for every stage of the pipeline and for each cockpit', () => {
    expect(alarmsOf(rich.pipeline).map(runbookOf).sort()).toEqual(
      [
        'Compactor failing',
        'Ingest server errors',
        'Judge backlog',
        'Judge dead letters',
        'Judge errors',
        'Judging paused',
        'Landing backlog',
        'Landing dead letters',
        'Reconciler failing',
        'Sweeper failing',
        'Throttled functions',
        'Unreadable host keys',
      ].sort(),
    );
    for (const cockpit of ['SmallModelsBenchmarks', 'Demo']) {
      const mine = alarmsOf(rich.cockpitTemplate(cockpit)).filter(([, a]) =>
        (a.Properties.AlarmDescription as string).includes(`Cockpit ${cockpit}`),
      );
      expect(mine.map(runbookOf).sort()).toEqual(['Cockpit CloudFront errors', 'Cockpit read API errors']);
    }
  });

  it("watch each cockpit's read API for 5xx and throttles, and its distribution for 5xx where CloudFront publishes (us-east-1)", () => {
    const template = rich.cockpitTemplate('Demo');
    const readApi = JSON.stringify(alarmNamed(template, 'Cockpit read API errors').Properties.Metrics);
    expect(readApi).toContain('"5xx"');
    expect(readApi).toContain('"Throttles"');
    const cloudFront = alarmNamed(template, 'Cockpit CloudFront errors') as Resource & { Condition?: string };
    expect(cloudFront.Properties.MetricName).toBe('5xxErrorRate');
    expect(cloudFront.Condition).toBe('InUsEast1');
    expect(template.toJSON().Conditions.InUsEast1).toEqual({
      'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'],
    });
  });

  it('watch every pipeline function for throttles in one alarm', () => {
    const metrics = alarmNamed(rich.pipeline, 'Throttled functions').Properties.Metrics as {
      MetricStat?: { Metric: { MetricName: string } };
    }[];
    expect(metrics.filter((m) => m.MetricStat?.Metric.MetricName === 'Throttles')).toHaveLength(6);
  });

  it('keep "judging paused" on between probes: any refusal in the last three sweeps holds it', () => {
    const paused = alarmNamed(rich.pipeline, 'Judging paused').Properties;
    expect(paused).toMatchObject({
      MetricName: METRICS.judgingPaused,
      Statistic: 'Maximum',
      Period: SWEEP_EVERY.toSeconds(),
      EvaluationPeriods: 3,
      DatapointsToAlarm: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('each name a runbook that docs/deploy.md has, with what it means, what to look at and what to do', () => {
    const sections = runbookSections();
    const named = new Set<string>();
    for (const alarm of [...allAlarms(rich), ...allAlarms(budgeted)]) {
      const runbook = runbookOf(alarm);
      expect({ alarm: alarm[0], runbook }).toEqual({ alarm: alarm[0], runbook: expect.any(String) });
      expect({ runbook, documented: sections.has(runbook!) }).toEqual({ runbook, documented: true });
      named.add(runbook!);
    }
    for (const [name, text] of sections) {
      for (const part of ['**What it means.**', '**Look at.**', '**Do.**'])
        expect({ name, part, present: text.includes(part) }).toEqual({ name, part, present: true });
    }
    // Every section is an alarm's, except the runbook for a run that no alarm can see stuck.
    expect([...sections.keys()].filter((name) => !named.has(name))).toEqual(['A run is stuck']);
  });
});

describe('the monthly budget', () => {
  it('exists only when the configuration sets an amount', () => {
    for (const template of rich.templates.values()) expect(ofType(template, 'AWS::Budgets::Budget')).toEqual([]);
    const budgets = [...budgeted.templates.values()].flatMap((t) => ofType(t, 'AWS::Budgets::Budget'));
    expect(budgets).toHaveLength(1);
  });

  it("is on the stage's cost-allocation tag and mails the alarm address at 80 % and on a forecast overrun", () => {
    const [[, budget]] = ofType(budgeted.pipeline, 'AWS::Budgets::Budget') as [[string, Resource]];
    expect(budget.Properties.Budget).toEqual({
      BudgetName: 'staging-ReplayBench-Monthly',
      BudgetType: 'COST',
      TimeUnit: 'MONTHLY',
      BudgetLimit: { Amount: 250, Unit: 'USD' },
      CostFilters: { TagKeyValue: [`user:${DEPLOYMENT_TAG}$staging`] },
    });
    const notices = budget.Properties.NotificationsWithSubscribers as {
      Notification: { NotificationType: string; Threshold: number };
      Subscribers: { Address: string }[];
    }[];
    expect(notices.map((n) => [n.Notification.NotificationType, n.Notification.Threshold])).toEqual([
      ['ACTUAL', 80],
      ['FORECASTED', 100],
    ]);
    for (const n of notices) expect(n.Subscribers).toEqual([{ SubscriptionType: 'EMAIL', Address: 'ops@example.com' }]);
  });
});

describe('cost-allocation tags', () => {
  const tagsOf = (resource: Resource): Record<string, unknown> | undefined => {
    const tags = resource.Properties?.Tags;
    if (tags === undefined) return undefined;
    return Array.isArray(tags)
      ? Object.fromEntries((tags as { Key: string; Value: unknown }[]).map((t) => [t.Key, t.Value]))
      : (tags as Record<string, unknown>);
  };

  it("are on every taggable resource of every stack, with the deployment's name", () => {
    for (const [synth, deployment] of [
      [rich, 'default'],
      [budgeted, 'staging'],
    ] as const) {
      const tagged = new Set<string>();
      for (const template of synth.templates.values())
        for (const [id, resource] of Object.entries(template.toJSON().Resources as Record<string, Resource>)) {
          const tags = tagsOf(resource);
          if (!tags) continue;
          tagged.add(resource.Type);
          expect({ id, tags }).toEqual({
            id,
            tags: expect.objectContaining({ project: 'replay-bench', [DEPLOYMENT_TAG]: deployment }),
          });
        }
      for (const type of [
        'AWS::DynamoDB::Table',
        'AWS::S3::Bucket',
        'AWS::SQS::Queue',
        'AWS::Lambda::Function',
        'AWS::SecretsManager::Secret',
        'AWS::SNS::Topic',
        'AWS::CloudFront::Distribution',
        'AWS::ApiGatewayV2::Api',
        'AWS::IAM::Role',
        'AWS::Logs::LogGroup',
      ])
        expect({ type, tagged: tagged.has(type) }).toEqual({ type, tagged: true });
    }
  });
});

describe('outputs', () => {
  it('name the table, the buckets, both dead-letter queues, the alarm topic and the dashboard', () => {
    const outputs = (t: Template) => Object.keys(t.toJSON().Outputs as Record<string, unknown>);
    expect(outputs(rich.state)).toEqual(
      expect.arrayContaining([
        'TableName',
        'InboxBucketName',
        'DataBucketName',
        'AccessLogsBucketName',
        'LandingDlqName',
        'JudgeDlqName',
      ]),
    );
    expect(outputs(rich.pipeline)).toEqual(expect.arrayContaining(['AlarmTopicArn', 'DashboardName']));
    expect(JSON.stringify(rich.state.toJSON().Outputs.JudgeDlqName.Value)).toContain('JudgeDlq');
  });
});
