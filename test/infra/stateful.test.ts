import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from '@jest/globals';
import { EXPIRY_ATTRIBUTE, INDEX_MIGRATION_STEPS, INDEXES, TABLE_KEYS } from '#core/storage-layout.ts';
import { ownTable } from '#infra/aws/constructs/stateful-resources.ts';
import { INDEX_STEP_CONTEXT_KEY } from '#infra/aws/deployment-names.ts';
import { keySecretName } from '#shared/key-names.ts';
import { keyCandidates, parseConfig } from '#schema/config.ts';
import { LANDING_MESSAGE_MAX_BYTES } from '#schema/messages.ts';
import { INBOX_EXPIRY_DAYS, SNAPSHOT_EXPIRY_DAYS, SNAPSHOT_VERSION_DAYS } from '#infra/aws/stateful-stack.ts';
import { FULL_REBUILD_EVERY_MS } from '#core/read/snapshot-store.ts';
import { MAX_RECEIVES, TIMEOUTS } from '#infra/aws/timing.ts';
import { exampleConfig, synthesize } from './synth.ts';
import { ACCOUNT, allowStatements, DeploymentRenderer, REGION, roleMay } from './rendered-policies.ts';
import { mentions, ofType, one } from './template-queries.ts';
import { RUN_DATASET_TABLE } from '#core/read/run-dataset.ts';

const config = exampleConfig();
const { state, templates } = synthesize(config);
const stateless = [...templates.values()].filter((t) => t !== state);

describe('the table', () => {
  it('is one pay-per-request table keyed by the shared layout, all keys strings', () => {
    state.resourceCountIs('AWS::DynamoDB::Table', 1);
    const [, table] = one(state, 'AWS::DynamoDB::Table');
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ]);
    const attributes = table.Properties.AttributeDefinitions as { AttributeName: string; AttributeType: string }[];
    expect(attributes.every((a) => a.AttributeType === 'S')).toBe(true);
  });

  it('has the three indexes of storage-layout.ts, each projecting only what its query reads', () => {
    const key = (partition: string, sort: string) => [
      { AttributeName: partition, KeyType: 'HASH' },
      { AttributeName: sort, KeyType: 'RANGE' },
    ];
    state.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        // The deltas fetch their rows from the table; the sweeper sends a run's id and finishedAt.
        {
          IndexName: 'byUpdatedKeys',
          KeySchema: key('byUpdatedPk', 'byUpdatedSk'),
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
        {
          IndexName: 'dueRuns',
          KeySchema: key('dueSpace', 'dueAt'),
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'finishedAt'] },
        },
        { IndexName: 'byHost', KeySchema: key('byHostPk', 'sk'), Projection: { ProjectionType: 'KEYS_ONLY' } },
      ],
    });
    expect(Object.values(INDEXES).map((index) => index.name)).toEqual(['byUpdatedKeys', 'dueRuns', 'byHost']);
  });

  it('moves a table made with the ALL-projected indexes one index per deploy, the new ones in place before the functions read them', () => {
    const indexesAt = (step?: number) => {
      const app = new App({ context: step === undefined ? {} : { [INDEX_STEP_CONTEXT_KEY]: String(step) } });
      const stack = new Stack(app, 'TableOnly');
      ownTable(stack);
      const [table] = Object.values(
        Template.fromStack(stack).findResources('AWS::DynamoDB::Table') as Record<
          string,
          { Properties: { GlobalSecondaryIndexes: { IndexName: string; Projection: { ProjectionType: string } }[] } }
        >,
      );
      return new Map(table!.Properties.GlobalSecondaryIndexes.map((i) => [i.IndexName, i.Projection.ProjectionType]));
    };
    const before = new Map([
      ['byUpdated', 'ALL'],
      ['due', 'ALL'],
      ['byHost', 'KEYS_ONLY'],
    ]);
    const steps = [before, ...INDEX_MIGRATION_STEPS.map((step) => indexesAt(step)), indexesAt()];
    for (let i = 1; i < steps.length; i++) {
      const [from, to] = [steps[i - 1]!, steps[i]!];
      const added = [...to.keys()].filter((name) => !from.has(name));
      const removed = [...from.keys()].filter((name) => !to.has(name));
      // CloudFormation refuses an update that adds or removes more than one index, or changes one in place.
      expect(added.length + removed.length).toBeLessThanOrEqual(1);
      for (const [name, projection] of to) if (from.has(name)) expect(from.get(name)).toBe(projection);
    }
    // Step 3 deploys the functions that read the new indexes: both are there, and the old ones for the old functions.
    expect([...steps[3]!.keys()].sort()).toEqual(['byHost', 'byUpdated', 'byUpdatedKeys', 'due', 'dueRuns']);
    expect([...steps.at(-1)!.keys()].sort()).toEqual(['byHost', 'byUpdatedKeys', 'dueRuns']);
  });

  it('keeps point-in-time recovery and deletion protection, and survives stack deletion', () => {
    state.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('lets bookkeeping items expire by the attribute the adapters write', () => {
    state.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: EXPIRY_ATTRIBUTE, Enabled: true },
    });
  });
});

