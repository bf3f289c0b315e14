// Local mode (docs/contract.md §9, §10): the same handlers as in AWS, behind one HTTP server, against emulators this
// process starts. Each handler is built by its factory with adapters pointed at the emulators, so nothing
// here writes `process.env` and several local modes can run in one process (tests do).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { keyCandidates, type ReplayConfig } from '#schema/config.ts';
import { keyEnvName } from '#shared/key-names.ts';
import { keyBytes, STRONG_KEY_BYTES } from '#shared/signature.ts';
import { LocalKeySource } from '#adapters/local/env-key-source.ts';
import { githubCredentialsFromEnv } from '#adapters/aws/judge-services.ts';
import { DynamoStore, dynamoClient } from '#adapters/aws/dynamo-store.ts';
import { S3ObjectStore } from '#adapters/aws/s3-object-store.ts';
import { SqsQueue } from '#adapters/aws/sqs-queue.ts';
import { DynamoLeaseStore } from '#adapters/aws/dynamo-lease.ts';
import { instrumentation, type LogLevel } from '#adapters/aws/observability.ts';
import type { ServiceName } from '#core/operations.ts';
import {
  DATA_OBJECT_GRANTS,
  combinedGrant,
  INBOX_GRANTS,
  INBOX_PREFIX,
  parseInboxKey,
  spaceReadGrant,
  type KeyGrant,
} from '#core/storage-layout.ts';
import { systemClock, type JudgeQueueMessage, type LandingMessage, type MessageQueue } from '#core/ports.ts';
import { createIngestHandler } from '#functions/ingest/handler.ts';
import { createLanderHandler } from '#functions/lander/handler.ts';
import { createReadApiHandler } from '#functions/read-api/handler.ts';
import { createJudgeHandler } from '#functions/judge/handler.ts';
import { createSweeperHandler } from '#functions/sweeper/handler.ts';
import { createSnapshotCompactorHandler } from '#functions/snapshot-compactor/handler.ts';
import { createInboxReconcilerHandler } from '#functions/inbox-reconciler/handler.ts';
import { wire as wireIngest } from '#functions/ingest/wire.ts';
import { wire as wireLander } from '#functions/lander/wire.ts';
import { wire as wireReadApi } from '#functions/read-api/wire.ts';
import { wire as wireJudge } from '#functions/judge/wire.ts';
import { wire as wireSweeper } from '#functions/sweeper/wire.ts';
import { wire as wireCompactor } from '#functions/snapshot-compactor/wire.ts';
import { wire as wireReconciler } from '#functions/inbox-reconciler/wire.ts';
import type { PlatformResources } from '#functions/platform-resources.ts';
import { DynamoReenqueueLedger } from '#adapters/aws/dynamo-reenqueue-ledger.ts';
import { DuckDbEngine, S3RVER_OBJECT_SUFFIX } from '#adapters/local/duckdb-engine.ts';
import { grantedOnly } from '#adapters/local/granted-object-store.ts';
import { S3LinkedDownloads } from '#adapters/aws/s3-linked-downloads.ts';
import { s3rverKeyFits, startEmulators, type Emulators, type RunningEmulators } from './emulators.ts';
import { cockpitEntries } from '#core/read/read-api.ts';
import { createLocalServer, type HttpHandler } from './http-server.ts';
import { positiveNumber, startBackgroundWork } from './background-work.ts';
import { invokedLocally } from './local-invocation.ts';

