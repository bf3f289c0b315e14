// Cost per 1 million run deliveries, recomputed from what the stacks configure: the synthesized templates
// give each function's memory and architecture, the landing queue's batch size, the table's indexes and
// their projections, the log retention; the code gives the calls per delivery (listed below, each with the
// line of code it counts; the run objects a landing puts and a judge pass gets are counted by landing and
// judging one run through the code against in-memory stores). Durations and sizes are assumptions, stated here and printed with the table.
// Prices: us-east-1 list prices (December 2026), free tiers ignored. The full figure is a run delivery with
// its hidden-test result and one judge pass (the model's tokens aside: they are the judge's budget), plus the
// host keys ingest reads, whose calls follow time rather than deliveries. Snapshot storage follows from the
// compactor's schedule and the data bucket's lifecycle rule for `snapshots/`, both read off the templates.
// Beside it, the judge pass of a batch-mode space (`judge.mode: "batch"`, core/judge/batch.ts): no function waits on
// the model; the sweeper's submission and the collects it sends while the batch runs are counted instead.
//   npm run bench:cost
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readConfigFile } from '#schema/config.ts';
import { addReplayStacks } from '#infra/aws/replay-app.ts';
import { INDEXES } from '#core/storage-layout.ts';
import { AS_OF_SAFETY_MS } from '#core/read/as-of.ts';
import { RUNS_PREFIX } from '#core/storage-layout.ts';
import { SECRETS_PER_BATCH } from '#adapters/aws/secrets-key-source.ts';
import { parseConfig } from '#schema/config.ts';
import { BATCH_SUBMIT_MAX_RUNS } from '#schema/messages.ts';
import { judgeWorldWithFix } from '../test/helpers/in-memory-judge.ts';

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
  secretsPer10k: 0.05,
  logsPerGb: 0.5,
  s3StandardGbMonth: 0.023,
  dynamoGbMonth: 0.25,
};

