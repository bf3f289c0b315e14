import { describe, expect, it } from '@jest/globals';
import { keySecretName } from '../../shared/adapters/key-names.ts';
import { keyCandidates } from '../../shared/schema/config.ts';
import { richConfig, synthesize } from './synth.ts';
import {
  actionsOf,
  functionsByService,
  logicalIdOf,
  mentions,
  onlyFunction,
  ofType,
  resourcesOf,
  roleStatements,
  rolesAllowed,
} from './template-queries.ts';

const config = richConfig();
const { state, pipeline, bundledConfigs } = synthesize(config);

const secretId = (name: string) => logicalIdOf(state, 'AWS::SecretsManager::Secret', (p) => p.Name === name);
const hostSecretIds = keyCandidates(config).map((k) => secretId(keySecretName(k.secretConfigKey, k.host)));
const judgeSecretIds = [secretId('ReplayBench/AnthropicApiKey'), secretId('ReplayBench/GitHubApp')];
const bucketId = (prefix: string) =>
  logicalIdOf(
    state,
    'AWS::S3::Bucket',
    (p) => (p.LoggingConfiguration as { LogFilePrefix?: string } | undefined)?.LogFilePrefix === prefix,
  );
const inboxId = bucketId('inbox/');
const dataId = bucketId('data/');
const tableId = ofType(state, 'AWS::DynamoDB::Table')[0]![0];

const ingest = onlyFunction(pipeline, 'ingest');
const lander = onlyFunction(pipeline, 'lander');
const judge = onlyFunction(pipeline, 'judge');
const sweeper = onlyFunction(pipeline, 'sweeper');
const compactor = onlyFunction(pipeline, 'snapshot-compactor');
const readApis = functionsByService(pipeline).get('read-api')!;
const statementsOf = (roleId: string) => roleStatements(state, pipeline, roleId);
const servedSpace = (fn: { id: string }) => {
  const [space, settings] = Object.entries(bundledConfigs.get(fn.id)!.spaces)[0]!;
  return { space, senders: settings.senders };
};
const actionsOn = (roleId: string, logicalId: string) =>
  statementsOf(roleId)
    .filter((s) => resourcesOf(s).some((r) => mentions(r, logicalId)))
    .flatMap(actionsOf)
    .sort();

describe('host keys', () => {
  it('are readable by the ingest function, and by nothing else', () => {
    expect(hostSecretIds).toHaveLength(4);
    for (const id of hostSecretIds)
      expect({ id, roles: rolesAllowed(state, pipeline, 'secretsmanager:GetSecretValue', id) }).toEqual({
        id,
        roles: [ingest.roleId],
      });
  });

  it('cannot be read by the judge', () => {
    for (const id of hostSecretIds) expect({ id, actions: actionsOn(judge.roleId, id) }).toEqual({ id, actions: [] });
  });

  it("are only described by each read API, for its own space's senders", () => {
    const expected = new Map([
      ['SmallModelsMeasurements', ['Hosting/ModuleReportSecret/mac-mini-2', 'Hosting/ModuleReportSecret/mac-studio-1']],
      ['PublicDemo', ['Hosting/DemoSecret/mac-mini-2', 'Hosting/DemoSecret/mac-mini-3']],
    ]);
    expect(readApis).toHaveLength(2);
    for (const readApi of readApis) {
      const space = Object.keys(bundledConfigs.get(readApi.id)!.spaces)[0]!;
      const described = hostSecretIds.filter((id) => actionsOn(readApi.roleId, id).length > 0);
      expect(described.sort()).toEqual(expected.get(space)!.map(secretId).sort());
      for (const id of described) expect(actionsOn(readApi.roleId, id)).toEqual(['secretsmanager:DescribeSecret']);
    }
  });

  it('never travel in an environment variable', () => {
    for (const [, fns] of functionsByService(pipeline)) {
      for (const fn of fns) {
        expect(Object.keys(fn.environment).filter((name) => name.startsWith('Hosting'))).toEqual([]);
        for (const id of hostSecretIds) expect(mentions(fn.environment, id)).toBe(false);
      }
    }
  });
});

describe('judge credentials', () => {
  it('are readable by the judge only, which is told their ARNs', () => {
    for (const id of judgeSecretIds)
      expect(rolesAllowed(state, pipeline, 'secretsmanager:GetSecretValue', id)).toEqual([judge.roleId]);
    expect(mentions(judge.environment.ANTHROPIC_SECRET_ARN, judgeSecretIds[0]!)).toBe(true);
    expect(mentions(judge.environment.GITHUB_APP_SECRET_ARN, judgeSecretIds[1]!)).toBe(true);
  });
});

