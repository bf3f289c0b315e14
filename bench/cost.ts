// Cost per 1 million run deliveries, recomputed from what the stacks configure: the synthesized templates
// give each function's memory and architecture, the landing queue's batch size, the table's indexes and
// their projections, the log retention; the code gives the calls per delivery (listed below, each with the
// line of code it counts). Durations and sizes are assumptions, stated here and printed with the table.
// Prices: us-east-1 list prices (December 2026), free tiers ignored. Judging is bounded by `judge.dailyCap`,
// not by deliveries, and is costed in docs/deploy.md beside this table. Snapshot storage follows from the
// compactor's schedule and the data bucket's lifecycle rule for `snapshots/`, both read off the templates.
//   npm run bench:cost
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readConfigFile } from '../shared/schema/config.ts';
import { addReplayStacks } from '../infra/aws/replay-app.ts';

const root = resolve(import.meta.dirname, '..');
const PER = 1_000_000;

const PRICE = {
  httpApiPerM: 1.0,
  lambdaRequestPerM: 0.2,
  lambdaArmGbSecond: 0.0000133334,
  lambdaX86GbSecond: 0.0000166667,
  sqsPerM: 0.4,
  s3PutPerK: 0.005,
  s3GetPerK: 0.0004,
  dynamoWritePerM: 0.625,
  dynamoReadPerM: 0.125,
  logsPerGb: 0.5,
  s3StandardGbMonth: 0.023,
};

const ASSUME = {
  ingestSeconds: 0.15,
  landerSecondsPerDelivery: 0.03,
  rowKb: 3,
  hostRecordKb: 1,
  logBytesPerDelivery: 3_000,
  /** One space's snapshot (runs, issues, columns parts) per run in view: 15.6 MB a write at a million runs. */
  snapshotBytesPerRun: 15.6,
  /** Objects one snapshot write puts (manifest, runs, issues, columns parts) at a million runs. */
  snapshotObjectsPerWrite: 6,
};

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

function synthesizedTemplates(): { pipeline: Record<string, Resource>; state: Record<string, Resource> } {
  // Templates only: no function bundling, and the dashboard folder needs just to exist.
  const dashboard = mkdtempSync(join(tmpdir(), 'cost-dashboard-'));
  writeFileSync(join(dashboard, 'index.html'), '');
  const context = (JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stacks = addReplayStacks(app, {
    config: readConfigFile(join(root, 'replay.config.example.json')),
    dashboardDir: dashboard,
    checks: false,
  });
  const resources = (t: Template) => (t.toJSON() as { Resources: Record<string, Resource> }).Resources;
  return {
    pipeline: resources(Template.fromStack(stacks.pipeline)),
    state: resources(Template.fromStack(stacks.state)),
  };
}

const { pipeline, state } = synthesizedTemplates();
const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);