const ASSUME = {
  ingestSeconds: 0.15,
  landerSecondsPerDelivery: 0.03,
  rowKb: 3,
  hostRecordKb: 1,
  logBytesPerDelivery: 3_000,
  /** The judge's function waits for the model's answer: billed wall time. */
  judgeSeconds: 20,
  logBytesPerJudgePass: 3_000,
  hosts: 200,
  warmIngestEnvironments: 2,
  /** The rate the Secrets Manager line is read at: its calls follow time, not deliveries. */
  runDeliveriesPerMonth: 1_000_000,
  /** A run delivery as a landing message (the inbox entry: patch and summary about 20 KB, the row, the envelope). */
  runMessageKb: 24,
  /** A hidden-test delivery as a landing message, its test ids in it. */
  hiddenTestMessageKb: 8,
  /** One space's snapshot (runs, issues, columns parts) per run in view: 15.6 MB a write at a million runs. */
  snapshotBytesPerRun: 15.6,
  /** Objects one snapshot write puts (manifest, runs, issues, columns parts) at a million runs. */
  snapshotObjectsPerWrite: 6,
  /** Cockpits open (visible, polling the `since` deltas) around the clock. */
  cockpitsOpen: 10,
  /** A keys-only `byUpdated` index item: the table's keys and the index's. */
  indexKeyBytes: 150,
  /** The versions of a run row a delta reader can see: landed, hidden-test result, claimed, judged. */
  rowVersions: 4,
  /** Batch mode: a run's share of a submission (row, budget, issue text from GitHub, patch, prompt). */
  batchPrepareSeconds: 1,
  /** Batch mode: a run's part of a collect (row, issue text again, patch, verdict, audit). */
  batchCollectSeconds: 0.5,
  /** Batch mode: one collect of a batch still in progress (one provider request), or landing's message, skipped. */
  batchPollSeconds: 0.3,
  judgeSkipSeconds: 0.05,
  /** Batch mode: how long a batch runs; Anthropic's batches mostly end within the hour (at most 24 h). */
  batchRunsSeconds: 3600,
  /** Batch mode: a batch's record, its runs' ids and custom ids (KB). */
  batchRecordKb: 4,
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

interface FunctionSize {
  memory: number;
  arm: boolean;
}
type IndexName = 'byUpdated' | 'due' | 'byHost';

/** What the cost depends on: read off the templates and the code for today's design, fixed for the one before. */
interface Design {
  ingest: FunctionSize;
  lander: FunctionSize;
  judge: FunctionSize;
  landerBatch: number;
  projections: Record<IndexName, string>;
  /** A delivery whose landing message is at most this many bytes travels in it, with no inbox object; 0: none does. */
  inlineMessageBytes: number;
  /** The data bucket's run objects a landing puts and a judge pass gets (patch and summary: one object or two). */
  runObjects: { landingPuts: number; judgeGets: number };
  keyCacheSeconds: number;
  /** Whose keys ingest reads for a delivery: every declared sender's, or the host the body names. */
  keysRead: 'every-sender' | 'claimed-host';
  /** The host keys one Secrets Manager call reads: 1 with GetSecretValue, up to 20 with BatchGetSecretValue. */
  secretsPerCall: number;
}

/** The design before issue 36 item 7 (main at b093dfa), kept here so every run prints both side by side. */
const BEFORE: Design = {
  ingest: { memory: 512, arm: true },
  lander: { memory: 512, arm: true },
  judge: { memory: 512, arm: true },
  landerBatch: 10,
  projections: { byUpdated: 'ALL', due: 'ALL', byHost: 'KEYS_ONLY' },
  inlineMessageBytes: 0,
  runObjects: { landingPuts: 2, judgeGets: 2 },
  keyCacheSeconds: 300,
  keysRead: 'every-sender',
  secretsPerCall: 1,
};

function functionSize(service: string): FunctionSize & { id: string } {
  const f = functions.get(service);
  if (!f) throw new Error(`no ${service} function in the template`);
  return {
    id: f.id,
    memory: Number(f.properties.MemorySize),
    arm: JSON.stringify(f.properties.Architectures).includes('arm64'),
  };
}

/**
 * The run objects the code puts and gets: one run landed and judged through the real landing and judge rules,
 * against in-memory stores, counting the requests under `runs/` (the judge's audit record aside: its own line).
 */
async function runObjectsOfCode(): Promise<Design['runObjects']> {
  const w = judgeWorldWithFix(
    parseConfig({
      defaultJudgeModel: 'claude-bench-judge',
      spaces: { S: { senders: ['mac-studio-1'], repos: ['acme/widgets'] } },
    }),
  );
  const counted = { puts: 0, gets: 0 };
  const { objects } = w;
  const count =
    <A extends [string, ...unknown[]], R>(what: 'puts' | 'gets', call: (...args: A) => Promise<R>) =>
    (...args: A) => {
      if (args[0].startsWith(RUNS_PREFIX)) counted[what]++;
      return call(...args);
    };
  objects.putIfAbsent = count('puts', objects.putIfAbsent.bind(objects));
  objects.getText = count('gets', objects.getText.bind(objects));
  await w.putIssue('S', 't-1');
  const message = await w.land('S', { taskId: 't-1' });
  const landingPuts = counted.puts;
  const outcome = await w.judge((await w.table.getRun('S', message.id))!.value);
  if (outcome.result !== 'judged') throw new Error(`the bench's judge pass ended ${outcome.result}`);
  return { landingPuts, judgeGets: counted.gets };
}

async function designOfTemplates(): Promise<Design> {
  const lander = functionSize('lander');
  const [, table] = ofType(state, 'AWS::DynamoDB::Table')[0]!;
  const indexes =
    (table.Properties.GlobalSecondaryIndexes as { IndexName: string; Projection: { ProjectionType: string } }[]) ?? [];
  const projection = (role: IndexName) => {
    const index = indexes.find((i) => i.IndexName === INDEXES[role].name);
    if (!index) throw new Error(`no ${INDEXES[role].name} index in the template`);
    return index.Projection.ProjectionType;
  };
  return {
    ingest: functionSize('ingest'),
    lander,
    judge: functionSize('judge'),
    landerBatch: Number(
      ofType(pipeline, 'AWS::Lambda::EventSourceMapping').find(([, m]) =>
        JSON.stringify(m.Properties.FunctionName).includes(lander.id),
      )![1].Properties.BatchSize,
    ),
    projections: { byUpdated: projection('byUpdated'), due: projection('due'), byHost: projection('byHost') },
    // Ingest sends a delivery inline up to the landing queue's message size (functions/ingest/lambda.ts).
    inlineMessageBytes: Number(
      ofType(state, 'AWS::SQS::Queue').find(([id]) => id.startsWith('LandingQueue'))![1].Properties
        .MaximumMessageSize ?? 0,
    ),
    runObjects: await runObjectsOfCode(),
    keyCacheSeconds: Number(
      /const CACHE_SECONDS = (\d+);/.exec(readFileSync(join(root, 'adapters/aws/secrets-key-source.ts'), 'utf8'))![1],
    ),
    keysRead: 'every-sender',
    // Ingest reads the keys asked for together, this many a BatchGetSecretValue call.
    secretsPerCall: SECRETS_PER_BATCH,
  };
}

// How often the `since` deltas are read: the compactor's schedule (template), the cockpit's poll (its code).
const compactorRule = ofType(pipeline, 'AWS::Events::Rule').find(([, r]) =>
  JSON.stringify(r.Properties.Targets).includes(functionSize('snapshot-compactor').id),
)![1];
const everyMinutes = Number(/^rate\((\d+) minutes?\)$/.exec(String(compactorRule.Properties.ScheduleExpression))![1]);
const compactSeconds = everyMinutes * 60;
// How often the sweeper runs (template): in batch mode, how often an open batch is sent to be collected.
const sweeperRule = ofType(pipeline, 'AWS::Events::Rule').find(([, r]) =>
  JSON.stringify(r.Properties.Targets).includes(functionSize('sweeper').id),
)![1];
const sweepSeconds =
  60 * Number(/^rate\((\d+) minutes?\)$/.exec(String(sweeperRule.Properties.ScheduleExpression))![1]);
const cockpitPollSeconds =
  Number(
    /const POLL_MS = ([\d_]+);/
      .exec(readFileSync(join(root, 'dashboard/src/page/cockpit.ts'), 'utf8'))![1]!
      .replace(/_/g, ''),
  ) / 1000;

interface Line {
  service: string;
  metered: string;
  price: string;
  cost: number;
}
interface Section {
  name: string;
  lines: Line[];
}

const monthSeconds = 30 * 86_400;
const chunks = (kb: number) => Math.max(1, Math.ceil(kb / 64));

/** Every line of the full figure for one design, and the figures the notes below the table quote. */
function costOf(design: Design) {
  const gbSecond = (f: FunctionSize) => (f.arm ? PRICE.lambdaArmGbSecond : PRICE.lambdaX86GbSecond);
  const named = (service: string, f: FunctionSize) => `Lambda ${service} (${f.memory} MB, ${f.arm ? 'arm64' : 'x86'})`;

  // Write units one index spends on a row write (1 KB units): an ALL index copies the row, a KEYS_ONLY or INCLUDE
  // one (its item well under 1 KB) writes a unit. A write that moves the index key is a delete of the old index
  // item and a put of the new one; a write that changes no projected attribute (same key, and `due`'s id and
  // finishedAt unchanged) costs the index nothing.
  type IndexChange = 'new' | 'moved' | 'in-place' | 'removed' | 'unchanged';
  const indexWrites = (name: IndexName, change: IndexChange): number => {
    const all = design.projections[name] === 'ALL';
    const unit = all ? ASSUME.rowKb : 1;
    if (change === 'unchanged' || (change === 'in-place' && !all)) return 0;
    return change === 'moved' ? 2 * unit : unit;
  };
  /** A run row write: the table item plus what each index spends (store: dynamo-run-store.ts putRun). */
  const rowWrite = (changes: Record<IndexName, IndexChange>) =>
    ASSUME.rowKb +
    indexWrites('byUpdated', changes.byUpdated) +
    indexWrites('due', changes.due) +
    indexWrites('byHost', changes.byHost);
  // The run lands new and pending, so in every index (land.ts).
  const landingWrites = rowWrite({ byUpdated: 'new', due: 'new', byHost: 'new' });
  // The hidden-test result rewrites the row (applyHiddenTest): updatedAt moves byUpdated, the row stays due.
  const hiddenTestWrites = rowWrite({ byUpdated: 'moved', due: 'in-place', byHost: 'unchanged' });
  // The judge claims the row (judgeNextAttemptAt becomes the lease's end: `due` moves) and writes the verdict
  // (decided: it leaves `due`); both move byUpdated (judge-run.ts nextRow, finish).
  const claimWrites = rowWrite({ byUpdated: 'moved', due: 'moved', byHost: 'unchanged' });
  const verdictWrites = rowWrite({ byUpdated: 'moved', due: 'removed', byHost: 'unchanged' });
  const rowUnits = landingWrites + hiddenTestWrites + claimWrites + verdictWrites;
  const gsiWrites = rowUnits - 4 * ASSUME.rowKb; // beyond the table items
  const hostWrites = ASSUME.hostRecordKb;
  const budgetWrites = 1;

  // Secrets Manager: each warm ingest environment keeps a key CACHE_SECONDS (secrets-key-source.ts). Reading every
  // declared sender's key, a busy environment reads all hosts' keys once per window, whatever the delivery count;
  // reading only the host a body names, it reads the hosts that delivered to it in the window (deliveries spread
  // evenly over hosts and environments: the expected number of distinct hosts among them).
  const windowsPerMonth = monthSeconds / design.keyCacheSeconds;
  const deliveriesPerWindow = (2 * ASSUME.runDeliveriesPerMonth) / windowsPerMonth / ASSUME.warmIngestEnvironments;
  const hostsPerWindow =
    design.keysRead === 'every-sender'
      ? ASSUME.hosts
      : ASSUME.hosts * (1 - Math.exp(-deliveriesPerWindow / ASSUME.hosts));
  // Keys read together go out this many a call (secrets-key-source.ts): a window's reads of every sender's key
  // are whole calls of `secretsPerCall`.
  const callsPerWindow = Math.ceil(hostsPerWindow / design.secretsPerCall);
  const secretCallsPerRun =
    (ASSUME.warmIngestEnvironments * callsPerWindow * windowsPerMonth) / ASSUME.runDeliveriesPerMonth;
  const secretReadsPerRun =
    (ASSUME.warmIngestEnvironments * hostsPerWindow * windowsPerMonth) / ASSUME.runDeliveriesPerMonth;

  const deliveryLines = (what: 'run' | 'hidden-test', writes: number): Line[] => {
    const kb = what === 'run' ? ASSUME.runMessageKb : ASSUME.hiddenTestMessageKb;
    const inline = kb * 1024 <= design.inlineMessageBytes;
    // SQS meters each 64 KB of a request's payload as a request: a batch of inline deliveries is received in chunks.
    const sendChunks = inline ? chunks(kb) : 1;
    const receiveChunks = inline ? chunks(kb * design.landerBatch) : 1;
    const objectPuts = what === 'run' ? design.runObjects.landingPuts : 0;
    const inbox = inline ? 'no inbox entry (the delivery travels in the message)' : '1 PUT, 1 GET (inbox entry)';
    return [
      {
        service: 'API Gateway HTTP API',
        metered: '1 request (bodies ≤ 128 KB, metered per 512 KB)',
        price: '$1.00 / M requests',
        cost: PRICE.httpApiPerM,
      },
      {
        service: named('ingest', design.ingest),
        metered: `1 request, ${design.ingest.memory / 1024} GB × ${ASSUME.ingestSeconds} s`,
        price: '$0.20 / M requests + GB-s',
        cost:
          PRICE.lambdaRequestPerM +
          (design.ingest.memory / 1024) * ASSUME.ingestSeconds * gbSecond(design.ingest) * PER,
      },
      {
        service: named('lander', design.lander),
        metered: `1/${design.landerBatch} request (batch of ${design.landerBatch}), ${design.lander.memory / 1024} GB × ${ASSUME.landerSecondsPerDelivery} s`,
        price: 'same',
        cost:
          PRICE.lambdaRequestPerM / design.landerBatch +
          (design.lander.memory / 1024) * ASSUME.landerSecondsPerDelivery * gbSecond(design.lander) * PER,
      },
      {
        // ingest: SendMessage (accept-delivery.ts); Lambda receives and deletes per batch; a landed run is queued
        // for judging (land.ts: judgeQueue.send).
        service: 'SQS standard',
        metered:
          `${sendChunks} send (${inline ? `${kb} KB inline` : 'a claim check'}), receive ` +
          `(${receiveChunks} × 64 KB) and delete per batch of ${design.landerBatch}` +
          (what === 'run' ? '; 1 send to the judge queue' : ''),
        price: '$0.40 / M requests (each 64 KB)',
        cost: (sendChunks + (receiveChunks + 1) / design.landerBatch + (what === 'run' ? 1 : 0)) * PRICE.sqsPerM,
      },
      {
        // ingest puts the inbox entry; the lander gets it, puts the run's objects, deletes the entry (free).
        service: 'S3 requests',
        metered: `${what === 'run' ? `${objectPuts} PUT (patch and summary${objectPuts === 1 ? ', one object' : ''}); ` : ''}${inbox}`,
        price: '$0.005 / 1,000 PUT, $0.0004 / 1,000 GET',
        cost: ((objectPuts + (inline ? 0 : 1)) * PRICE.s3PutPerK + (inline ? 0 : PRICE.s3GetPerK)) * 1000,
      },
      {
        // ingest: getRun (the owner check); land.ts: getRun, the held hidden-test results (a query), getHost
        // (consistent reads); putRun and putHost.
        service: 'DynamoDB on demand',
        metered:
          `${writes + hostWrites} write units (the ${ASSUME.rowKb} KB row in the table and its indexes, ` +
          `the host record), 4 consistent read units`,
        price: '$0.625 / M WRU, $0.125 / M RRU',
        cost: (writes + hostWrites) * PRICE.dynamoWritePerM + 4 * PRICE.dynamoReadPerM,
      },
      {
        service: 'CloudWatch Logs',
        metered: `about ${ASSUME.logBytesPerDelivery / 1000} KB of function logs, metrics (EMF) and API access logs`,
        price: '$0.50 / GB ingested',
        cost: ((ASSUME.logBytesPerDelivery * PER) / 1e9) * PRICE.logsPerGb,
      },
    ];
  };

  const judgeLines: Line[] = [
    {
      service: named('judge', design.judge),
      metered: `1 request, ${design.judge.memory / 1024} GB × ${ASSUME.judgeSeconds} s (mostly waiting on the model)`,
      price: '$0.20 / M requests + GB-s',
      cost: PRICE.lambdaRequestPerM + (design.judge.memory / 1024) * ASSUME.judgeSeconds * gbSecond(design.judge) * PER,
    },
    {
      service: 'SQS standard',
      metered: '1 receive, 1 delete',
      price: '$0.40 / M requests',
      cost: 2 * PRICE.sqsPerM,
    },
    {
      // attempt.ts: patch and summary read; audit.ts: one audit record per attempt.
      service: 'S3 requests',
      metered: `1 PUT (audit record), ${design.runObjects.judgeGets} GET (patch and summary${design.runObjects.judgeGets === 1 ? ', one object' : ''})`,
      price: '$0.005 / 1,000 PUT, $0.0004 / 1,000 GET',
      cost: (PRICE.s3PutPerK + design.runObjects.judgeGets * PRICE.s3GetPerK) * 1000,
    },
    {
      // judge-run.ts: row read, judging status, issue, the row again before the verdict; claim and verdict
      // writes, the budget day's cost.
      service: 'DynamoDB on demand',
      metered:
        `${claimWrites + verdictWrites + budgetWrites} write units (claim ${claimWrites}, verdict ${verdictWrites}, ` +
        `budget day ${budgetWrites}), 4 read units`,
      price: '$0.625 / M WRU, $0.125 / M RRU',
      cost: (claimWrites + verdictWrites + budgetWrites) * PRICE.dynamoWritePerM + 4 * PRICE.dynamoReadPerM,
    },
    {
      service: 'CloudWatch Logs',
      metered: `about ${ASSUME.logBytesPerJudgePass / 1000} KB of logs and metrics`,
      price: '$0.50 / GB ingested',
      cost: ((ASSUME.logBytesPerJudgePass * PER) / 1e9) * PRICE.logsPerGb,
    },
  ];

  // Batch mode (batch.ts): landing's judge message is received and skipped; the sweeper sends the due runs in
  // submissions of BATCH_SUBMIT_MAX_RUNS and each open batch to be collected every sweep until it has ended. A run is
  // claimed, marked waiting and judged (three row writes), and its patch read twice (submitted, collected).
  const polls = Math.ceil(ASSUME.batchRunsSeconds / sweepSeconds);
  const perBatch = (n: number) => n / BATCH_SUBMIT_MAX_RUNS;
  const batchRequests = 1 + perBatch(1 + polls);
  const batchSeconds =
    ASSUME.judgeSkipSeconds +
    ASSUME.batchPrepareSeconds +
    ASSUME.batchCollectSeconds +
    perBatch(polls * ASSUME.batchPollSeconds);
  const waitingWrites = rowWrite({ byUpdated: 'moved', due: 'moved', byHost: 'unchanged' });
  // The batch's record: put once, marked collected once; read by every sweep and collect while it is open.
  const batchRecordWrites = perBatch(2 * ASSUME.batchRecordKb);
  const batchWrites = claimWrites + waitingWrites + verdictWrites + budgetWrites + batchRecordWrites;
  const batchReads = 4 + 2 + perBatch(2 * polls);
  const batchJudgeLines: Line[] = [
    {
      service: named('judge', design.judge),
      metered:
        `${batchRequests.toFixed(2)} requests (landing's message skipped; 1/${BATCH_SUBMIT_MAX_RUNS} submission; ` +
        `${polls} collects of its batch, one a sweep for ${ASSUME.batchRunsSeconds / 60} min, each 1/${BATCH_SUBMIT_MAX_RUNS}), ` +
        `${design.judge.memory / 1024} GB × ${batchSeconds.toFixed(2)} s (no wait on the model)`,
      price: '$0.20 / M requests + GB-s',
      cost:
        batchRequests * PRICE.lambdaRequestPerM +
        (design.judge.memory / 1024) * batchSeconds * gbSecond(design.judge) * PER,
    },
    {
      service: 'SQS standard',
      metered: `landing's message received and deleted; a submission and ${polls} collect messages (send, receive, delete), each 1/${BATCH_SUBMIT_MAX_RUNS}`,
      price: '$0.40 / M requests',
      cost: (2 + perBatch(3 * (1 + polls))) * PRICE.sqsPerM,
    },
    {
      service: 'S3 requests',
      metered: `1 PUT (audit record), ${2 * design.runObjects.judgeGets} GET (patch and summary, submitted and collected)`,
      price: '$0.005 / 1,000 PUT, $0.0004 / 1,000 GET',
      cost: (PRICE.s3PutPerK + 2 * design.runObjects.judgeGets * PRICE.s3GetPerK) * 1000,
    },
    {
      service: 'DynamoDB on demand',
      metered:
        `${batchWrites.toFixed(2)} write units (claim ${claimWrites}, waiting ${waitingWrites}, verdict ${verdictWrites}, ` +
        `budget day ${budgetWrites}, the batch's record ${batchRecordWrites.toFixed(2)}), ${batchReads.toFixed(2)} read units`,
      price: '$0.625 / M WRU, $0.125 / M RRU',
      cost: batchWrites * PRICE.dynamoWritePerM + batchReads * PRICE.dynamoReadPerM,
    },
    judgeLines[4]!,
  ];

  const secretLines: Line[] = [
    {
      service: 'Secrets Manager',
      metered:
        (design.secretsPerCall === 1
          ? `${secretCallsPerRun.toFixed(2)} GetSecretValue: `
          : `${secretCallsPerRun.toFixed(3)} BatchGetSecretValue (${design.secretsPerCall} keys a call): `) +
        (design.keysRead === 'every-sender'
          ? `${ASSUME.hosts} hosts' keys`
          : `the keys of the ${hostsPerWindow.toFixed(0)} of ${ASSUME.hosts} hosts that deliver`) +
        ` every ${design.keyCacheSeconds} s in ${ASSUME.warmIngestEnvironments} warm ingest environments, ` +
        `${(ASSUME.runDeliveriesPerMonth / 1e6).toFixed(0)}M runs a month`,
      price: '$0.05 / 10,000 API calls',
      cost: secretCallsPerRun * PRICE.secretsPer10k * 100,
    },
  ];

  // The `since` deltas read each version of a run row (store: dynamo-run-store.ts listRuns). An ALL index hands
  // out the row within the query (0.5 RRU per 4 KB read, summed over the answer); a keys-only one hands out its
  // keys, then BatchGetItem reads each row, eventually consistent, rounded up to 4 KB (0.5 RRU a row). A reader
  // polling every P s from an asOf S s back reads a version (P + S) / P times.
  const rowRead =
    design.projections.byUpdated === 'ALL'
      ? (ASSUME.rowKb / 4) * 0.5
      : (ASSUME.indexKeyBytes / 4096) * 0.5 + Math.ceil(ASSUME.rowKb / 4) * 0.5;
  const readsPerVersion = (pollSeconds: number) => (pollSeconds + AS_OF_SAFETY_MS / 1000) / pollSeconds;
  const deltaLine = (who: string, readers: number, pollSeconds: number): Line => {
    const units = ASSUME.rowVersions * readsPerVersion(pollSeconds) * readers * rowRead;
    return {
      service: 'DynamoDB on demand',
      metered:
        `${who}: ${ASSUME.rowVersions} row versions × ${readsPerVersion(pollSeconds).toFixed(2)} reads` +
        `${readers > 1 ? ` × ${readers} readers` : ''} × ${rowRead.toFixed(3)} RRU ` +
        (design.projections.byUpdated === 'ALL' ? '(the row in the index)' : '(index keys, then the row fetched)'),
      price: '$0.125 / M RRU',
      cost: units * PRICE.dynamoReadPerM,
    };
  };
  const deltaLines: Line[] = [
    deltaLine(`the compactor every ${compactSeconds} s`, 1, compactSeconds),
    deltaLine(
      `${ASSUME.cockpitsOpen} cockpits open, polling every ${cockpitPollSeconds} s`,
      ASSUME.cockpitsOpen,
      cockpitPollSeconds,
    ),
  ];

  const sections: Section[] = [
    { name: 'Run delivery', lines: deliveryLines('run', landingWrites) },
    { name: 'Hidden-test delivery', lines: deliveryLines('hidden-test', hiddenTestWrites) },
    { name: 'One judge pass', lines: judgeLines },
    { name: 'Host keys', lines: secretLines },
    { name: 'Reading the changes', lines: deltaLines },
  ];
  const allCopies = Object.values(design.projections).filter((p) => p === 'ALL').length;
  const full = sum(sections.flatMap((section) => section.lines));
  return {
    sections,
    full,
    batchJudgeLines,
    /** The full figure with the judge pass of a batch-mode space. */
    fullBatch: full - sum(judgeLines) + sum(batchJudgeLines),
    runDeliveryOnly: sum(sections[0]!.lines),
    gsiWrites,
    rowUnits,
    allCopies,
    rowRead,
    cockpitReads: deltaLines[1]!.cost / ASSUME.cockpitsOpen,
    /** The host keys' line were each key a batch returns billed as an API call of its own. */
    secretsBilledPerKey: secretReadsPerRun * PRICE.secretsPer10k * 100,
  };
}
const sum = (ls: { cost: number }[]) => ls.reduce((s, l) => s + l.cost, 0);

const before = costOf(BEFORE);
const after = costOf(await designOfTemplates());

// Snapshots: each write makes the previous one a non-current version, kept until the lifecycle rule expires it.
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
console.log(
  `Cost per 1M run deliveries (us-east-1 list prices, free tiers ignored): before, the design of main at b093dfa; ` +
    `after, the synthesized templates and the code now.`,
);
console.log(
  `Assumed: ingest ${ASSUME.ingestSeconds * 1000} ms, lander ${ASSUME.landerSecondsPerDelivery * 1000} ms ` +
    `per delivery, the judge ${ASSUME.judgeSeconds} s a pass, a ${ASSUME.rowKb} KB run row, a ` +
    `${ASSUME.runMessageKb} KB run delivery and a ${ASSUME.hiddenTestMessageKb} KB hidden-test delivery as landing ` +
    `messages, ${ASSUME.logBytesPerDelivery / 1000} KB of logs per delivery.\n`,
);
console.log('| part | service | what is metered, after | unit price | before | after |');
console.log('|---|---|---|---|---|---|');
before.sections.forEach((section, s) => {
  const now = after.sections[s]!;
  section.lines.forEach((line, l) => {
    const next = now.lines[l]!;
    console.log(
      `| ${section.name} | ${next.service} | ${next.metered} | ${next.price} | $${line.cost.toFixed(2)} | $${next.cost.toFixed(2)} |`,
    );
  });
  console.log(
    `| **${section.name}, total** | | | | **$${sum(section.lines).toFixed(2)}** | **$${sum(now.lines).toFixed(2)}** |`,
  );
});
console.log(
  `| **Full figure per 1M run deliveries** | | | | **$${before.full.toFixed(2)}** | **$${after.full.toFixed(2)}** |\n`,
);
const largestServices = (figure: ReturnType<typeof costOf>) => {
  const byService = new Map<string, number>();
  for (const line of figure.sections.flatMap((section) => section.lines)) {
    const service = line.service.replace(/ \(.*$/, '');
    byService.set(service, (byService.get(service) ?? 0) + line.cost);
  }
  return [...byService]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([s, c]) => `${s} $${c.toFixed(2)} (${((c / figure.full) * 100).toFixed(0)}%)`)
    .join(', ');
};
console.log(`Largest services before: ${largestServices(before)}.`);
console.log(`Largest services after: ${largestServices(after)}.`);
console.log(
  `After/before: ${(after.full / before.full).toFixed(3)}× ($${(before.full - after.full).toFixed(2)} less per 1M runs).`,
);
// The projections' trade: write units saved on every run against the reads each delta reader adds.
const writesSaved = (before.rowUnits - after.rowUnits) * PRICE.dynamoWritePerM;
const perCockpit = after.cockpitReads - before.cockpitReads;
console.log(
  `Indexes projecting what their queries read: ${before.rowUnits - after.rowUnits} row write units fewer a run ` +
    `($${writesSaved.toFixed(2)} per 1M runs); a delta reads ${before.rowRead.toFixed(3)} RRU a row version before, ` +
    `${after.rowRead.toFixed(3)} after, $${perCockpit.toFixed(2)} more per 1M runs for each cockpit open around the clock: ` +
    `break-even near ${Math.floor(writesSaved / perCockpit)} cockpits.`,
);
console.log(
  `Index amplification, after: ${after.gsiWrites} of the ${after.rowUnits} row write units a run costs go to its indexes ` +
    `($${(after.gsiWrites * PRICE.dynamoWritePerM).toFixed(2)} per 1M runs); index storage: ` +
    `${after.allCopies} ALL-projected copies of a ${ASSUME.rowKb} KB row, at most ` +
    `$${(((after.allCopies * ASSUME.rowKb * PER) / 1e6) * PRICE.dynamoGbMonth).toFixed(2)} a month per 1M stored runs ` +
    `(byUpdated keeps every run; due only undecided ones).`,
);
console.log(
  `The run delivery alone (the figure the bench gave before hidden tests, the judge and keys were counted): ` +
    `$${before.runDeliveryOnly.toFixed(2)} before, $${after.runDeliveryOnly.toFixed(2)} after.`,
);
// What every delivery pays before any storage, table write, judge time or key read: its request, the ingest and
// lander invocations, its queue messages, its logs.
const perRequest = after.sections
  .flatMap((section) => section.lines)
  .filter((line) => /^(API Gateway|Lambda ingest|Lambda lander|SQS|CloudWatch Logs)/.test(line.service));
console.log(
  `Per request, after (HTTP API, ingest, lander, SQS, logs of the two deliveries and the judge pass): ` +
    `$${sum(perRequest).toFixed(2)} of the $${after.full.toFixed(2)}.`,
);
console.log(
  `Host keys, after: ${after.sections[3]!.lines[0]!.metered.split(':')[0]}; AWS prices Secrets Manager per API call ` +
    `($0.05 / 10,000) and names no other rate for BatchGetSecretValue. Were each key a batch returns billed as a call ` +
    `of its own, the line would stay at $${after.secretsBilledPerKey.toFixed(2)}.`,
);
console.log(
  `\nOne judge pass in batch mode (judge.mode: "batch"), after, beside live's $${sum(after.sections[2]!.lines).toFixed(2)}:\n`,
);
console.log('| service | what is metered | unit price | batch mode |');
console.log('|---|---|---|---|');
for (const line of after.batchJudgeLines)
  console.log(`| ${line.service} | ${line.metered} | ${line.price} | $${line.cost.toFixed(2)} |`);
console.log(`| **One judge pass, batch mode, total** | | | **$${sum(after.batchJudgeLines).toFixed(2)}** |\n`);
console.log(
  `Full figure per 1M run deliveries, after: live $${after.full.toFixed(2)}, batch mode $${after.fullBatch.toFixed(2)} ` +
    `(the model's tokens aside, which batch mode bills at half price).`,
);
const costed = new Set(['ingest', 'lander', 'judge']);
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