describe('buckets', () => {
  const buckets = [state, ...stateless].flatMap((t) => ofType(t, 'AWS::S3::Bucket'));
  const policies = [state, ...stateless].flatMap((t) => ofType(t, 'AWS::S3::BucketPolicy'));

  it('all block public access and are encrypted', () => {
    expect(buckets.length).toBe(4);
    for (const [, bucket] of buckets) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties.BucketEncryption).toBeDefined();
    }
  });

  it('all refuse requests without TLS', () => {
    for (const [id] of buckets) {
      const policy = policies.find(([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: id }));
      expect({ bucket: id, hasPolicy: policy !== undefined }).toEqual({ bucket: id, hasPolicy: true });
      expect((policy![1].Properties.PolicyDocument as { Statement: unknown[] }).Statement).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('expire inbox deliveries and version the data bucket', () => {
    state.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: { LogFilePrefix: 'inbox/' },
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: INBOX_EXPIRY_DAYS })]) },
    });
    state.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: { LogFilePrefix: 'data/' },
      VersioningConfiguration: { Status: 'Enabled' },
    });
  });

  it('expire snapshot objects and run dataset parts a week after they were written (what no manifest names), old versions after a day, and other old data versions after 90 days', () => {
    const [, data] = one(
      state,
      'AWS::S3::Bucket',
      (p) => (p.LoggingConfiguration as { LogFilePrefix?: string } | undefined)?.LogFilePrefix === 'data/',
    );
    const rules = (data.Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({
        Prefix: 'snapshots/',
        ExpirationInDays: SNAPSHOT_EXPIRY_DAYS,
        NoncurrentVersionExpiration: { NoncurrentDays: SNAPSHOT_VERSION_DAYS },
        Status: 'Enabled',
      }),
    );
    // The run dataset's parts expire with the snapshot that wrote them: a rebuild writes every run anew daily.
    expect(rules).toContainEqual(
      expect.objectContaining({
        Prefix: 'runs-parquet/',
        ExpirationInDays: SNAPSHOT_EXPIRY_DAYS,
        NoncurrentVersionExpiration: { NoncurrentDays: SNAPSHOT_VERSION_DAYS },
        Status: 'Enabled',
      }),
    );
    expect(SNAPSHOT_VERSION_DAYS).toBe(1);
    // Every part a healthy compactor names is written anew by its daily rebuild, long before it expires.
    expect(SNAPSHOT_EXPIRY_DAYS * 24 * 3600 * 1000).toBeGreaterThanOrEqual(3 * FULL_REBUILD_EVERY_MS);
    expect(rules).toContainEqual(expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 90 } }));
  });

  it("expire Athena's query results after a day, current and old versions", () => {
    const [, data] = one(
      state,
      'AWS::S3::Bucket',
      (p) => (p.LoggingConfiguration as { LogFilePrefix?: string } | undefined)?.LogFilePrefix === 'data/',
    );
    const rules = (data.Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({
        Prefix: 'athena-results/',
        ExpirationInDays: 1,
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
        Status: 'Enabled',
      }),
    );
  });

  it('keep the data and its logs when the stack is deleted', () => {
    for (const [id, bucket] of ofType(state, 'AWS::S3::Bucket'))
      expect({ id, policy: bucket.DeletionPolicy }).toEqual({ id, policy: 'Retain' });
  });
});

