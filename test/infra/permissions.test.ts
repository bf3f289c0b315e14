// Least privilege, read from the synthesized templates of the richest configuration and from the policies as a
// deployment renders them: who may read host keys and judge credentials, and exactly what each function holds.
import { describe, expect, it } from '@jest/globals';
import { keySecretName } from '#shared/key-names.ts';
import { keyCandidates, parseConfig } from '#schema/config.ts';
import {
  auditKey,
  contaminationKey,
  exportSpacePrefix,
  inboxKey,
  patchKey,
  runTextsKey,
  referenceDiffKey,
  snapshotManifestKey,
  snapshotPartKey,
  summaryKey,
  testsKey,
} from '#core/storage-layout.ts';
import { richConfig, synthesize } from './synth.ts';
import {
  actionsOf,
  functionsByService,
  logicalIdOf,
  mentions,
  onlyFunction,
  ofType,
  resourcesOf,
  bucketGrants,
  keyPatternMatches,
  roleStatements,
  rolesAllowed,
  type Statement,
} from './template-queries.ts';
import { ACCOUNT, allowStatements, DeploymentRenderer, iamMatches, REGION, roleMay } from './rendered-policies.ts';

const config = richConfig();
const { state, pipeline, bundledConfigs, templates, cockpitTemplate } = synthesize(config);
const functionTemplates = [pipeline, cockpitTemplate('SmallModelsBenchmarks'), cockpitTemplate('Demo')];
const renderer = new DeploymentRenderer(templates);
const renderedRoles = renderer.roles();
const rendered = (roleId: string) => renderedRoles.find((r) => r.roleId === roleId)!;

const secretId = (name: string) => logicalIdOf(state, 'AWS::SecretsManager::Secret', (p) => p.Name === name);
const hostSecretIds = keyCandidates(config).map((k) => secretId(keySecretName(k.secretConfigKey, k.host)));
/** A host key's ARN as Secrets Manager mints it (name, "-", six random characters). */
const hostSecretArn = (id: string) => renderer.ref('ReplayBench-State', id);
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
const reconciler = onlyFunction(pipeline, 'inbox-reconciler');
const readApis = functionsByService(...functionTemplates).get('read-api')!;
const allFunctions = [
  { ...ingest, name: 'ingest' },
  { ...lander, name: 'lander' },
  { ...judge, name: 'judge' },
  { ...sweeper, name: 'sweeper' },
  { ...compactor, name: 'snapshot-compactor' },
  { ...reconciler, name: 'inbox-reconciler' },
  ...readApis.map((fn, i) => ({ ...fn, name: `read-api-${i}` })),
];
const templateOfRole = (roleId: string) =>
  functionTemplates.find((t) => ofType(t, 'AWS::IAM::Role').some(([id]) => id === roleId))!;
const statementsOf = (roleId: string) => roleStatements(state, templateOfRole(roleId), roleId);
const servedSpace = (fn: { id: string }) => {
  const [space, settings] = Object.entries(bundledConfigs.get(fn.id)!.spaces)[0]!;
  return { space, senders: settings.senders };
};
const actionsOn = (roleId: string, logicalId: string) =>
  statementsOf(roleId)
    .filter((s) => resourcesOf(s).some((r) => mentions(r, logicalId)))
    .flatMap(actionsOf)
    .sort();

/** Every grant a role holds on one bucket, one line per action and key pattern (template-queries.ts). */
const objectGrants = (roleId: string, bucketId: string): string[] => bucketGrants(statementsOf(roleId), bucketId);

/** The roles that may put an object at this key of the data bucket. */
const dataWritersOf = (key: string): string[] =>
  allFunctions
    .filter((fn) =>
      objectGrants(fn.roleId, dataId).some(
        (grant) => grant.startsWith('s3:PutObject ') && keyPatternMatches(grant.slice('s3:PutObject '.length), key),
      ),
    )
    .map((fn) => fn.name);