const functions = new Map(
  ofType(pipeline, 'AWS::Lambda::Function')
    .filter(
      ([, f]) =>
        (f.Properties.Environment as { Variables?: Record<string, string> } | undefined)?.Variables
          ?.POWERTOOLS_SERVICE_NAME,
    )
    .map(([id, f]) => [
      (f.Properties.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME!,
      { id, properties: f.Properties },
    ]),
);
function fn(service: string) {
  const f = functions.get(service);
  if (!f) throw new Error(`no ${service} function in the template`);
  const memory = Number(f.properties.MemorySize);
  const arm = JSON.stringify(f.properties.Architectures).includes('arm64');
  return {
    id: f.id,
    gb: memory / 1024,
    arm,
    gbSecond: arm ? PRICE.lambdaArmGbSecond : PRICE.lambdaX86GbSecond,
    memory,
  };
}
const ingest = fn('ingest');
const lander = fn('lander');
const landerBatch = Number(
  ofType(pipeline, 'AWS::Lambda::EventSourceMapping').find(([, m]) =>
    JSON.stringify(m.Properties.FunctionName).includes(lander.id),
  )![1].Properties.BatchSize,
);

const [, table] = ofType(state, 'AWS::DynamoDB::Table')[0]!;
const indexes =
  (table.Properties.GlobalSecondaryIndexes as { IndexName: string; Projection: { ProjectionType: string } }[]) ?? [];
const fullCopies = indexes.filter((i) => i.Projection.ProjectionType === 'ALL').length;
const keyCopies = indexes.length - fullCopies;
// A landed run is written once with every index attribute set (it is pending judgement, so also in `due`):
// the table item and each ALL-projected index cost its size in 1 KB units, a KEYS_ONLY index one unit.
const rowWrites = ASSUME.rowKb * (1 + fullCopies) + keyCopies;
const hostWrites = ASSUME.hostRecordKb;

const lines: { service: string; metered: string; price: string; cost: number }[] = [
  {
    service: 'API Gateway HTTP API',
    metered: '1 request (bodies ≤ 128 KB, metered per 512 KB)',
    price: '$1.00 / M requests',
    cost: PRICE.httpApiPerM,
  },
  {
    service: `Lambda ingest (${ingest.memory} MB, ${ingest.arm ? 'arm64' : 'x86'})`,
    metered: `1 request, ${ingest.gb} GB × ${ASSUME.ingestSeconds} s`,
    price: '$0.20 / M requests + GB-s',
    cost: PRICE.lambdaRequestPerM + ingest.gb * ASSUME.ingestSeconds * ingest.gbSecond * PER,
  },
  {
    service: `Lambda lander (${lander.memory} MB, ${lander.arm ? 'arm64' : 'x86'})`,
    metered: `1/${landerBatch} request (batch of ${landerBatch}), ${lander.gb} GB × ${ASSUME.landerSecondsPerDelivery} s`,
    price: 'same',
    cost: PRICE.lambdaRequestPerM / landerBatch + lander.gb * ASSUME.landerSecondsPerDelivery * lander.gbSecond * PER,
  },
  {
    // ingest: SendMessage (accept-delivery.ts); Lambda receives and deletes per batch; the lander queues
    // the run for judging (land.ts: judgeQueue.send), which the judge receives and deletes one at a time.
    service: 'SQS standard',
    metered: `landing: 1 send + receive and delete per batch of ${landerBatch}; judge: 1 send, 1 receive, 1 delete`,
    price: '$0.40 / M requests',
    cost: (1 + 2 / landerBatch + 3) * PRICE.sqsPerM,
  },
  {
    // ingest puts the inbox entry; the lander gets it, puts patch and summary, deletes the entry (free).
    service: 'S3 requests',
    metered: '3 PUT (inbox entry, patch, summary), 1 GET (inbox entry), 1 DELETE (free)',
    price: '$0.005 / 1,000 PUT, $0.0004 / 1,000 GET',
    cost: (3 * PRICE.s3PutPerK + PRICE.s3GetPerK) * 1000,
  },
  {
    // ingest: getRun (the owner check); land.ts: getRun, the held hidden-test results (a query that finds none),
    // getHost (consistent reads); putRun and putHost.
    service: 'DynamoDB on demand',
    metered:
      `${rowWrites + hostWrites} write units (a ${ASSUME.rowKb} KB row in the table and ` +
      `${fullCopies} ALL + ${keyCopies} KEYS_ONLY indexes, the host record), 4 consistent read units`,
    price: '$0.625 / M WRU, $0.125 / M RRU',
    cost: (rowWrites + hostWrites) * PRICE.dynamoWritePerM + 4 * PRICE.dynamoReadPerM,
  },
  {
    service: 'CloudWatch Logs',
    metered: `about ${ASSUME.logBytesPerDelivery / 1000} KB of function logs, metrics (EMF) and API access logs`,
    price: '$0.50 / GB ingested',
    cost: ((ASSUME.logBytesPerDelivery * PER) / 1e9) * PRICE.logsPerGb,
  },
];

const total = lines.reduce((sum, line) => sum + line.cost, 0);

// Snapshots: each write makes the previous one a non-current version, kept until the lifecycle rule expires it.
const [, compactSchedule] = ofType(pipeline, 'AWS::Events::Rule').find(([, r]) =>
  JSON.stringify(r.Properties.Targets).includes(fn('snapshot-compactor').id),
)!;
const everyMinutes = Number(/^rate\((\d+) minutes?\)$/.exec(String(compactSchedule.Properties.ScheduleExpression))![1]);
const writesPerDay = (24 * 60) / everyMinutes;
const dataBucket = ofType(state, 'AWS::S3::Bucket').find(
  ([, b]) => (b.Properties.LoggingConfiguration as { LogFilePrefix?: string } | undefined)?.LogFilePrefix === 'data/',
)![1];
const snapshotRule = (
  dataBucket.Properties.LifecycleConfiguration as {
    Rules: { Prefix?: string; NoncurrentVersionExpiration?: { NoncurrentDays: number } }[];
  }
).Rules.find((rule) => rule.Prefix === 'snapshots/');
if (!snapshotRule?.NoncurrentVersionExpiration) throw new Error('no lifecycle rule expires old snapshot versions');
const keptDays = snapshotRule.NoncurrentVersionExpiration.NoncurrentDays;
const snapshotLines = [100_000, 1_000_000].map((runs) => {
  const gbPerWrite = (runs * ASSUME.snapshotBytesPerRun) / 1e9;
  // A space whose runs change between every two compactions writes every time: the worst case.
  const storedGb = gbPerWrite * (1 + writesPerDay * keptDays);
  const putsPerMonth = writesPerDay * 30 * ASSUME.snapshotObjectsPerWrite;
  return {
    runs,
    mbPerWrite: gbPerWrite * 1000,
    storedGb,
    storage: storedGb * PRICE.s3StandardGbMonth,
    puts: (putsPerMonth / 1000) * PRICE.s3PutPerK,
  };
});
console.log(`Cost per 1M run deliveries (us-east-1 list prices, free tiers ignored), from the synthesized templates.`);
console.log(
  `Assumed: ingest ${ASSUME.ingestSeconds * 1000} ms, lander ${ASSUME.landerSecondsPerDelivery * 1000} ms ` +
    `per delivery, a ${ASSUME.rowKb} KB run row, ${ASSUME.logBytesPerDelivery / 1000} KB of logs per delivery.\n`,
);
console.log('| service | what is metered per delivery | unit price | per 1M deliveries |');
console.log('|---|---|---|---|');
for (const line of lines)
  console.log(`| ${line.service} | ${line.metered} | ${line.price} | $${line.cost.toFixed(2)} |`);
console.log(`| **Total, variable** | | | **$${total.toFixed(2)}** |\n`);
const largest = [...lines].sort((a, b) => b.cost - a.cost).slice(0, 3);
console.log(
  `Largest items: ${largest.map((l) => `${l.service} $${l.cost.toFixed(2)} (${((l.cost / total) * 100).toFixed(0)}%)`).join(', ')}.`,
);
const costed = new Set(['ingest', 'lander']);
const notPerDelivery = [...functions.keys()].filter((s) => !costed.has(s)).sort();
console.log(
  `Functions not run per delivery (costed by schedule, cap or cockpit traffic in docs/deploy.md): ${notPerDelivery.join(', ')}.`,
);

console.log(
  `\nSnapshot storage, per space whose runs change between every two compactions: a write every ${everyMinutes} minutes (${writesPerDay} a ` +
    `day), old versions kept ${keptDays} day(s) by the lifecycle rule for snapshots/, ` +
    `${ASSUME.snapshotBytesPerRun} bytes per run in view, ${ASSUME.snapshotObjectsPerWrite} objects a write.\n`,
);
console.log('| runs in view | one snapshot | stored (current + old versions) | storage per month | PUTs per month |');
console.log('|---|---|---|---|---|');
for (const line of snapshotLines)
  console.log(
    `| ${line.runs.toLocaleString('en-US')} | ${line.mbPerWrite.toFixed(1)} MB | ` +
      `${line.storedGb.toFixed(1)} GB | $${line.storage.toFixed(2)} | $${line.puts.toFixed(2)} |`,
  );