export interface LocalModeOptions {
  config: ReplayConfig;
  dataDir: string;
  keysDir?: string;
  host?: string;
  port?: number;
  /**
   * Where local settings are read: judge credentials (ANTHROPIC_*, GITHUB_*), host keys given as variables,
   * REPLAY_SWEEP_SECONDS, REPLAY_JUDGE_RETRY_BASE_SECONDS, POWERTOOLS_LOG_LEVEL. Default: `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Seconds a failed message stays invisible before it is retried (AWS default in the stack: 60). */
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  /**
   * Emulators already running, for a test runner that shares one set between many local modes: this one
   * creates its resources there under `names` and leaves the servers running when it stops. Default: its
   * own emulators on `dataDir`.
   */
  runningEmulators?: RunningEmulators;
  pollers?: number;
  /** Seconds between judge sweeps (AWS: every 5 minutes). Default: REPLAY_SWEEP_SECONDS, else 60. */
  sweepIntervalSeconds?: number;
  /**
   * Seconds between snapshot compactions (AWS: every 5 minutes). Default: REPLAY_SNAPSHOT_SECONDS, else 60.
   * 0 turns the compactor off (benchmarks that measure a reader against a snapshot they prepared).
   */
  snapshotIntervalSeconds?: number;
  /**
   * Overrides every space's `judge.retryBaseSeconds`, so retries can be watched locally in seconds rather
   * than quarter hours. Default: REPLAY_JUDGE_RETRY_BASE_SECONDS, else the configuration's values.
   */
  judgeRetryBaseSeconds?: number;
  log?: (line: string) => void;
}

export interface HostKeyName {
  host: string;
  secretConfigKey: string;
}

export interface GeneratedKey extends HostKeyName {
  path: string;
}

/** The adapters the handlers use, for tests and tools that seed or inspect local mode's state. */
export interface LocalAdapters {
  table: DynamoStore;
  inbox: S3ObjectStore;
  data: S3ObjectStore;
  landingQueue: MessageQueue<LandingMessage>;
  judgeQueue: MessageQueue<JudgeQueueMessage>;
}

export interface LocalMode {
  url: string;
  generatedKeys: GeneratedKey[];
  /** Hosts whose existing key is shorter than 32 bytes: it verifies, but they should be paired anew. */
  weakKeys: HostKeyName[];
  emulators: Emulators;
  adapters: LocalAdapters;
  /** Each function's dependencies, as its `wire.ts` built them: the same code AWS builds them with. */
  wiring: Record<ServiceName, object>;
  stop(): Promise<void>;
}

export async function startLocalMode(options: LocalModeOptions): Promise<LocalMode> {
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const dataDir = resolve(options.dataDir);
  const keysDir = resolve(options.keysDir ?? join(dataDir, 'keys'));
  const keys = new LocalKeySource(keysDir, env);
  const { generated: generatedKeys, weak: weakKeys } = await ensureDevelopmentKeys(options.config, keys, keysDir);

  const emulators = await startEmulators(
    dataDir,
    { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30, maxReceiveCount: options.maxReceiveCount ?? 5 },
    options.runningEmulators,
  );
  const retryBase = options.judgeRetryBaseSeconds ?? positiveNumber(env.REPLAY_JUDGE_RETRY_BASE_SECONDS);
  const config = retryBase ? withRetryBase(options.config, retryBase) : options.config;
  const { resources, adapters, release } = await emulatedResources(emulators, config, keys);
  const { wiring, handlers } = localHandlers(resources, env);
  log(describeJudgeCredentials(env));
  if (retryBase) log(`Judge retries start after ${retryBase} s in every space (local override).`);

  const replayed = await replayInbox(adapters);
  if (replayed) log(`Replayed ${replayed} accepted deliveries that had not landed before the last stop.`);

  const background = startBackgroundWork(emulators.sqs, emulators.queueUrls, handlers, options, env, log);
  const server = await serveHttp(handlers, config, options);
  return {
    url: server.url,
    generatedKeys,
    weakKeys,
    emulators,
    adapters,
    wiring,
    async stop() {
      await server.stop();
      await background.stop();
      release();
      await emulators.stop();
    },
  };
}

