import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '#schema/config.ts';
import { HEAP_SHARE_OF_MEMORY } from '#infra/aws/constructs/replay-function.ts';
import { exampleConfig, synthesize } from './synth.ts';
import {
  actionsOf,
  functionsByService,
  logicalIdOf,
  mentions,
  one,
  onlyFunction,
  ofType,
  roleStatements,
} from './template-queries.ts';

const config = exampleConfig();
const { state, pipeline, bundledConfigs, cockpitTemplate } = synthesize(config);
const functionTemplates = [pipeline, cockpitTemplate('SmallModelsBenchmarks')];
const queueId = (visibility: number) =>
  logicalIdOf(state, 'AWS::SQS::Queue', (p) => p.VisibilityTimeout === visibility);
const landingQueueId = queueId(180);
const judgeQueueId = queueId(720);
const dlqIdOf = (queueId: string) =>
  (
    ofType(state, 'AWS::SQS::Queue').find(([id]) => id === queueId)![1].Properties.RedrivePolicy as {
      deadLetterTargetArn: { 'Fn::GetAtt': [string] };
    }
  ).deadLetterTargetArn['Fn::GetAtt'][0];

describe('functions', () => {
  const all = [...functionsByService(...functionTemplates).values()].flat();

  it('are the seven pipeline services', () => {
    expect([...functionsByService(...functionTemplates).keys()].sort()).toEqual([
      'inbox-reconciler',
      'ingest',
      'judge',
      'lander',
      'read-api',
      'snapshot-compactor',
      'sweeper',
    ]);
  });

  it('run on ARM64 and Node 22 or later, with source maps and Powertools settings', () => {
    for (const fn of all) {
      expect(fn.properties.Architectures).toEqual(['arm64']);
      const [, major] = /^nodejs(\d+)\.x$/.exec(String(fn.properties.Runtime)) ?? [];
      expect({ fn: fn.id, atLeast22: Number(major) >= 22 }).toEqual({ fn: fn.id, atLeast22: true });
      expect(String(fn.environment.NODE_OPTIONS)).toMatch(/^--enable-source-maps( |$)/);
      expect(fn.environment.POWERTOOLS_METRICS_NAMESPACE).toBe('ReplayBench');
    }
  });

  it("size the snapshot compactor's heap from its configured memory, and leave the others at Node's default", () => {
    for (const fn of all) {
      const heap = /--max-old-space-size=(\d+)/.exec(String(fn.environment.NODE_OPTIONS));
      if (fn.environment.POWERTOOLS_SERVICE_NAME !== 'snapshot-compactor') {
        expect({ fn: fn.id, heap }).toEqual({ fn: fn.id, heap: null });
        continue;
      }
      const memory = Number(fn.properties.MemorySize);
      expect(Number(heap![1])).toBe(Math.floor(memory * HEAP_SHARE_OF_MEMORY));
      expect(Number(heap![1])).toBeLessThan(memory);
    }
  });

  it('log to their own log group with a bounded retention', () => {
    for (const fn of all) {
      const logGroupId = (fn.properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const logGroup = ofType(fn.template, 'AWS::Logs::LogGroup').find(([id]) => id === logGroupId)![1];
      expect(logGroup.Properties.RetentionInDays).toBe(30);
    }
  });

  it('carry the parsed configuration in their bundle, defaults filled in, never in their environment', () => {
    expect(bundledConfigs.get(onlyFunction(pipeline, 'judge').id)).toEqual(config);
    for (const fn of all) expect(JSON.stringify(fn.environment)).not.toContain('SmallModelsMeasurements');
  });

  it('that do not read the configuration are not given it', () => {
    expect(bundledConfigs.has(onlyFunction(pipeline, 'lander').id)).toBe(false);
  });
});

describe('queues feed their consumers', () => {
  it('the lander reports batch item failures from the landing queue, at most `concurrency.lander` at once', () => {
    const lander = onlyFunction(pipeline, 'lander');
    const [, mapping] = one(pipeline, 'AWS::Lambda::EventSourceMapping', (m) => mentions(m.FunctionName, lander.id));
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: config.concurrency.lander });
    expect(mentions(mapping.Properties.EventSourceArn, landingQueueId)).toBe(true);
  });

  it('the judge takes one run at a time from the judge queue, at most `concurrency.judge` at once', () => {
    const judge = onlyFunction(pipeline, 'judge');
    const [, mapping] = one(pipeline, 'AWS::Lambda::EventSourceMapping', (m) => mentions(m.FunctionName, judge.id));
    expect(mapping.Properties).toMatchObject({
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: config.concurrency.judge },
    });
    expect(mentions(mapping.Properties.EventSourceArn, judgeQueueId)).toBe(true);
  });

  it('the judge, which mostly waits on the model, is billed at 256 MB, not 512', () => {
    expect(onlyFunction(pipeline, 'judge').properties.MemorySize).toBe(256);
  });

  it("every queue's event source is capped; the defaults leave half of a new account's 10 executions free", () => {
    const mappings = ofType(pipeline, 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(2);
    const caps = mappings.map(
      ([, m]) => (m.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency,
    );
    expect(caps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
    const raised = synthesize(parseConfig({ ...config, concurrency: { lander: 20, judge: 4 } })).pipeline;
    expect(
      ofType(raised, 'AWS::Lambda::EventSourceMapping')
        .map(([, m]) => (m.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency)
        .sort((a, b) => a - b),
    ).toEqual([4, 20]);
  });

  it('no function reserves concurrency, which an account with a quota of 10 could not grant', () => {
    for (const fn of [...functionsByService(...functionTemplates).values()].flat())
      expect({ fn: fn.id, reserved: fn.properties.ReservedConcurrentExecutions }).toEqual({
        fn: fn.id,
        reserved: undefined,
      });
  });

  it('the sweeper runs every five minutes', () => {
    const sweeper = onlyFunction(pipeline, 'sweeper');
    pipeline.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeper.id, 'Arn'] } })],
    });
  });

  it('the inbox reconciler runs every fifteen minutes', () => {
    const reconciler = onlyFunction(pipeline, 'inbox-reconciler');
    pipeline.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [reconciler.id, 'Arn'] } })],
    });
  });

  it.each(['sweeper', 'snapshot-compactor', 'inbox-reconciler'])(
    'the %s is retried neither by EventBridge nor by Lambda: the next scheduled run redoes a failed one',
    (service) => {
      const fn = onlyFunction(pipeline, service);
      const [, rule] = one(pipeline, 'AWS::Events::Rule', (r) => mentions(r.Targets, fn.id));
      expect((rule.Properties.Targets as { RetryPolicy?: unknown }[])[0]!.RetryPolicy).toEqual({
        MaximumRetryAttempts: 0,
      });
      const [, invokeConfig] = one(pipeline, 'AWS::Lambda::EventInvokeConfig', (c) => mentions(c.FunctionName, fn.id));
      expect(invokeConfig.Properties.MaximumRetryAttempts).toBe(0);
    },
  );

  it('the snapshot compactor may write its lease item and no other', () => {
    const compactor = onlyFunction(pipeline, 'snapshot-compactor');
    const writes = roleStatements(state, pipeline, compactor.roleId).filter((s) =>
      actionsOf(s).some((a) => a === 'dynamodb:PutItem' || a === 'dynamodb:DeleteItem'),
    );
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({
      Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
      Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['LEASE#snapshot-compactor'] } },
    });
  });
});

