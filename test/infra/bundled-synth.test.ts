// The real `cdk synth` entry point once, with bundling, the dashboard build, cdk-nag and CloudFormation's
// template validation, on a 200-space configuration of a named deployment with a domain, a hosted zone and a monthly
// budget: every function's bundle carries its configuration as a file, and the cockpit bucket gets the built
// dashboard, never a placeholder.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { BUNDLED_CONFIG_FILE, parseConfig, type ReplayConfig } from '#schema/config.ts';
import { cockpitConfig } from '#infra/aws/deployment-config.ts';
import type { CockpitSettings } from '#analytics/contract.ts';
import { startTestStores } from '../helpers/emulators.ts';
import { scheduledEvent } from '../helpers/events.ts';
import { runRow } from '../helpers/records.ts';
import { DEPLOYMENT_CONTEXT_KEY } from '#infra/aws/deployment-names.ts';
import { PROJECT_ROOT } from './paths.ts';

const scratch = mkdtempSync(join(tmpdir(), 'replay-bundled-'));
const outdir = join(scratch, 'cdk.out');
// A fleet of 20 hosts sending to 200 spaces.
const config: ReplayConfig = parseConfig({
  spaces: Object.fromEntries(
    Array.from({ length: 200 }, (_, i) => [
      `BenchmarkSpace-${i}`,
      { senders: [`mac-studio-${i % 20}`, `mac-studio-${(i + 7) % 20}`], repos: [`acme/space-${i}`] },
    ]),
  ),
  cockpits: { Private: { space: 'BenchmarkSpace-0' }, Published: { space: 'BenchmarkSpace-1', public: true } },
  alarms: { email: 'ops@example.com', monthlyBudgetUsd: 300 },
  domain: {
    name: 'bench.example.com',
    hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    cockpitCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  },
});
const cdkContext = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

interface LambdaResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties: { Environment?: { Variables?: Record<string, string> } };
}

let functions: { service: string; bundle: string }[] = [];
let assets: string[] = [];

beforeAll(() => {
  const configPath = join(scratch, 'replay.config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/aws/app.ts'], {
    cwd: PROJECT_ROOT,
    // As the cdk CLI runs the app: cdk.json's context, asset metadata on, its own cloud assembly folder.
    env: {
      ...process.env,
      REPLAY_CONFIG: configPath,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify({
        ...cdkContext,
        'aws:cdk:enable-asset-metadata': true,
        [DEPLOYMENT_CONTEXT_KEY]: 'named',
      }),
    },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`cdk synth failed (${run.status}): ${run.stderr}`);
  const resources = readdirSync(outdir)
    .filter((entry) => entry.endsWith('.template.json'))
    .flatMap((entry) =>
      Object.values(
        (JSON.parse(readFileSync(join(outdir, entry), 'utf8')) as { Resources: Record<string, LambdaResource> })
          .Resources,
      ),
    );
  functions = resources
    .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME)
    .map((r) => ({
      service: r.Properties.Environment!.Variables!.POWERTOOLS_SERVICE_NAME!,
      bundle: join(outdir, r.Metadata!['aws:asset:path']!),
    }));
  assets = readdirSync(outdir)
    .filter((entry) => entry.startsWith('asset.'))
    .map((entry) => join(outdir, entry));
}, 300_000);

/** Runs an ES module script in a fresh Node process: its exit status and what it wrote to stderr. */
const coldStart = (script: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject).on('close', (status) => resolve({ status, stderr }));
  });

const bundledConfig = (bundle: string) =>
  JSON.parse(readFileSync(join(bundle, BUNDLED_CONFIG_FILE), 'utf8')) as unknown;

