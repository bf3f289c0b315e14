// `npm run bench:bundles` (docs/contract.md §8): each function's bundle as `cdk synth` builds it, against a floor
// that imports and constructs the same third-party clients (AWS SDK, lib-dynamodb; Anthropic and Octokit for the
// judge) through the same entry points and esbuild settings. Figures: size of index.mjs and cold `import` in a
// fresh Node process with the functions' NODE_OPTIONS, medians over interleaved rounds; target ≤ 1.3× the floor.
//   npm run bench:bundles [-- --rounds 15]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { FUNCTION_BUILD_OPTIONS, FUNCTION_NODE_OPTIONS } from '#infra/aws/constructs/replay-function.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const ROUNDS = Number(values.rounds);
const TARGET = 1.3;
const root = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'replay-bundles-'));
const SERVICES = ['ingest', 'lander', 'read-api', 'judge', 'sweeper', 'snapshot-compactor'] as const;
type Variant = 'bundle' | 'floor';

// What the stack sets; values are placeholders, since importing makes no request.
const FUNCTION_ENV = {
  NODE_OPTIONS: FUNCTION_NODE_OPTIONS,
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'table',
  INBOX_BUCKET: 'inbox',
  DATA_BUCKET: 'data',
  LANDING_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/landing',
  JUDGE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/judge',
  ANTHROPIC_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:anthropic',
  GITHUB_APP_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:github',
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The deployed bundles: the real `cdk synth` entry point into a scratch cloud assembly. */
function synthesizedBundles(): Map<string, string> {
  const outdir = join(scratch, 'cdk.out');
  const context = (JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/aws/app.ts'], {
    cwd: root,
    env: {
      ...process.env,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({
        ...context,
        replayConfig: 'replay.config.example.json',
        'aws:cdk:enable-asset-metadata': true,
      }),
    },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`cdk synth failed: ${run.stderr}`);
  const bundles = new Map<string, string>();
  // The functions live in several stacks (pipeline, cockpits): every template of the assembly is read.
  for (const file of readdirSync(outdir).filter((f) => f.endsWith('.template.json'))) {
    const template = JSON.parse(readFileSync(join(outdir, file), 'utf8')) as {
      Resources: Record<
        string,
        {
          Type: string;
          Metadata?: Record<string, string>;
          Properties?: { Environment?: { Variables?: Record<string, string> } };
        }
      >;
    };
    for (const resource of Object.values(template.Resources)) {
      const service = resource.Properties?.Environment?.Variables?.POWERTOOLS_SERVICE_NAME;
      if (resource.Type === 'AWS::Lambda::Function' && service && !bundles.has(service))
        bundles.set(service, join(outdir, resource.Metadata!['aws:asset:path']!));
    }
  }
  for (const service of SERVICES)
    if (!bundles.has(service)) throw new Error(`cdk synth built no function for ${service}.`);
  return bundles;
}

/**
 * The third-party clients each resource factory (functions/aws-resources.ts) or provider in a function's wiring
 * builds, as the floor builds them.
 */
const CLIENTS: [RegExp, string[]][] = [
  [
    /\baws(?:Table|Leases|ReenqueueLedger)\(/,
    [
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      'DynamoDBDocumentClient.from(new DynamoDBClient({}));',
    ],
  ],
  [/\baws(?:Inbox|Data|BulkData|Downloads)\(/, ["import { S3Client } from '@aws-sdk/client-s3';", 'new S3Client({});']],
  [
    /\baws(?:LandingQueue|LandingDeadLetters|JudgeQueue)\(/,
    ["import { SQSClient } from '@aws-sdk/client-sqs';", 'new SQSClient({});'],
  ],
  [
    /\baws(?:HostKeys|Pairing|Secrets)\(/,
    ["import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';", 'new SecretsManagerClient({});'],
  ],
  [/\bawsEngine\(/, ["import { AthenaClient } from '@aws-sdk/client-athena';", 'new AthenaClient({});']],
  [/\bjudgeModelProvider\(/, ["import Anthropic from '@anthropic-ai/sdk';", "new Anthropic({ apiKey: 'floor' });"]],
  [
    /\breferenceSourceProvider\(/,
    [
      "import { Octokit } from '@octokit/rest';",
      "import { createAppAuth } from '@octokit/auth-app';",
      "new Octokit({ authStrategy: createAppAuth, auth: { appId: '1', privateKey: 'floor', installationId: '2' } });",
    ],
  ],
];

/** The floor's entry for a function: its wiring's third-party clients, built at the top level, and a handler. */
function floorEntry(service: string): string {
  const wiring = ['lambda.ts', 'wire.ts']
    .map((f) => readFileSync(join(root, 'functions', service, f), 'utf8'))
    .join('\n');
  const used = CLIENTS.filter(([uses]) => uses.test(wiring)).map(([, lines]) => lines);
  if (used.length === 0) throw new Error(`functions/${service}/lambda.ts builds no client the bench knows.`);
  const imports = used.flatMap((lines) => lines.filter((line) => line.startsWith('import ')));
  const statements = used.flatMap((lines) => lines.filter((line) => !line.startsWith('import ')));
  return [...imports, ...statements, 'export const handler = async () => ({});'].join('\n');
}

async function floorBundle(service: string): Promise<string> {
  const dir = join(scratch, 'floor', service);
  mkdirSync(dir, { recursive: true });
  await build({
    stdin: { contents: floorEntry(service), resolveDir: root, sourcefile: `${service}-floor.ts`, loader: 'ts' },
    outfile: join(dir, 'index.mjs'),
    ...FUNCTION_BUILD_OPTIONS,
    logLevel: 'error',
  });
  return dir;
}

/** Milliseconds from `import()` to its resolution, in a fresh Node process. */
function coldImportMs(dir: string): number {
  const url = new URL(`file://${join(dir, 'index.mjs')}`).href;
  const script = `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...FUNCTION_ENV },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`importing ${dir} failed: ${run.stderr}`);
  return Number(run.stdout);
}

const bundles = synthesizedBundles();
const dirs = new Map<string, Record<Variant, string>>();
for (const service of SERVICES) dirs.set(service, { bundle: bundles.get(service)!, floor: await floorBundle(service) });

const times = new Map<string, number[]>();
const record = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
for (let round = 0; round < ROUNDS; round++)
  for (const service of SERVICES)
    for (const variant of (round % 2 ? ['floor', 'bundle'] : ['bundle', 'floor']) as Variant[])
      record(`${service}:${variant}`, coldImportMs(dirs.get(service)![variant]));

const kb = (dir: string) => statSync(join(dir, 'index.mjs')).size / 1024;
const ms = (service: string, variant: Variant) => median(times.get(`${service}:${variant}`)!);
console.log(
  `Function bundles: size of index.mjs and cold import in a fresh Node ${process.version} process, median of ${ROUNDS} rounds.\n`,
);
const table: string[][] = [
  ['function', 'bundle KB', 'floor KB', 'size ratio', '|', 'bundle ms', 'floor ms', 'import ratio'],
];
let worstSize = 0;
let worstImport = 0;
for (const service of SERVICES) {
  const { bundle, floor } = dirs.get(service)!;
  const [sizeRatio, importRatio] = [kb(bundle) / kb(floor), ms(service, 'bundle') / ms(service, 'floor')];
  worstSize = Math.max(worstSize, sizeRatio);
  worstImport = Math.max(worstImport, importRatio);
  table.push([
    service,
    kb(bundle).toFixed(0),
    kb(floor).toFixed(0),
    sizeRatio.toFixed(2),
    '|',
    ms(service, 'bundle').toFixed(1),
    ms(service, 'floor').toFixed(1),
    importRatio.toFixed(2),
  ]);
}
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
for (const row of table)
  console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
console.log(
  `\nworst size ratio ${worstSize.toFixed(2)}, worst import ratio ${worstImport.toFixed(2)} ` +
    `(target ≤ ${TARGET} each: ${worstSize <= TARGET && worstImport <= TARGET ? 'met' : 'not met'})`,
);
console.log(
  "floor: a handler that imports and constructs the third-party clients the function's wiring builds, bundled the same way",
);
rmSync(scratch, { recursive: true, force: true });
