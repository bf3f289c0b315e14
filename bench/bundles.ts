// Function bundles (docs/contract.md §8): each function's bundle exactly as `cdk synth` builds it (the real entry point,
// the example configuration), against two references built from the same entry with the same esbuild
// settings (FUNCTION_BUNDLE):
//  - the floor: an empty handler;
//  - the naive bundle: the same handler calling AWS through the AWS SDK's clients, bundled whole: each
//    SDK client for a service the function's wiring uses (DynamoDB with its document client, S3, SQS,
//    Secrets Manager) built at its top level, as the SDK-based wiring did, with `treeShaking: false` and
//    `ignoreAnnotations: true`, so every module a package re-exports is kept (every SDK command, every
//    zod locale);
//  - the wiring alone: the deployed bundle's settings, with the function's handler module replaced by one
//    whose factory returns a no-op handler. What is left is what any handler on the same AWS adapters,
//    configuration and instrumentation pays: the floor of this design, whatever the handler does.
// Every variant is built with the functions' source map settings and imported with their NODE_OPTIONS
// (source maps on: Node reads the map as the bundle loads, as a cold start in Lambda does).
// Figures: size of index.mjs (source maps aside) and cold `import` time in a fresh Node process (the
// module's top level runs: clients built, configuration read), medians over rounds, variants interleaved.
// Target: bundles ≤ 1/3 of the naive bundle's size and import time.
//   npm run bench:bundles [-- --rounds 15]
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { BUNDLED_CONFIG_FILE } from '../shared/schema/config.ts';
import { FUNCTION_BUNDLE, FUNCTION_NODE_OPTIONS, FUNCTION_RUNTIME } from '../infra/aws/constructs/replay-function.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const ROUNDS = Number(values.rounds);
const root = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'replay-bundles-'));
const SERVICES = ['ingest', 'lander', 'read-api', 'judge', 'sweeper', 'snapshot-compactor'] as const;
type Variant = 'bundle' | 'naive' | 'wiring' | 'floor';

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
  const template = JSON.parse(readFileSync(join(outdir, 'ReplayBench-Pipeline.template.json'), 'utf8')) as {
    Resources: Record<
      string,
      {
        Type: string;
        Metadata?: Record<string, string>;
        Properties: { Environment?: { Variables?: Record<string, string> } };
      }
    >;
  };
  const bundles = new Map<string, string>();
  for (const resource of Object.values(template.Resources)) {
    const service = resource.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME;
    if (resource.Type === 'AWS::Lambda::Function' && service && !bundles.has(service))
      bundles.set(service, join(outdir, resource.Metadata!['aws:asset:path']!));
  }
  return bundles;
}

/** `./handler.ts`, imported by a function's `lambda.ts`, becomes factories that return a no-op handler. */
const handlerStubbed: Plugin = {
  name: 'handler-stubbed',
  setup(b) {
    b.onResolve({ filter: /^\.\/handler\.ts$/ }, (args) =>
      args.importer.endsWith('lambda.ts') ? { path: args.importer, namespace: 'stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'stub' }, (args) => {
      const factories = [...readFileSync(args.path, 'utf8').matchAll(/import \{ (\w+) \} from '\.\/handler\.ts'/g)].map(
        (m) => m[1]!,
      );
      return {
        contents: factories.map((name) => `export const ${name} = () => async () => ({});`).join('\n'),
        loader: 'js',
      };
    });
  },
};