describe('host keys', () => {
  const mayOn = (action: string, id: string) =>
    renderedRoles.filter((role) => roleMay(role, action, hostSecretArn(id))).map((role) => role.roleId);

  it('are readable by the ingest function, and by nothing else', () => {
    expect(hostSecretIds).toHaveLength(4);
    for (const id of hostSecretIds)
      expect({ id, roles: mayOn('secretsmanager:GetSecretValue', id) }).toEqual({ id, roles: [ingest.roleId] });
  });

  it('are granted to the ingest function as one ARN per key prefix, whatever the number of hosts', () => {
    const secretResources = allowStatements(rendered(ingest.roleId))
      .filter((s) => s.Action.includes('secretsmanager:GetSecretValue'))
      .flatMap((s) => s.Resource);
    expect(secretResources.sort()).toEqual([
      `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:Hosting/DemoSecret/*`,
      `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:Hosting/ModuleReportSecret/*`,
    ]);
  });

  it('are read by the ingest function 20 a call: BatchGetSecretValue, which names no resource, beside GetSecretValue on their folders', () => {
    const batch = allowStatements(rendered(ingest.roleId)).filter((s) =>
      s.Action.includes('secretsmanager:BatchGetSecretValue'),
    );
    expect(batch.map((s) => ({ actions: s.Action, resources: s.Resource }))).toEqual([
      { actions: ['secretsmanager:BatchGetSecretValue'], resources: ['*'] },
    ]);
    // No other function may batch-read a secret, so none reads a host key that way either.
    for (const role of renderedRoles.filter((r) => r.roleId !== ingest.roleId))
      expect(roleMay(role, 'secretsmanager:BatchGetSecretValue', '*')).toBe(false);
  });

  it('cannot be read by the judge', () => {
    for (const id of hostSecretIds) {
      expect({ id, actions: actionsOn(judge.roleId, id) }).toEqual({ id, actions: [] });
      expect(roleMay(rendered(judge.roleId), 'secretsmanager:GetSecretValue', hostSecretArn(id))).toBe(false);
    }
  });

  it("are only described by each read API, for its own space's key prefix, and never read", () => {
    const expected = new Map([
      ['SmallModelsMeasurements', ['Hosting/ModuleReportSecret/mac-mini-2', 'Hosting/ModuleReportSecret/mac-studio-1']],
      ['PublicDemo', ['Hosting/DemoSecret/mac-mini-2', 'Hosting/DemoSecret/mac-mini-3']],
    ]);
    expect(readApis).toHaveLength(2);
    for (const readApi of readApis) {
      const space = Object.keys(bundledConfigs.get(readApi.id)!.spaces)[0]!;
      const role = rendered(readApi.roleId);
      const described = hostSecretIds.filter((id) => roleMay(role, 'secretsmanager:DescribeSecret', hostSecretArn(id)));
      expect(described.sort()).toEqual(expected.get(space)!.map(secretId).sort());
      for (const id of hostSecretIds)
        expect(roleMay(role, 'secretsmanager:GetSecretValue', hostSecretArn(id))).toBe(false);
    }
  });

  it('never travel in an environment variable', () => {
    for (const [, fns] of functionsByService(...functionTemplates)) {
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
      expect(rolesAllowed(state, functionTemplates, 'secretsmanager:GetSecretValue', id)).toEqual([judge.roleId]);
    expect(mentions(judge.environment.ANTHROPIC_SECRET_ARN, judgeSecretIds[0]!)).toBe(true);
    expect(mentions(judge.environment.GITHUB_APP_SECRET_ARN, judgeSecretIds[1]!)).toBe(true);
  });
});

/** The one table statement's LeadingKeys patterns (StringLike: `*` is the only wildcard used). */
function leadingKeysOf(statements: Statement[]): string[] {
  const table = statements.filter((s) => resourcesOf(s).some((r) => mentions(r, tableId)));
  expect(table).toHaveLength(1);
  const condition = (table[0] as { Condition?: Record<string, Record<string, string[]>> }).Condition;
  expect(Object.keys(condition ?? {})).toEqual(['ForAllValues:StringLike']);
  return [...condition!['ForAllValues:StringLike']!['dynamodb:LeadingKeys']!];
}

describe('each function holds exactly what it uses', () => {
  const common = ['NODE_OPTIONS', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME'];
  it.each([
    ['ingest', ['TABLE_NAME', 'INBOX_BUCKET', 'LANDING_QUEUE_URL']],
    ['lander', ['TABLE_NAME', 'INBOX_BUCKET', 'DATA_BUCKET', 'JUDGE_QUEUE_URL']],
    ['judge', ['TABLE_NAME', 'DATA_BUCKET', 'ANTHROPIC_SECRET_ARN', 'GITHUB_APP_SECRET_ARN']],
    ['sweeper', ['TABLE_NAME', 'JUDGE_QUEUE_URL']],
    ['snapshot-compactor', ['TABLE_NAME', 'DATA_BUCKET']],
    ['inbox-reconciler', ['TABLE_NAME', 'INBOX_BUCKET', 'LANDING_QUEUE_URL', 'LANDING_DLQ_URL']],
  ])('%s is told about %j', (service, names) => {
    for (const fn of functionsByService(...functionTemplates).get(service)!)
      expect(Object.keys(fn.environment).sort()).toEqual([...common, ...names].sort());
  });

  it("read APIs are told about the table, the data bucket, the engine's workgroup and table and, for a private cockpit, its analysts' group", () => {
    const engine = ['ATHENA_WORKGROUP', 'GLUE_DATABASE', 'GLUE_TABLE'];
    const told = readApis.map((fn) => [
      Object.keys(bundledConfigs.get(fn.id)!.cockpits)[0],
      Object.keys(fn.environment).sort(),
    ]);
    expect(told.sort()).toEqual([
      ['Demo', [...common, ...engine, 'TABLE_NAME', 'DATA_BUCKET'].sort()],
      ['SmallModelsBenchmarks', [...common, ...engine, 'ANALYST_GROUP', 'TABLE_NAME', 'DATA_BUCKET'].sort()],
    ]);
  });

  it("ingest: puts inbox objects, sends to the landing queue, reads run rows and claims tasks' issue records", () => {
    expect(objectGrants(ingest.roleId, inboxId)).toEqual(['s3:PutObject *']);
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

  it('lander: reads and deletes inbox objects, writes only run texts (patch and summary), contamination and test lists, and rows', () => {
    expect(objectGrants(lander.roleId, inboxId)).toEqual([
      's3:DeleteObject *',
      's3:GetObject *',
      's3:ListBucket under *',
    ]);
    expect(objectGrants(lander.roleId, dataId)).toEqual([
      's3:PutObject runs/*/*/*/contamination-*',
      's3:PutObject runs/*/*/*/tests-*',
      's3:PutObject runs/*/*/*/texts-*',
    ]);
    expect(actionsOn(lander.roleId, tableId)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']);
  });

  it('judge: reads run texts (and the patch and summary objects of runs landed before), writes its audits, reads and writes the reference cache, reads and writes rows, sends nothing', () => {
    expect(objectGrants(judge.roleId, dataId)).toEqual([
      's3:GetObject reference/spaces/*',
      's3:GetObject runs/*/*/*/patch-*',
      's3:GetObject runs/*/*/*/summary-*',
      's3:GetObject runs/*/*/*/texts-*',
      's3:ListBucket under reference/spaces/*',
      's3:ListBucket under runs/*',
      's3:PutObject reference/spaces/*',
      's3:PutObject runs/*/*/*/judge-*',
    ]);
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

  it('inbox reconciler: lists the inbox, counts in its own partition, holds its lease, sends to the landing queues', () => {
    expect(actionsOn(reconciler.roleId, tableId)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    const tableStatements = statementsOf(reconciler.roleId).filter((s) =>
      resourcesOf(s).some((r) => mentions(r, tableId)),
    );
    expect(tableStatements.map((s) => [actionsOf(s), (s as { Condition?: unknown }).Condition])).toEqual(
      expect.arrayContaining([
        [['dynamodb:UpdateItem'], { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['INBOX-REENQUEUE'] } }],
        [
          ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
          { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['LEASE#inbox-reconciler'] } },
        ],
      ]),
    );
    expect(tableStatements).toHaveLength(2);
    expect(objectGrants(reconciler.roleId, inboxId)).toEqual(['s3:ListBucket under *']);
    expect(actionsOn(reconciler.roleId, dataId)).toEqual([]);
    const landingQueueId = logicalIdOf(state, 'AWS::SQS::Queue', (p) => p.VisibilityTimeout === 180);
    const judgeQueueId = logicalIdOf(state, 'AWS::SQS::Queue', (p) => p.VisibilityTimeout === 720);
    const [, landingQueue] = ofType(state, 'AWS::SQS::Queue').find(([id]) => id === landingQueueId)!;
    const landingDlqId = (landingQueue.Properties.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': string[] } })
      .deadLetterTargetArn['Fn::GetAtt'][0]!;
    expect(actionsOn(reconciler.roleId, landingQueueId)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(reconciler.roleId, landingDlqId)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(reconciler.roleId, judgeQueueId)).toEqual([]);
  });

  it('snapshot compactor: reads the table and writes only its lease, reads and writes snapshots, adds and deletes run dataset parts, deletes only its rebuild progress among snapshots, nothing on the inbox', () => {
    expect(actionsOn(compactor.roleId, tableId)).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
    const writes = statementsOf(compactor.roleId).filter((s) => actionsOf(s).includes('dynamodb:PutItem'));
    expect(writes.map((s) => (s as { Condition?: unknown }).Condition)).toEqual([
      { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['LEASE#snapshot-compactor'] } },
    ]);
    expect(objectGrants(compactor.roleId, dataId)).toEqual([
      's3:DeleteObject runs-parquet/*',
      's3:DeleteObject snapshots/*/rebuild.json',
      's3:GetObject snapshots/*',
      's3:ListBucket under runs-parquet/*',
      's3:ListBucket under snapshots/*',
      's3:PutObject runs-parquet/*',
      's3:PutObject snapshots/*',
    ]);
    expect(actionsOn(compactor.roleId, inboxId)).toEqual([]);
  });

  it("read APIs: read-only on the table, their own space's run objects, snapshot, reference cache and run dataset, their large exports and query results (and Athena's parts of them), nothing on the inbox", () => {
    for (const readApi of readApis) {
      const { space } = servedSpace(readApi);
      expect(actionsOn(readApi.roleId, tableId)).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
      ]);
      expect(objectGrants(readApi.roleId, dataId)).toEqual([
        `s3:AbortMultipartUpload athena-results/${space}/*`,
        `s3:AbortMultipartUpload exports/${space}/*`,
        's3:GetBucketLocation (bucket)',
        `s3:GetObject athena-results/${space}/*`,
        `s3:GetObject exports/${space}/*`,
        `s3:GetObject reference/spaces/${space}/*`,
        `s3:GetObject runs-parquet/space=${space}/*`,
        `s3:GetObject runs/${space}/*`,
        `s3:GetObject snapshots/${space}/*`,
        `s3:ListBucket under athena-results/${space}/*`,
        `s3:ListBucket under exports/${space}/*`,
        `s3:ListBucket under reference/spaces/${space}/*`,
        `s3:ListBucket under runs-parquet/space=${space}/*`,
        `s3:ListBucket under runs/${space}/*`,
        `s3:ListBucket under snapshots/${space}/*`,
        `s3:ListMultipartUploadParts athena-results/${space}/*`,
        `s3:ListMultipartUploadParts exports/${space}/*`,
        `s3:PutObject athena-results/${space}/*`,
        `s3:PutObject exports/${space}/*`,
      ]);
      expect(actionsOn(readApi.roleId, inboxId)).toEqual([]);
    }
  });

  it("read APIs: run queries in their own cockpit's workgroup only, and read only the run dataset's Glue database and table", () => {
    const workGroups = functionTemplates.flatMap((t) => ofType(t, 'AWS::Athena::WorkGroup'));
    expect(workGroups).toHaveLength(readApis.length);
    for (const readApi of readApis) {
      const cockpit = Object.keys(bundledConfigs.get(readApi.id)!.cockpits)[0]!;
      const statements = statementsOf(readApi.roleId);
      const athena = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('athena:')));
      expect(athena.flatMap(actionsOf).sort()).toEqual([
        'athena:GetQueryExecution',
        'athena:GetQueryResults',
        'athena:GetQueryRuntimeStatistics',
        'athena:StartQueryExecution',
        'athena:StopQueryExecution',
      ]);
      const resources = athena.flatMap(resourcesOf);
      expect(resources).toHaveLength(1);
      for (const [id, workGroup] of workGroups)
        expect({ id, named: mentions(resources[0], id) }).toEqual({
          id,
          named: workGroup.Properties.Name === `ReplayBench-${cockpit}`,
        });
      const glue = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('glue:')));
      expect(glue.flatMap(actionsOf).sort()).toEqual(['glue:GetDatabase', 'glue:GetTable']);
      const glueResources = JSON.stringify(glue.flatMap(resourcesOf));
      expect(glueResources).toMatch(/:catalog"/);
      expect(glueResources).toMatch(/:database\/replay_bench"/);
      expect(glueResources).toMatch(/:table\/replay_bench\/runs"/);
      expect(glueResources).not.toMatch(/\*/);
    }
  });

  it('every object of the data bucket is writable by its one writer only', () => {
    const [space, id, at] = ['PublicDemo', 'qwen3:8b__acme/widgets-42__h1', '2026-11-29T08:10:00.000Z'];
    const sha = 'ab'.repeat(32);
    expect(
      Object.fromEntries(
        Object.entries({
          texts: runTextsKey(space, id, at, sha),
          // Runs landed before patch and summary were one object keep these: read, never written again.
          patch: patchKey(space, id, at, sha),
          summary: summaryKey(space, id, at, sha),
          contamination: contaminationKey(space, id, at, sha),
          tests: testsKey(space, id, at, sha),
          audit: auditKey(space, id, at, at, 2),
          reference: referenceDiffKey(space, 'acme/widgets', 'a'.repeat(40), 'b'.repeat(40)),
          manifest: snapshotManifestKey(space),
          snapshot: snapshotPartKey(space, 'c0ffee-0', 'runs'),
          columns: snapshotPartKey(space, 'c0ffee-3', 'columns'),
          export: `${exportSpacePrefix(space)}runs-1.parquet`,
          // A run whose id starts like another object's name: still only the lander's texts.
          trickyTexts: runTextsKey(space, 'judge-1__t__h', at, sha),
          trickyAudit: auditKey(space, 'patch-1__t__h', at, at, 1),
          stray: 'reference/v2/acme/widgets/x...y.json',
          inbox: inboxKey(space, 'd-1'),
        }).map(([what, key]) => [what, dataWritersOf(key)]),
      ),
    ).toEqual({
      texts: ['lander'],
      patch: [],
      summary: [],
      contamination: ['lander'],
      tests: ['lander'],
      audit: ['judge'],
      reference: ['judge'],
      manifest: ['snapshot-compactor'],
      snapshot: ['snapshot-compactor'],
      columns: ['snapshot-compactor'],
      export: [`read-api-${readApis.findIndex((readApi) => servedSpace(readApi).space === space)}`],
      trickyTexts: ['lander'],
      trickyAudit: ['judge'],
      stray: [],
      inbox: [],
    });
  });

  it("read APIs read only their own space's partitions of the table (dynamodb:LeadingKeys)", () => {
    const otherSpaces = [...Object.keys(config.spaces), 'SmallModelsMeasurementsX', 'PublicDemoX'];
    for (const readApi of readApis) {
      const { space, senders } = servedSpace(readApi);
      const patterns = leadingKeysOf(statementsOf(readApi.roleId));
      expect(patterns.sort()).toEqual(
        [`SPACE#${space}`, `BUDGET#${space}`, `RUNS#${space}`, `ISSUES#${space}`, `HOSTRUNS#${space}#*`].sort(),
      );
      const readable = (key: string) => patterns.some((p) => iamMatches(p, key));
      for (const host of [...senders, 'mac-not-yet-listed']) expect(readable(`HOSTRUNS#${space}#${host}`)).toBe(true);
      for (const other of otherSpaces.filter((o) => o !== space)) {
        for (const key of [`SPACE#${other}`, `BUDGET#${other}`, `RUNS#${other}`, `ISSUES#${other}`])
          expect({ key, readable: readable(key) }).toEqual({ key, readable: false });
        for (const host of senders)
          expect({ host, readable: readable(`HOSTRUNS#${other}#${host}`) }).toEqual({ host, readable: false });
      }
    }
  });

  it("matches a space's name literally, even when it holds IAM's wildcard characters", () => {
    const odd = synthesize(
      parseConfig({
        spaces: { 'Wild*Card?$': { senders: ['h1'], repos: ['acme/widgets'] } },
        cockpits: { C: { space: 'Wild*Card?$' } },
      }),
    );
    const readApi = onlyFunction(odd.cockpitTemplate('C'), 'read-api');
    const patterns = leadingKeysOf(roleStatements(odd.state, readApi.template, readApi.roleId));
    const readable = (key: string) => patterns.some((p) => iamMatches(p, key));
    expect(readable('SPACE#Wild*Card?$')).toBe(true);
    expect(readable('HOSTRUNS#Wild*Card?$#h1')).toBe(true);
    expect(readable('SPACE#WildestCard!$')).toBe(false);
    expect(readable('HOSTRUNS#Wild-Card!$#h1')).toBe(false);
  });

  it('read APIs are configured with their own space and cockpit only', () => {
    const served = readApis.map((fn) => bundledConfigs.get(fn.id)!);
    expect(served.map((c) => [Object.keys(c.spaces), Object.keys(c.cockpits)]).sort()).toEqual([
      [['PublicDemo'], ['Demo']],
      [['SmallModelsMeasurements'], ['SmallModelsBenchmarks']],
    ]);
  });

  it("nobody deletes a run's objects, only the compactor the derived parts it supersedes, and only the lander inbox objects", () => {
    // Its delete patterns (runs-parquet/*, its rebuild progress) are asserted exactly in its own test above.
    expect(rolesAllowed(state, functionTemplates, 's3:DeleteObject', dataId)).toEqual([compactor.roleId]);
    expect(rolesAllowed(state, functionTemplates, 's3:DeleteObject', inboxId)).toEqual([lander.roleId]);
    expect(actionsOn(sweeper.roleId, inboxId)).toEqual([]);
  });

  it('no statement of ours grants a wildcard action, or a bare "*" resource but to an action that names none', () => {
    // AWS defines these with no resource type (Service Authorization Reference), so "*" is the only resource they
    // take; each secret BatchGetSecretValue returns is still authorized by GetSecretValue on that secret.
    const namingNoResource = ['secretsmanager:BatchGetSecretValue'];
    const ours = [ingest, lander, judge, sweeper, compactor, reconciler, ...readApis];
    for (const fn of ours) {
      for (const statement of statementsOf(fn.roleId)) {
        expect({ fn: fn.id, wildcards: actionsOf(statement).filter((a) => a.includes('*')) }).toEqual({
          fn: fn.id,
          wildcards: [],
        });
        if (!actionsOf(statement).every((action) => namingNoResource.includes(action)))
          expect(resourcesOf(statement)).not.toContain('*');
      }
    }
  });

  it('functions start with no AWS managed policy', () => {
    for (const fn of [ingest, lander, judge, sweeper, compactor, reconciler, ...readApis]) {
      const role = ofType(fn.template, 'AWS::IAM::Role').find(([id]) => id === fn.roleId)![1];
      expect(JSON.stringify(role.Properties.ManagedPolicyArns ?? [])).not.toContain(':iam::aws:policy');
    }
  });
});
