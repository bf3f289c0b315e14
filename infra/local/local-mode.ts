// Local mode (SPEC §9, §10): the same handlers as in AWS, behind one HTTP server, against emulators this
// process starts. Handlers read their environment at import time, exactly like a Lambda cold start, so the
// environment is set first and the handlers are imported after.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { keyCandidates, type ReplayConfig } from '../../shared/schema/config.ts';
import { keyEnvName } from '../../shared/adapters/key-names.ts';
import { LocalKeySource } from '../../shared/adapters/local/env-key-source.ts';
import { S3ObjectStore } from '../../shared/adapters/aws/s3-object-store.ts';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue.ts';
import { sqsClient } from '../../shared/adapters/aws/runtime.ts';
import type { LandingMessage } from '../../shared/ports.ts';
import { startEmulators, type Emulators } from './emulators.ts';
import { createLocalServer } from './http-server.ts';
import { pollQueue, type Poller } from './queue-poller.ts';
import { S3Client } from '@aws-sdk/client-s3';

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
  Object.assign(process.env, emulators.env, {
    REPLAY_CONFIG_JSON: JSON.stringify(options.config),
    KEY_SOURCE: 'local',
    REPLAY_KEYS_DIR: keysDir,
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_TRACE_ENABLED: 'false',
  });

  const [ingest, lander, readApi] = await Promise.all([
    import('../../functions/ingest/handler.ts'),
    import('../../functions/lander/handler.ts'),
    import('../../functions/read-api/handler.ts'),
  ]);

  const replayed = await replayInbox(emulators.queueUrls.landing);
  if (replayed) log(`Replayed ${replayed} accepted deliveries that had not landed before the last stop.`);

  const onError = (e: unknown) => log(`queue poller: ${(e as Error).message}`);
  const pollers: Poller[] = [pollQueue(emulators.queueUrls.landing, lander.handler, { concurrency: options.pollers ?? 2, onError })];

  const server = createLocalServer({ ingest: ingest.handler, read: readApi.handler, staticDir: resolve(import.meta.dirname, '../../dashboard/dist') });
  await new Promise<void>((r) => server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', r));
  const address = server.address() as AddressInfo;

  return {
    url: `http://${address.address}:${address.port}`,
    generatedKeys,
    emulators,
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
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
async function replayInbox(landingQueueUrl: string): Promise<number> {
  const inbox = new S3ObjectStore(new S3Client({ forcePathStyle: true }), process.env.INBOX_BUCKET!);
  const queue = new SqsQueue<LandingMessage>(sqsClient(), landingQueueUrl);
  const keys = await inbox.list('inbox/');
  for (const key of keys) await queue.send({ space: key.split('/')[1]!, inboxKey: key });
  return keys.length;
}