/** The SDK clients that stand for each adapter factory a function's wiring calls. */
const SDK_CLIENTS: [RegExp, string][] = [
  [
    /\btableStore\(/,
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'; DynamoDBDocumentClient.from(new DynamoDBClient({}));",
  ],
  [/\bbucketStore\(/, "import { S3Client } from '@aws-sdk/client-s3'; new S3Client({});"],
  [/\bqueue</, "import { SQSClient } from '@aws-sdk/client-sqs'; new SQSClient({});"],
  [
    /\b(keySource|pairingCheck|judgeModelProvider)\(/,
    "import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager'; new SecretsManagerClient({});",
  ],
];

/** The function's entry, preceded by the SDK clients its wiring's adapters stand in for. */
function withSdkClients(entry: string): string {
  const wiring = readFileSync(entry, 'utf8');
  const clients = SDK_CLIENTS.filter(([uses]) => uses.test(wiring)).map(([, client]) => client);
  if (clients.length === 0) throw new Error(`${entry} calls no AWS adapter factory the bench knows.`);
  return [...clients, `export * from ${JSON.stringify(entry)};`].join('\n');
}

async function esbuildInto(dir: string, entry: string, variant: 'naive' | 'wiring' | 'floor'): Promise<string> {
  const naive = variant === 'naive';
  mkdirSync(dir, { recursive: true });
  await build({
    ...(naive
      ? { stdin: { contents: withSdkClients(entry), resolveDir: root, sourcefile: 'naive-entry.ts', loader: 'ts' } }
      : { entryPoints: [entry] }),
    outfile: join(dir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    target: FUNCTION_RUNTIME.name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
    format: FUNCTION_BUNDLE.format,
    mainFields: [...FUNCTION_BUNDLE.mainFields],
    banner: { js: FUNCTION_BUNDLE.banner },
    minify: FUNCTION_BUNDLE.minify,
    keepNames: FUNCTION_BUNDLE.keepNames,
    // SourceMapMode.DEFAULT in CDK terms: a map file and the comment linking it.
    sourcemap: FUNCTION_BUNDLE.sourceMap ? 'linked' : false,
    sourcesContent: FUNCTION_BUNDLE.sourcesContent,
    treeShaking: !naive,
    ignoreAnnotations: naive,
    ...(variant === 'wiring' ? { plugins: [handlerStubbed] } : {}),
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
const floorEntry = join(scratch, 'empty-handler.mjs');
writeFileSync(floorEntry, 'export const handler = async () => ({ statusCode: 200 });\n');
const floor = await esbuildInto(join(scratch, 'floor'), floorEntry, 'floor');
for (const service of SERVICES) {
  const bundle = bundles.get(service)!;
  const entry = join(root, 'functions', service, 'lambda.ts');
  const naive = await esbuildInto(join(scratch, 'naive', service), entry, 'naive');
  const wiring = await esbuildInto(join(scratch, 'wiring', service), entry, 'wiring');
  for (const dir of [naive, wiring])
    if (existsSync(join(bundle, BUNDLED_CONFIG_FILE)))
      copyFileSync(join(bundle, BUNDLED_CONFIG_FILE), join(dir, BUNDLED_CONFIG_FILE));
  dirs.set(service, { bundle, naive, wiring, floor });
}

const times = new Map<string, number[]>();
const record = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms]);
for (let round = 0; round < ROUNDS; round++) {
  record('floor', coldImportMs(floor));
  for (const service of SERVICES) {
    const variants: Variant[] = round % 2 ? ['naive', 'wiring', 'bundle'] : ['bundle', 'wiring', 'naive'];
    for (const variant of variants) record(`${service}:${variant}`, coldImportMs(dirs.get(service)![variant]));
  }
}

const kb = (dir: string) => statSync(join(dir, 'index.mjs')).size / 1024;
const floorMs = median(times.get('floor')!);
console.log(
  `Function bundles: size of index.mjs and cold import in a fresh Node ${process.version} process, median of ${ROUNDS} rounds.`,
);
console.log(`floor (empty handler): ${kb(floor).toFixed(1)} KB, import ${floorMs.toFixed(1)} ms\n`);
const table: string[][] = [
  [
    'function',
    'bundle KB',
    'naive KB',
    'size ratio',
    'wiring KB',
    'wiring/naive',
    '|',
    'bundle ms',
    'naive ms',
    'import ratio',
    'wiring ms',
    'wiring/naive',
  ],
];
let worstSize = 0;
let worstImport = 0;
for (const service of SERVICES) {
  const { bundle, naive, wiring } = dirs.get(service)!;
  const ms = (variant: Variant) => median(times.get(`${service}:${variant}`)!);
  worstSize = Math.max(worstSize, kb(bundle) / kb(naive));
  worstImport = Math.max(worstImport, ms('bundle') / ms('naive'));
  table.push([
    service,
    kb(bundle).toFixed(0),
    kb(naive).toFixed(0),
    (kb(bundle) / kb(naive)).toFixed(2),
    kb(wiring).toFixed(0),
    (kb(wiring) / kb(naive)).toFixed(2),
    '|',
    ms('bundle').toFixed(1),
    ms('naive').toFixed(1),
    (ms('bundle') / ms('naive')).toFixed(2),
    ms('wiring').toFixed(1),
    (ms('wiring') / ms('naive')).toFixed(2),
  ]);
}
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
for (const row of table)
  console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
console.log(
  `\nworst size ratio ${worstSize.toFixed(2)}, worst import ratio ${worstImport.toFixed(2)} (target ≤ 0.33 each)`,
);
console.log(
  'naive: the same handler on the whole AWS SDK clients; wiring: the function with a no-op handler (its AWS adapters, configuration and instrumentation), the floor of this design',
);
rmSync(scratch, { recursive: true, force: true });