describe('cdk synth with 200 spaces', () => {
  it("passes cdk-nag and CloudFormation's template validation: no finding that is not acknowledged", () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations?: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
  });

  it('bundles the whole configuration as a file beside the ingest, judge and sweeper code', () => {
    for (const service of ['ingest', 'judge', 'sweeper']) {
      const [fn] = functions.filter((f) => f.service === service);
      expect(existsSync(join(fn!.bundle, 'index.mjs'))).toBe(true);
      expect(bundledConfig(fn!.bundle)).toEqual(config);
    }
  });

  it('bundles each read API with its own cockpit and space only', () => {
    const readApis = functions.filter((f) => f.service === 'read-api');
    expect(
      readApis.map((f) => bundledConfig(f.bundle)).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual(
      [cockpitConfig(config, 'Private'), cockpitConfig(config, 'Published')].sort((a, b) =>
        JSON.stringify(a).localeCompare(JSON.stringify(b)),
      ),
    );
  });

  it('starts every bundle, as a cold start does, from its own files (the configuration read beside the code)', async () => {
    const env = {
      ...process.env,
      AWS_REGION: 'us-east-1',
      TABLE_NAME: 't',
      INBOX_BUCKET: 'i',
      DATA_BUCKET: 'd',
      LANDING_QUEUE_URL: 'https://q/l',
      LANDING_DLQ_URL: 'https://q/ld',
      JUDGE_QUEUE_URL: 'https://q/j',
      ANTHROPIC_SECRET_ARN: 'a',
      GITHUB_APP_SECRET_ARN: 'g',
      ATHENA_WORKGROUP: 'w',
      GLUE_DATABASE: 'db',
      GLUE_TABLE: 'runs',
    };
    // Each bundle in a process of its own, all of them at once.
    const runs = await Promise.all(
      functions.map((fn) =>
        coldStart(
          `const m = await import(${JSON.stringify(join(fn.bundle, 'index.mjs'))}); if (typeof m.handler !== 'function') process.exit(2);`,
          env,
        ),
      ),
    );
    for (const [i, fn] of functions.entries())
      expect({ service: fn.service, ...runs[i] }).toEqual({ service: fn.service, status: 0, stderr: '' });
  });

  it('signs requests, as in Lambda, with the role credentials and endpoints the SDK reads from the environment', async () => {
    const stores = await startTestStores();
    try {
      const due = runRow(
        { taskId: 'due' },
        { space: 'BenchmarkSpace-0', judgeNextAttemptAt: '2026-11-29T11:00:00.000Z' },
      );
      await stores.store.putRun(due, null);
      const { credentials, endpoints } = stores.emulators.connection;
      // No ~/.aws to fall back on: the emulators answer only the access key id they were started with.
      const env = {
        PATH: process.env.PATH,
        HOME: mkdtempSync(join(tmpdir(), 'replay-home-')),
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: credentials!.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials!.secretAccessKey,
        AWS_SESSION_TOKEN: 'session-token',
        AWS_ENDPOINT_URL_DYNAMODB: endpoints!.dynamodb,
        AWS_ENDPOINT_URL_SQS: endpoints!.sqs,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        TABLE_NAME: stores.emulators.names.table,
        JUDGE_QUEUE_URL: stores.emulators.queueUrls.judge,
      };
      const [sweeper] = functions.filter((f) => f.service === 'sweeper');
      const script =
        `const { handler } = await import(` +
        `${JSON.stringify(join(sweeper!.bundle, 'index.mjs'))}); await handler(${JSON.stringify(scheduledEvent())});`;
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env });
      const { Messages = [] } = await stores.emulators.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: stores.emulators.queueUrls.judge, MaxNumberOfMessages: 10 }),
      );
      expect(Messages.map((m) => JSON.parse(m.Body!) as unknown)).toEqual([
        { space: 'BenchmarkSpace-0', id: due.id, finishedAt: due.finishedAt },
      ]);
    } finally {
      await stores.stop();
    }
  });

  it('carries the AWS SDK clients its wiring uses, and no other', () => {
    const uses: Record<string, string[]> = {
      ingest: ['dynamodb', 's3', 'secretsmanager', 'sqs'],
      lander: ['dynamodb', 's3', 'sqs'],
      'read-api': ['athena', 'dynamodb', 's3', 'secretsmanager'],
      judge: ['dynamodb', 's3', 'secretsmanager'],
      sweeper: ['dynamodb', 'sqs'],
      'snapshot-compactor': ['dynamodb', 's3'],
      'inbox-reconciler': ['dynamodb', 's3', 'sqs'],
    };
    for (const fn of functions) {
      const code = readFileSync(join(fn.bundle, 'index.mjs'), 'utf8');
      // Each client's operation schemas are named in its service's namespace.
      const clients = new Set(
        [...code.matchAll(/com\.amazonaws\.(athena|dynamodb|s3|sqs|secretsmanager)\b/g)].map((m) => m[1]),
      );
      expect({ service: fn.service, clients: [...clients].sort() }).toEqual({
        service: fn.service,
        clients: uses[fn.service],
      });
    }
  });

  it('gives the lander, which reads no configuration, none', () => {
    const [lander] = functions.filter((f) => f.service === 'lander');
    expect(existsSync(join(lander!.bundle, 'index.mjs'))).toBe(true);
    expect(existsSync(join(lander!.bundle, BUNDLED_CONFIG_FILE))).toBe(false);
  });

  it('uploads the dashboard it built, script and styles included, not a placeholder', () => {
    const sites = assets.filter((dir) => existsSync(join(dir, 'index.html')));
    expect(sites).toHaveLength(1);
    const page = readFileSync(join(sites[0]!, 'index.html'), 'utf8');
    // The source page, with the chunks the entry loads named for preloading; each named chunk is uploaded.
    const preloads = [...page.matchAll(/ *<link rel="modulepreload" href="\/(chunks\/[^"]+\.js)" \/>\n/g)];
    expect(preloads.length).toBeGreaterThanOrEqual(1);
    expect(preloads.reduce((rest, [line]) => rest.replace(line, ''), page)).toBe(
      readFileSync(join(PROJECT_ROOT, 'dashboard/index.html'), 'utf8'),
    );
    for (const [, chunk] of preloads) expect(existsSync(join(sites[0]!, chunk!))).toBe(true);
    expect(readdirSync(sites[0]!).sort()).toEqual(
      expect.arrayContaining(['app.css', 'app.js', 'chunks', 'index.html']),
    );
  });

  it("writes each cockpit's settings file naming that cockpit alone", () => {
    const settings = assets
      .filter((dir) => existsSync(join(dir, 'cockpit.json')))
      .map((dir) => JSON.parse(readFileSync(join(dir, 'cockpit.json'), 'utf8')) as CockpitSettings);
    expect(settings.map((s) => [s.cockpits, s.signIn === null]).sort()).toEqual([
      [
        [{ name: 'Private', space: 'BenchmarkSpace-0', public: false, showReference: true, minN: 10, campaign: null }],
        false,
      ],
      [
        [
          {
            name: 'Published',
            space: 'BenchmarkSpace-1',
            public: true,
            showReference: false,
            minN: 10,
            campaign: null,
          },
        ],
        true,
      ],
    ]);
  });
});