describe('the ingest endpoint', () => {
  const apiId = logicalIdOf(pipeline, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('ingest'));

  it('routes POST /hooks/{space}/ingest, and every other request, to the ingest function without an authorizer', () => {
    const routes = ofType(pipeline, 'AWS::ApiGatewayV2::Route').filter(([, r]) => mentions(r.Properties.ApiId, apiId));
    expect(routes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(['$default', 'POST /hooks/{space}/ingest']);
    for (const [, route] of routes) expect(route.Properties.AuthorizationType).toBe('NONE');
  });

  it('is throttled and writes access logs', () => {
    pipeline.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: apiId },
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });
});

describe('alarms', () => {
  const topicId = ofType(pipeline, 'AWS::SNS::Topic')[0]![0];
  const alarms = ofType(pipeline, 'AWS::CloudWatch::Alarm');
  const alarmOn = (namespace: string, metricName: string, dimension: (value: unknown) => boolean) =>
    alarms.filter(
      ([, a]) =>
        a.Properties.Namespace === namespace &&
        a.Properties.MetricName === metricName &&
        (a.Properties.Dimensions as { Value: unknown }[]).some((d) => dimension(d.Value)),
    );

  it('go to one topic that mails the configured address', () => {
    pipeline.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
    for (const [id, alarm] of alarms)
      expect({ id, actions: alarm.Properties.AlarmActions }).toEqual({ id, actions: [{ Ref: topicId }] });
  });

  it('watch the depth of both dead-letter queues', () => {
    for (const queue of [landingQueueId, judgeQueueId]) {
      expect(alarmOn('AWS/SQS', 'ApproximateNumberOfMessagesVisible', (v) => mentions(v, dlqIdOf(queue)))).toHaveLength(
        1,
      );
    }
  });

  it('watch the age of the oldest message on both queues', () => {
    for (const queue of [landingQueueId, judgeQueueId])
      expect(alarmOn('AWS/SQS', 'ApproximateAgeOfOldestMessage', (v) => mentions(v, queue))).toHaveLength(1);
  });

  it("watch judge errors and paused judging from the judge's own metrics", () => {
    const judgeService = (v: unknown) => v === 'judge';
    expect(alarmOn('ReplayBench', 'JudgeErrors', judgeService)).toHaveLength(1);
    expect(alarmOn('ReplayBench', 'JudgingPaused', judgeService)).toHaveLength(1);
  });

  it('watch host keys the ingest function could not read, from the first one', () => {
    const found = alarmOn('ReplayBench', 'HostKeyUnreadable', (v) => v === 'ingest');
    expect(found).toHaveLength(1);
    expect(found[0]![1].Properties).toMatchObject({
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('watch 5xx answers of the ingest endpoint', () => {
    const apiId = logicalIdOf(pipeline, 'AWS::ApiGatewayV2::Api', (p) => String(p.Description).includes('ingest'));
    expect(alarmOn('AWS/ApiGateway', '5xx', (v) => mentions(v, apiId))).toHaveLength(1);
  });

  it('still exist, without a subscription, when no email is configured', () => {
    const { pipeline: quiet } = synthesize(
      parseConfig({ spaces: { S: { senders: ['h1'], repos: ['acme/widgets'] } } }),
    );
    quiet.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(ofType(quiet, 'AWS::CloudWatch::Alarm')).toHaveLength(alarms.length);
  });
});
