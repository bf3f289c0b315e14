// Local mode (SPEC §9, §10): the same handlers as in AWS, behind one HTTP server, against emulators this
// process starts. Handlers read their environment at import time, exactly like a Lambda cold start, so the
// environment is set first and the handlers are imported after.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { ScheduledEvent } from 'aws-lambda';
import { keyCandidates, type ReplayConfig } from '../../shared/schema/config.ts';
import { keyEnvName } from '../../shared/adapters/key-names.ts';
import { LocalKeySource } from '../../shared/adapters/local/env-key-source.ts';
import { githubCredentialsFromEnv } from '../../shared/adapters/aws/judge-services.ts';
import { bucketStore, queue } from '../../shared/adapters/aws/runtime.ts';
import type { LandingMessage } from '../../shared/ports.ts';
import { startEmulators, type Emulators } from './emulators.ts';
import { createLocalServer } from './http-server.ts';
import { pollQueue, type Poller } from './queue-poller.ts';

export interface LocalModeOptions {
  config: ReplayConfig;
  dataDir: string;
  keysDir?: string;
  host?: string;
  port?: number;
  /** Seconds a failed message stays invisible before it is retried (AWS default in the stack: 60). */
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  pollers?: number;
  /** Seconds between judge sweeps (AWS: every 5 minutes). Default: REPLAY_SWEEP_SECONDS, else 60. */
  sweepIntervalSeconds?: number;
  /**
   * Overrides every space's `judge.retryBaseSeconds`, so retries can be watched locally in seconds rather
   * than quarter hours. Default: REPLAY_JUDGE_RETRY_BASE_SECONDS, else the configuration's values.
   */
  judgeRetryBaseSeconds?: number;
  log?: (line: string) => void;
}

export interface GeneratedKey {
  host: string;
  secretConfigKey: string;
  path: string;
}

export interface LocalMode {
  url: string;
  generatedKeys: GeneratedKey[];
  emulators: Emulators;
  stop(): Promise<void>;
}

export async function startLocalMode(options: LocalModeOptions): Promise<LocalMode> {
  const log = options.log ?? (() => {});
  const dataDir = resolve(options.dataDir);
  const keysDir = resolve(options.keysDir ?? join(dataDir, 'keys'));
  const generatedKeys = await ensureDevelopmentKeys(options.config, keysDir);

  const emulators = await startEmulators(dataDir, {
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
    maxReceiveCount: options.maxReceiveCount ?? 5,
  });
  const retryBase = options.judgeRetryBaseSeconds ?? positiveNumber(process.env.REPLAY_JUDGE_RETRY_BASE_SECONDS);
  Object.assign(process.env, emulators.env, {
    REPLAY_CONFIG_JSON: JSON.stringify(retryBase ? withRetryBase(options.config, retryBase) : options.config),
    KEY_SOURCE: 'local',
    REPLAY_KEYS_DIR: keysDir,
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
  });

  // One at a time: jest's ESM loader fails on concurrent dynamic imports.
  const ingest = await import('../../functions/ingest/handler.ts');
  const lander = await import('../../functions/lander/handler.ts');
  const readApi = await import('../../functions/read-api/handler.ts');
  const judge = await import('../../functions/judge/handler.ts');
  const sweeper = await import('../../functions/sweeper/handler.ts');
  log(describeJudgeCredentials(process.env));
  if (retryBase) log(`Judge retries start after ${retryBase} s in every space (local override).`);

  const replayed = await replayInbox();
  if (replayed) log(`Replayed ${replayed} accepted deliveries that had not landed before the last stop.`);

  const onError = (e: unknown) => log(`queue poller: ${(e as Error).message}`);
  const pollers: Poller[] = [
    pollQueue(emulators.queueUrls.landing, lander.handler, { concurrency: options.pollers ?? 2, onError }),
    pollQueue(emulators.queueUrls.judge, judge.handler, { concurrency: options.pollers ?? 2, onError }),
  ];
  const sweepSeconds = options.sweepIntervalSeconds ?? positiveNumber(process.env.REPLAY_SWEEP_SECONDS) ?? 60;
  const sweeps = every(sweepSeconds * 1000, () => sweeper.handler(scheduledEvent()), (e) => log(`judge sweeper: ${(e as Error).message}`));

  const server = createLocalServer({ ingest: ingest.handler, read: readApi.handler, staticDir: resolve(import.meta.dirname, '../../dashboard/dist') });
  await new Promise<void>((r) => server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', r));
  const address = server.address() as AddressInfo;

  return {
    url: `http://${address.address}:${address.port}`,
    generatedKeys,
    emulators,
    async stop() {
      // Close idle keep-alive connections (a polling cockpit holds one) instead of waiting for them.
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await sweeps.stop();
      await Promise.all(pollers.map((p) => p.stop()));
      await emulators.stop();
    },
  };
}

/** Every sender without a key in the environment or the keys folder gets a random development key file. */
async function ensureDevelopmentKeys(config: ReplayConfig, keysDir: string): Promise<GeneratedKey[]> {
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const source = new LocalKeySource(keysDir);
  const generated: GeneratedKey[] = [];
  for (const { secretConfigKey, host } of keyCandidates(config)) {
    if ((await source.keysFor(secretConfigKey, host)).length) continue;
    const path = join(keysDir, keyEnvName(secretConfigKey, host));
    if (existsSync(path)) continue;
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600 });
    generated.push({ host, secretConfigKey, path });
  }
  return generated;
}

/** What got a 202 but had not landed when the process stopped is still in the inbox: queue it again. */
async function replayInbox(): Promise<number> {
  const inbox = bucketStore('INBOX_BUCKET');
  const landing = queue<LandingMessage>('LANDING_QUEUE_URL');
  const keys = await inbox.list('inbox/');
  for (const key of keys) await landing.send({ space: key.split('/')[1]!, inboxKey: key });
  return keys.length;
}

const positiveNumber = (value: string | undefined) => (value && Number(value) > 0 ? Number(value) : undefined);

function withRetryBase(config: ReplayConfig, retryBaseSeconds: number): ReplayConfig {
  const spaces = Object.fromEntries(Object.entries(config.spaces).map(([name, space]) => [name, { ...space, judge: { ...space.judge, retryBaseSeconds } }]));
  return { ...config, spaces };
}

/** Which credentials the judge found, never their values. */
function describeJudgeCredentials(env: NodeJS.ProcessEnv): string {
  const model = env.ANTHROPIC_API_KEY ? `Anthropic key set${env.ANTHROPIC_BASE_URL ? ` (API at ${env.ANTHROPIC_BASE_URL})` : ''}` : 'no ANTHROPIC_API_KEY';
  const credentials = githubCredentialsFromEnv(env);
  const github = !credentials ? 'no GitHub credentials' : credentials.kind === 'app' ? `GitHub App ${credentials.appId}` : 'GITHUB_TOKEN';
  const waiting = env.ANTHROPIC_API_KEY && credentials ? '' : '; runs wait with judgeState "waiting-credentials" until both are set';
  return `Judge: ${model}, ${github}${env.GITHUB_API_URL ? ` (API at ${env.GITHUB_API_URL})` : ''}${waiting}.`;
}

/**
 * Runs `task` now and then every `intervalMs`, never two at once. The first run matters: judge messages live
 * only in the in-memory queue, so a sweep at start re-queues whatever was due when the process stopped.
 */
function every(intervalMs: number, task: () => Promise<unknown>, onError: (e: unknown) => void): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = task()
      .then(() => undefined, onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

const scheduledEvent = (): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: [],
  detail: {},
});
