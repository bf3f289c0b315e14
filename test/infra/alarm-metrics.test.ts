// An alarm on a series its namespace never publishes stays quiet for ever: every alarm's metric must carry
// exactly one of the dimension sets its namespace publishes, and an expression over several metrics must
// not go blank when one of them has no datapoint.
import { describe, expect, it } from '@jest/globals';
import { METRICS_NAMESPACE } from '#core/operations.ts';
import { ofType, type Resource } from './template-queries.ts';
import { exampleConfig, richConfig, synthesize } from './synth.ts';

/**
 * The dimension sets each namespace publishes, from AWS's documentation:
 * - AWS/CloudFront: DistributionId with Region, whose value is always Global ("Viewing CloudFront and edge
 *   function metrics", CloudFront Developer Guide);
 * - AWS/ApiGateway for HTTP APIs: ApiId; ApiId, Stage; ApiId, Method, Resource, Stage ("Monitor CloudWatch
 *   metrics for HTTP APIs in API Gateway");
 * - AWS/Lambda: FunctionName; FunctionName, Resource; FunctionName, ExecutedVersion; and none, account-wide
 *   ("Types of metrics for Lambda functions");
 * - AWS/SQS: QueueName ("Available CloudWatch metrics for Amazon SQS");
 * - our own namespace: Powertools' EMF publishes every metric with `service` (adapters/aws/observability.ts).
 */
const PUBLISHED: Record<string, { sets: string[][]; fixed?: Record<string, string> }> = {
  'AWS/CloudFront': { sets: [['DistributionId', 'Region']], fixed: { Region: 'Global' } },
  'AWS/ApiGateway': {
    sets: [['ApiId'], ['ApiId', 'Stage'], ['ApiId', 'Method', 'Resource', 'Stage']],
  },
  'AWS/Lambda': { sets: [['FunctionName'], ['FunctionName', 'Resource'], ['FunctionName', 'ExecutedVersion'], []] },
  'AWS/SQS': { sets: [['QueueName']] },
  [METRICS_NAMESPACE]: { sets: [['service']] },
};

interface AlarmMetric {
  alarm: string;
  namespace: string;
  dimensions: { Name: string; Value: unknown }[];
}

interface MetricDataQuery {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: { Namespace: string; Dimensions?: { Name: string; Value: unknown }[] } };
}

const alarmsOf = (configs: ReturnType<typeof synthesize>[]): [string, Resource][] =>
  configs.flatMap((s) => [...s.templates.values()].flatMap((t) => ofType(t, 'AWS::CloudWatch::Alarm')));

function metricsOf([alarm, resource]: [string, Resource]): AlarmMetric[] {
  const p = resource.Properties as {
    Namespace?: string;
    Dimensions?: AlarmMetric['dimensions'];
    Metrics?: MetricDataQuery[];
  };
  if (p.Namespace) return [{ alarm, namespace: p.Namespace, dimensions: p.Dimensions ?? [] }];
  return (p.Metrics ?? []).flatMap((q) =>
    q.MetricStat
      ? [{ alarm, namespace: q.MetricStat.Metric.Namespace, dimensions: q.MetricStat.Metric.Dimensions ?? [] }]
      : [],
  );
}

const synths = [synthesize(exampleConfig()), synthesize(richConfig())];

describe("every alarm's metric", () => {
  const metrics = alarmsOf(synths).flatMap(metricsOf);

  it('is in a namespace whose published dimensions the test knows', () => {
    expect(metrics.length).toBeGreaterThan(20);
    for (const { alarm, namespace } of metrics)
      expect({ alarm, namespace, known: namespace in PUBLISHED }).toEqual({ alarm, namespace, known: true });
  });

  it('carries exactly one dimension set its namespace publishes, with the fixed values it publishes', () => {
    for (const { alarm, namespace, dimensions } of metrics) {
      const published = PUBLISHED[namespace]!;
      const names = dimensions.map((d) => d.Name).sort();
      const matches = published.sets.some((set) => JSON.stringify([...set].sort()) === JSON.stringify(names));
      expect({ alarm, namespace, names, matches }).toEqual({ alarm, namespace, names, matches: true });
      for (const [name, value] of Object.entries(published.fixed ?? {}))
        expect({ alarm, name, value: dimensions.find((d) => d.Name === name)?.Value }).toEqual({ alarm, name, value });
    }
  });

  it('of an expression over several metrics fills each missing datapoint, so one quiet series does not blank the sum', () => {
    const expressions = alarmsOf(synths).flatMap(([alarm, resource]) => {
      const queries = (resource.Properties.Metrics as MetricDataQuery[] | undefined) ?? [];
      const stats = queries.filter((q) => q.MetricStat).map((q) => q.Id);
      return queries.filter((q) => q.Expression).map((q) => ({ alarm, expression: q.Expression!, stats }));
    });
    // The pipeline's throttles (six functions) and each cockpit's read API errors (5xx and throttles).
    expect(expressions.filter((e) => e.stats.length === 6)).toHaveLength(2);
    for (const { alarm, expression, stats } of expressions.filter((e) => e.stats.length > 1))
      for (const id of stats)
        expect({ alarm, id, filled: expression.includes(`FILL(${id}, 0)`) }).toEqual({ alarm, id, filled: true });
  });
});