/** The platform's resources over the emulators, as `functions/aws-resources.ts` gives them over AWS. */
async function emulatedResources(
  emulators: Emulators,
  config: ReplayConfig,
  keys: LocalKeySource,
): Promise<{ resources: PlatformResources; adapters: LocalAdapters; release(): void }> {
  const { names, timeouts } = emulators;
  const documents = dynamoClient(emulators.connection, timeouts);
  const table = new DynamoStore(documents, names.table, timeouts);
  const adapters: LocalAdapters = {
    table,
    inbox: new S3ObjectStore(emulators.s3, names.inboxBucket, timeouts),
    data: new S3ObjectStore(emulators.s3, names.dataBucket, timeouts),
    landingQueue: new SqsQueue<LandingMessage>(emulators.sqs, emulators.queueUrls.landing, timeouts),
    judgeQueue: new SqsQueue<JudgeQueueMessage>(emulators.sqs, emulators.queueUrls.judge, timeouts),
  };
  const leases = new DynamoLeaseStore(documents, names.table, timeouts);
  // The analytics engine reads the run dataset where the S3 emulator keeps the data bucket's files.
  const downloads = new S3LinkedDownloads(emulators.s3, names.dataBucket);
  const engine = await DuckDbEngine.open(
    join(emulators.s3Directory, names.dataBucket),
    S3RVER_OBJECT_SUFFIX,
    (key, paths) => downloads.putFile(key, paths),
    config.engine,
  );
  const resources: PlatformResources = {
    config,
    table,
    leases,
    reenqueueLedger: new DynamoReenqueueLedger(documents, names.table, timeouts),
    inbox: adapters.inbox,
    data: adapters.data,
    bulkData: adapters.data,
    landingQueue: adapters.landingQueue,
    objectKeyFits: s3rverKeyFits,
    landingDeadLetters: new SqsQueue<LandingMessage>(emulators.sqs, emulators.queueUrls.landingDlq, timeouts),
    judgeQueue: adapters.judgeQueue,
    hostKeys: keys,
    pairing: keys,
    engine,
    downloads,
    clock: systemClock,
  };
  const release = () => {
    documents.destroy();
    engine.close();
  };
  return { resources, adapters, release };
}

/** Every function wired by its own `wire.ts` and built by its handler factory, each called as Lambda calls it. */
function localHandlers(resources: PlatformResources, env: NodeJS.ProcessEnv) {
  const logLevel = (env.POWERTOOLS_LOG_LEVEL as LogLevel | undefined) ?? 'WARN';
  const observe = (service: ServiceName) => instrumentation(service, { logLevel, publishMetrics: false });
  // Each function reaches the data bucket and the inbox through its own grants, as in AWS (the emulators would
  // allow anything).
  const granted = (data: KeyGrant, inbox = combinedGrant()) => ({
    ...resources,
    data: grantedOnly(resources.data, data),
    bulkData: grantedOnly(resources.bulkData, data),
    inbox: grantedOnly(resources.inbox, inbox),
  });
  const wiring = {
    ingest: wireIngest(granted(combinedGrant(), INBOX_GRANTS.write)),
    lander: wireLander(granted(DATA_OBJECT_GRANTS.lander, INBOX_GRANTS['read-delete'])),
    // One read API serves every space here; in AWS each serves one, with that space's grant.
    'read-api': wireReadApi(granted(combinedGrant(...Object.keys(resources.config.spaces).map(spaceReadGrant)))),
    judge: wireJudge(granted(DATA_OBJECT_GRANTS.judge), env),
    sweeper: wireSweeper(resources),
    'snapshot-compactor': wireCompactor(granted(DATA_OBJECT_GRANTS['snapshot-compactor'])),
    'inbox-reconciler': wireReconciler(granted(combinedGrant(), INBOX_GRANTS.list)),
  } satisfies Record<ServiceName, object>;
  const handlers = {
    ingest: invokedLocally('ingest', createIngestHandler(wiring.ingest, observe('ingest'))),
    lander: invokedLocally('lander', createLanderHandler(wiring.lander, observe('lander'))),
    readApi: invokedLocally('read-api', createReadApiHandler(wiring['read-api'], observe('read-api'))),
    judge: invokedLocally('judge', createJudgeHandler(wiring.judge, observe('judge'))),
    sweeper: invokedLocally('sweeper', createSweeperHandler(wiring.sweeper, observe('sweeper'))),
    compactor: invokedLocally(
      'snapshot-compactor',
      createSnapshotCompactorHandler(wiring['snapshot-compactor'], observe('snapshot-compactor')),
    ),
    reconciler: invokedLocally(
      'inbox-reconciler',
      createInboxReconcilerHandler(wiring['inbox-reconciler'], observe('inbox-reconciler')),
    ),
  };
  return { wiring, handlers };
}

