// Starts local mode in this test process, isolated from the developer's environment: it reads only the
// `env` a test passes (judge credentials, host keys as variables).
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '#schema/config.ts';
import { keyEnvName } from '#shared/key-names.ts';
import { startLocalMode, type LocalMode, type LocalModeOptions } from '#infra/local/local-mode.ts';
import { sharedEmulators } from './shared-emulators.ts';

export interface TestLocalMode extends LocalMode {
  dataDir: string;
  keysDir: string;
  keyOf(host: string): string;
}

export async function startTestLocalMode(
  config: unknown,
  keys: Record<string, string>,
  options: Partial<LocalModeOptions> & { restartable?: boolean } = {},
): Promise<TestLocalMode> {
  // A test that stops local mode and starts it again passes the first one's folders, as a restart keeps them;
  // both starts run emulators of their own on those folders, as `npm start` does.
  const { restartable, ...localOptions } = options;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'replay-local-'));
  const keysDir = options.keysDir ?? join(dataDir, 'keys');
  mkdirSync(keysDir, { recursive: true });
  for (const [host, key] of Object.entries(keys))
    writeFileSync(join(keysDir, keyEnvName('Hosting:ModuleReportSecret', host)), key);
  const runningEmulators = restartable || options.dataDir ? undefined : sharedEmulators();
  const local = await startLocalMode({
    config: parseConfig(config),
    port: 0,
    env: {},
    runningEmulators,
    ...localOptions,
    dataDir,
    keysDir,
  });
  return {
    ...local,
    dataDir,
    keysDir,
    keyOf: (host) =>
      keys[host] ??
      (() => {
        throw new Error(`no test key for ${host}`);
      })(),
  };
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Resolves once `queue` holds no message, visible or in flight: everything sent to it before the call has
 * been handled and deleted (or, after its retries, set aside in the dead-letter queue).
 */
export async function queueDrained(local: LocalMode, queue: 'landing' | 'judge', timeoutMs = 15_000): Promise<void> {
  await eventually(async () => {
    const { Attributes = {} } = await local.emulators.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: local.emulators.queueUrls[queue],
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0
    );
  }, timeoutMs);
}