describe('each function holds exactly what it uses', () => {
  const common = ['NODE_OPTIONS', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME'];
  it.each([
    ['ingest', ['TABLE_NAME', 'INBOX_BUCKET', 'LANDING_QUEUE_URL']],
    ['lander', ['TABLE_NAME', 'INBOX_BUCKET', 'DATA_BUCKET', 'JUDGE_QUEUE_URL']],
    ['judge', ['TABLE_NAME', 'DATA_BUCKET', 'ANTHROPIC_SECRET_ARN', 'GITHUB_APP_SECRET_ARN']],
    ['sweeper', ['TABLE_NAME', 'JUDGE_QUEUE_URL']],
    ['snapshot-compactor', ['TABLE_NAME', 'DATA_BUCKET']],
  ])('%s is told about %j', (service, names) => {
    for (const fn of functionsByService(pipeline).get(service)!)
      expect(Object.keys(fn.environment).sort()).toEqual([...common, ...names].sort());
  });

  it("read APIs are told about the table, the data bucket and, for a private cockpit, its analysts' group", () => {
    const told = readApis.map((fn) => [
      Object.keys(bundledConfigs.get(fn.id)!.cockpits)[0],
      Object.keys(fn.environment).sort(),
    ]);
    expect(told.sort()).toEqual([
      ['Demo', [...common, 'TABLE_NAME', 'DATA_BUCKET'].sort()],
      ['SmallModelsBenchmarks', [...common, 'ANALYST_GROUP', 'TABLE_NAME', 'DATA_BUCKET'].sort()],
    ]);
  });

  it("ingest: puts inbox objects, sends to the landing queue, reads run rows and claims tasks' issue records", () => {
    expect(actionsOn(ingest.roleId, inboxId)).toEqual(['s3:PutObject']);
    expect(actionsOn(ingest.roleId, dataId)).toEqual([]);
    const onTable = statementsOf(ingest.roleId)
      .filter((s) => resourcesOf(s).some((r) => mentions(r, tableId)))
      .map((s) => ({
        actions: actionsOf(s),
        resources: resourcesOf(s).length,
        leadingKeys: (s as { Condition?: Record<string, Record<string, unknown>> }).Condition?.[
          'ForAllValues:StringLike'
        ]?.['dynamodb:LeadingKeys'],
      }));
    // The table itself, no index: GetItem of a row or a claim, PutItem of a claim only.
    expect(onTable).toEqual([
      { actions: ['dynamodb:GetItem'], resources: 1, leadingKeys: ['SPACE#*', 'ISSUEOWNERS#*'] },
      { actions: ['dynamodb:PutItem'], resources: 1, leadingKeys: ['ISSUEOWNERS#*'] },
    ]);
    expect(statementsOf(ingest.roleId).flatMap(actionsOf)).toContain('sqs:SendMessage');
  });

  it('lander: reads and deletes inbox objects, writes data objects and rows', () => {
    expect(actionsOn(lander.roleId, inboxId)).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket']);
    expect(actionsOn(lander.roleId, dataId)).toEqual(['s3:PutObject']);
    expect(actionsOn(lander.roleId, tableId)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']);
  });

  it('judge: reads patches and writes audits in the data bucket, reads and writes rows, sends nothing', () => {
    expect(actionsOn(judge.roleId, dataId)).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(actionsOn(judge.roleId, inboxId)).toEqual([]);
    expect(actionsOn(judge.roleId, tableId)).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(statementsOf(judge.roleId).flatMap(actionsOf)).not.toContain('sqs:SendMessage');
  });

  it('sweeper: queries due rows and puts them on the judge queue, no bucket', () => {
    const judgeQueueId = logicalIdOf(state, 'AWS::SQS::Queue', (p) => p.VisibilityTimeout === 720);
    expect(actionsOn(sweeper.roleId, judgeQueueId)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(sweeper.roleId, tableId)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']);
    expect([...actionsOn(sweeper.roleId, dataId), ...actionsOn(sweeper.roleId, inboxId)]).toEqual([]);
  });

  it('snapshot compactor: reads the table, reads and writes data objects without deleting any, nothing on the inbox', () => {
    expect(actionsOn(compactor.roleId, tableId)).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(actionsOn(compactor.roleId, dataId)).toEqual(['s3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(actionsOn(compactor.roleId, inboxId)).toEqual([]);
  });

  it('read APIs: read-only on the table and the data bucket, nothing on the inbox', () => {
    for (const readApi of readApis) {
      expect(actionsOn(readApi.roleId, tableId)).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
      expect(actionsOn(readApi.roleId, dataId)).toEqual(['s3:GetObject', 's3:ListBucket']);
      expect(actionsOn(readApi.roleId, inboxId)).toEqual([]);
    }
  });

  it("read APIs read only their own space's partitions of the table (dynamodb:LeadingKeys)", () => {
    for (const readApi of readApis) {
      const { space, senders } = servedSpace(readApi);
      const tableStatements = statementsOf(readApi.roleId).filter((s) =>
        resourcesOf(s).some((r) => mentions(r, tableId)),
      );
      expect(tableStatements).toHaveLength(1);
      const leadingKeys = (tableStatements[0] as { Condition?: Record<string, Record<string, unknown>> }).Condition?.[
        'ForAllValues:StringEquals'
      ]?.['dynamodb:LeadingKeys'];
      expect([...(leadingKeys as string[])].sort()).toEqual(
        [
          `SPACE#${space}`,
          `BUDGET#${space}`,
          `RUNS#${space}`,
          `ISSUES#${space}`,
          ...senders.map((host) => `HOSTRUNS#${space}#${host}`),
        ].sort(),
      );
    }
  });

  it("read APIs read only their own space's run objects and snapshot and the reference cache, and list only under those prefixes", () => {
    for (const readApi of readApis) {
      const { space } = servedSpace(readApi);
      const dataStatements = statementsOf(readApi.roleId).filter((s) =>
        resourcesOf(s).some((r) => mentions(r, dataId)),
      );
      const gets = dataStatements.filter((s) => actionsOf(s).includes('s3:GetObject'));
      expect(
        gets
          .flatMap(resourcesOf)
          .map((r) => JSON.stringify(r))
          .sort(),
      ).toEqual([
        expect.stringContaining('/reference/*'),
        expect.stringContaining(`/runs/${space}/*`),
        expect.stringContaining(`/snapshots/${space}/*`),
      ]);
      const lists = dataStatements.filter((s) => actionsOf(s).includes('s3:ListBucket'));
      expect(lists).toHaveLength(1);
      expect((lists[0] as { Condition?: unknown }).Condition).toEqual({
        StringLikeIfExists: { 's3:prefix': [`runs/${space}/*`, `snapshots/${space}/*`, 'reference/*'] },
      });
    }
  });

  it('read APIs are configured with their own space and cockpit only', () => {
    const served = readApis.map((fn) => bundledConfigs.get(fn.id)!);
    expect(served.map((c) => [Object.keys(c.spaces), Object.keys(c.cockpits)]).sort()).toEqual([
      [['PublicDemo'], ['Demo']],
      [['SmallModelsMeasurements'], ['SmallModelsBenchmarks']],
    ]);
  });

  it('nobody deletes data objects, and only the lander deletes inbox objects', () => {
    expect(rolesAllowed(state, pipeline, 's3:DeleteObject', dataId)).toEqual([]);
    expect(rolesAllowed(state, pipeline, 's3:DeleteObject', inboxId)).toEqual([lander.roleId]);
    expect(actionsOn(sweeper.roleId, inboxId)).toEqual([]);
  });

  it('no statement of ours grants a wildcard action or a bare "*" resource', () => {
    const ours = [ingest, lander, judge, sweeper, compactor, ...readApis];
    for (const fn of ours) {
      for (const statement of statementsOf(fn.roleId)) {
        expect({ fn: fn.id, wildcards: actionsOf(statement).filter((a) => a.includes('*')) }).toEqual({
          fn: fn.id,
          wildcards: [],
        });
        expect(resourcesOf(statement)).not.toContain('*');
      }
    }
  });

  it('functions start with no AWS managed policy', () => {
    for (const fn of [ingest, lander, judge, sweeper, compactor, ...readApis]) {
      const role = ofType(pipeline, 'AWS::IAM::Role').find(([id]) => id === fn.roleId)![1];
      expect(JSON.stringify(role.Properties.ManagedPolicyArns ?? [])).not.toContain(':iam::aws:policy');
    }
  });
});