describe('queues', () => {
  const queues = ofType(state, 'AWS::SQS::Queue');
  const dlqIds = new Set(
    queues.flatMap(([, q]) => {
      const redrive = q.Properties.RedrivePolicy as
        { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] } } | undefined;
      return redrive ? [redrive.deadLetterTargetArn['Fn::GetAtt'][0]] : [];
    }),
  );

  it('every queue that is not itself a dead-letter queue has one', () => {
    expect(queues.length).toBe(4);
    expect(dlqIds.size).toBe(2);
    for (const [id, queue] of queues) {
      if (dlqIds.has(id)) continue;
      expect({ id, redrive: queue.Properties.RedrivePolicy }).toEqual({
        id,
        redrive: { deadLetterTargetArn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] }, maxReceiveCount: MAX_RECEIVES },
      });
    }
  });

  it('keep a message out of the dead-letter queue through 30 minutes of throttled invocations', () => {
    // A throttled invocation returns its messages after the visibility timeout and counts a receive.
    for (const [id, queue] of ofType(state, 'AWS::SQS::Queue')) {
      const redrive = queue.Properties.RedrivePolicy as { maxReceiveCount: number } | undefined;
      if (!redrive) continue;
      const span = redrive.maxReceiveCount * (queue.Properties.VisibilityTimeout as number);
      expect({ id, span: span >= 30 * 60 }).toEqual({ id, span: true });
    }
  });

  it('the landing queue carries a whole delivery (1 MiB), keeps it as long as the inbox, and outlives the stack with its dead-letter queue', () => {
    const landing = queues.find(([, q]) => q.Properties.VisibilityTimeout === TIMEOUTS.lander.toSeconds() * 6)!;
    const deadLetters = (landing[1].Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string] } })
      .deadLetterTargetArn['Fn::GetAtt'][0];
    expect(landing[1].Properties).toMatchObject({
      MaximumMessageSize: LANDING_MESSAGE_MAX_BYTES,
      MessageRetentionPeriod: INBOX_EXPIRY_DAYS * 86_400,
    });
    expect(LANDING_MESSAGE_MAX_BYTES).toBe(1024 * 1024);
    for (const id of [landing[0], deadLetters])
      expect({ id, policy: queues.find(([q]) => q === id)![1].DeletionPolicy }).toEqual({ id, policy: 'Retain' });
  });

  it('are encrypted, TLS-only, and give each consumer six of its timeouts before redelivery', () => {
    for (const [, queue] of queues) expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    expect(ofType(state, 'AWS::SQS::QueuePolicy')).toHaveLength(4);
    const visibilities = queues
      .filter(([id]) => !dlqIds.has(id))
      .map(([, q]) => q.Properties.VisibilityTimeout)
      .sort();
    expect(visibilities).toEqual([TIMEOUTS.lander.toSeconds() * 6, TIMEOUTS.judge.toSeconds() * 6].sort());
  });
});

describe('secrets', () => {
  it('one empty secret per declared sender key, named from secretConfigKey:host', () => {
    const hostSecrets = ofType(state, 'AWS::SecretsManager::Secret').filter(([, s]) =>
      String(s.Properties.Name).startsWith('Hosting/'),
    );
    expect(hostSecrets.map(([, s]) => s.Properties.Name).sort()).toEqual(
      keyCandidates(config)
        .map((k) => keySecretName(k.secretConfigKey, k.host))
        .sort(),
    );
    expect(hostSecrets.map(([, s]) => s.Properties.Name)).toContain('Hosting/ModuleReportSecret/mac-studio-1');
  });

  it('hold no value from the template: keys are put in by an operator', () => {
    for (const [id, secret] of ofType(state, 'AWS::SecretsManager::Secret')) {
      expect({
        id,
        value: secret.Properties.SecretString,
        generated: secret.Properties.GenerateSecretString,
        policy: secret.DeletionPolicy,
      }).toEqual({ id, value: undefined, generated: undefined, policy: 'Retain' });
    }
  });

  it('include the Anthropic key and the GitHub App credentials for the judge', () => {
    state.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'ReplayBench/AnthropicApiKey' });
    state.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'ReplayBench/GitHubApp' });
  });
});

describe('analysts', () => {
  it('sign in to an invite-only user pool that requires MFA and is protected from deletion', () => {
    state.hasResource('AWS::Cognito::UserPool', {
      Properties: Match.objectLike({
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        MfaConfiguration: 'ON',
        EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
        DeletionProtection: 'ACTIVE',
      }),
      DeletionPolicy: 'Retain',
    });
  });

  it("get their mail from Cognito's own sender by default, and from the SES identity `cognito.sesFrom` names", () => {
    state.hasResourceProperties('AWS::Cognito::UserPool', {
      EmailConfiguration: { EmailSendingAccount: 'COGNITO_DEFAULT' },
    });
    const withSes = synthesize(
      parseConfig({ ...exampleConfig(), cognito: { sesFrom: 'bench@example.com', sesRegion: 'eu-west-1' } }),
    ).state;
    withSes.hasResourceProperties('AWS::Cognito::UserPool', {
      EmailConfiguration: {
        EmailSendingAccount: 'DEVELOPER',
        From: 'bench@example.com',
      },
    });
    const [, pool] = one(withSes, 'AWS::Cognito::UserPool');
    expect(JSON.stringify(pool.Properties.EmailConfiguration)).toContain(':ses:eu-west-1:');
  });
});