/**
 * The HTTP server in front of the ingest and read handlers and the built cockpit. `stop` closes it, and lets the
 * requests still being answered finish against running emulators, not closed ones.
 */
async function serveHttp(
  handlers: { ingest: HttpHandler; readApi: HttpHandler },
  config: ReplayConfig,
  options: Pick<LocalModeOptions, 'host' | 'port'>,
): Promise<{ url: string; stop(): Promise<void> }> {
  const answering = new Set<Promise<unknown>>();
  const finishing =
    (handler: HttpHandler): HttpHandler =>
    (event) => {
      const answer = handler(event);
      answering.add(answer);
      return answer.finally(() => answering.delete(answer));
    };
  const server = createLocalServer(
    {
      ingest: finishing(handlers.ingest),
      read: finishing(handlers.readApi),
      staticDir: resolve(import.meta.dirname, '../../dashboard/dist'),
      settings: { cockpits: cockpitEntries(config), api: '/api', signIn: null },
    },
    { host: options.host },
  );
  await new Promise<void>((r) => server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', r));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    async stop() {
      // Close idle keep-alive connections (a polling cockpit holds one) instead of waiting for them.
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
      await Promise.allSettled(answering);
    },
  };
}

/**
 * Every sender without a key in the environment or the keys folder gets a random development key file (64 hex
 * characters: at least STRONG_KEY_BYTES); a sender whose existing key is shorter is listed as weak.
 */
async function ensureDevelopmentKeys(
  config: ReplayConfig,
  source: LocalKeySource,
  keysDir: string,
): Promise<{ generated: GeneratedKey[]; weak: HostKeyName[] }> {
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const generated: GeneratedKey[] = [];
  const weak: HostKeyName[] = [];
  for (const { secretConfigKey, host } of keyCandidates(config)) {
    const keys = await source.keysFor(secretConfigKey, host);
    if (keys.some((key) => keyBytes(key) < STRONG_KEY_BYTES)) weak.push({ host, secretConfigKey });
    if (keys.length) continue;
    const path = join(keysDir, keyEnvName(secretConfigKey, host));
    if (existsSync(path)) continue;
    writeFileSync(path, randomBytes(STRONG_KEY_BYTES).toString('hex'), { mode: 0o600 });
    generated.push({ host, secretConfigKey, path });
  }
  return { generated, weak };
}

/** What got a 202 but had not landed when the process stopped is still in the inbox: queue it again. */
async function replayInbox({ inbox, landingQueue }: LocalAdapters): Promise<number> {
  const keys = await inbox.list(INBOX_PREFIX);
  for (const key of keys) {
    const parsed = parseInboxKey(key);
    if (parsed) await landingQueue.send({ space: parsed.space, inboxKey: key });
  }
  return keys.length;
}

function withRetryBase(config: ReplayConfig, retryBaseSeconds: number): ReplayConfig {
  const spaces = Object.fromEntries(
    Object.entries(config.spaces).map(([name, space]) => [
      name,
      { ...space, judge: { ...space.judge, retryBaseSeconds } },
    ]),
  );
  return { ...config, spaces };
}

/** Which credentials the judge found, never their values. */
function describeJudgeCredentials(env: NodeJS.ProcessEnv): string {
  const model = env.ANTHROPIC_API_KEY
    ? `Anthropic key set${env.ANTHROPIC_BASE_URL ? ` (API at ${env.ANTHROPIC_BASE_URL})` : ''}`
    : 'no ANTHROPIC_API_KEY';
  const credentials = githubCredentialsFromEnv(env);
  const github = !credentials
    ? 'no GitHub credentials'
    : credentials.kind === 'app'
      ? `GitHub App ${credentials.appId}`
      : 'GITHUB_TOKEN';
  const waiting =
    env.ANTHROPIC_API_KEY && credentials ? '' : '; runs wait with judgeState "waiting-credentials" until both are set';
  return `Judge: ${model}, ${github}${env.GITHUB_API_URL ? ` (API at ${env.GITHUB_API_URL})` : ''}${waiting}.`;
}