describe('the stack', () => {
  it('is protected from termination, and names the table and buckets in its outputs', () => {
    const { app } = synthesize(config);
    const stack = app.node.findChild('ReplayBench-State') as Stack;
    expect(stack.terminationProtection).toBe(true);
    const outputs = (state.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    expect(outputs.TableName!.Value).toEqual({ Ref: ofType(state, 'AWS::DynamoDB::Table')[0]![0] });
    for (const name of ['InboxBucketName', 'DataBucketName', 'AccessLogsBucketName'])
      expect(outputs[name]!.Value).toEqual({ Ref: expect.any(String) });
  });
});

describe('adopting stored data by name', () => {
  const adopting = parseConfig({
    ...config,
    adopt: {
      table: 'replay-bench-restored-20261201',
      dataBucket: 'replay-bench-data-kept',
      inboxBucket: 'replay-bench-inbox-kept',
    },
  });
  const { state: adopted, templates } = synthesize(adopting);
  const renderer = new DeploymentRenderer(templates);
  const roles = renderer.roles();

  it('creates no table and no bucket of those it adopts, keeping the others', () => {
    adopted.resourceCountIs('AWS::DynamoDB::Table', 0);
    expect(ofType(adopted, 'AWS::S3::Bucket')).toHaveLength(1);
    const outputs = (adopted.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    expect(outputs.TableName!.Value).toBe('replay-bench-restored-20261201');
    expect(outputs.DataBucketName!.Value).toBe('replay-bench-data-kept');
  });

  it('points every function at the adopted table and buckets, and grants on them alone', () => {
    const tableArn = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/replay-bench-restored-20261201`;
    const lander = roles.find((r) => allowStatements(r).some((s) => s.Action.includes('s3:DeleteObject')))!;
    expect(roleMay(lander, 'dynamodb:PutItem', tableArn)).toBe(true);
    expect(roleMay(lander, 's3:DeleteObject', 'arn:aws:s3:::replay-bench-inbox-kept/inbox/S/d.json')).toBe(true);
    const names = [...templates.values()].flatMap((t) =>
      ofType(t, 'AWS::Lambda::Function').map(
        ([, f]) => (f.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      ),
    );
    const tableNames = new Set(
      names.flatMap((env) => (env.TABLE_NAME === undefined ? [] : [JSON.stringify(env.TABLE_NAME)])),
    );
    expect([...tableNames].map((n) => renderer.render('ReplayBench-Pipeline', JSON.parse(n)))).toEqual([
      'replay-bench-restored-20261201',
    ]);
  });

  it('puts the TLS-only policy back on each adopted bucket', () => {
    for (const bucket of ['replay-bench-data-kept', 'replay-bench-inbox-kept'])
      adopted.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: bucket,
        PolicyDocument: {
          Statement: [
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ],
        },
      });
  });
});

describe('the run dataset as a Glue table', () => {
  const [databaseId, database] = one(state, 'AWS::Glue::Database');
  const [, table] = one(state, 'AWS::Glue::Table');
  const input = table.Properties.TableInput as {
    Name: string;
    Parameters: Record<string, string>;
    PartitionKeys: { Name: string; Type: string }[];
    StorageDescriptor: { Columns: { Name: string; Type: string }[]; Location: unknown; SerdeInfo: unknown };
  };

  it('is table runs of database replay_bench, every column of a part typed as the part writes it', () => {
    expect((database.Properties.DatabaseInput as { Name: string }).Name).toBe('replay_bench');
    expect(mentions(table.Properties.DatabaseName, databaseId)).toBe(true);
    expect(input.Name).toBe('runs');
    expect(input.StorageDescriptor.Columns).toEqual(
      RUN_DATASET_TABLE.columns.map((c) => ({ Name: c.name, Type: c.type })),
    );
    expect(input.StorageDescriptor.Columns).toContainEqual({ Name: 'writtenat', Type: 'timestamp' });
    expect(input.StorageDescriptor.SerdeInfo).toEqual({
      SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
    });
    expect(JSON.stringify(input.StorageDescriptor.Location)).toContain('/runs-parquet/');
  });

  it("projects its partitions from the parts' keys: the space a query names, and the days a part can be kept", () => {
    expect(input.PartitionKeys).toEqual([
      { Name: 'space', Type: 'string' },
      { Name: 'day', Type: 'string' },
    ]);
    expect(input.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.space.type': 'injected',
      'projection.day.type': 'date',
      'projection.day.format': 'yyyy-MM-dd',
      // The bucket expires a part after SNAPSHOT_EXPIRY_DAYS: older days would be empty listings in every query.
      'projection.day.range': `NOW-${SNAPSHOT_EXPIRY_DAYS + 1}DAYS,NOW`,
    });
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      '/runs-parquet/space=${space}/day=${day}/',
    );
  });
});
