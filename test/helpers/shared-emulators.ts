// One set of emulator servers per jest worker, started once for the whole run (jest.config.js names the
// setup and teardown below): each test file creates its own table, buckets and queues there under names of
// its own, instead of loading and starting three servers for itself. Outside jest's main suite (the
// browser and reliability suites, a script) there is no shared set and each caller starts its own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulatorServers, type EmulatorServers, type RunningEmulators } from '#infra/local/emulators.ts';

const ENV_NAME = 'REPLAY_TEST_EMULATORS';

/** How a jest worker reaches its servers, as the setup hands it on. */
type SharedSet = Pick<RunningEmulators, 'connection' | 's3Directory'>;

/** The running servers of this jest worker, with fresh resource names for the caller; undefined if none. */
export function sharedEmulators(): RunningEmulators | undefined {
  const sets = process.env[ENV_NAME];
  const worker = Number(process.env.JEST_WORKER_ID);
  const set = sets ? (JSON.parse(sets) as SharedSet[])[worker - 1] : undefined;
  if (!set) return undefined;
  const suffix = randomBytes(5).toString('hex');
  return {
    ...set,
    names: {
      table: `replay-bench-${suffix}`,
      inboxBucket: `replay-inbox-${suffix}`,
      dataBucket: `replay-data-${suffix}`,
      landingQueue: `replay-landing-${suffix}`,
      judgeQueue: `replay-judge-${suffix}`,
    },
  };
}

// Jest loads the setup and the teardown as modules of their own: what the first started, the second finds
// on the global object.
const RUNNING = Symbol.for('replay-bench.shared-emulators');
type Running = { dir: string; servers: EmulatorServers[] };
const state = globalThis as { [RUNNING]?: Running };

export async function startSharedEmulators(workers: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'replay-shared-emulators-'));
  const servers = await Promise.all(
    Array.from({ length: workers }, (_, i) => startEmulatorServers(join(dir, String(i + 1)))),
  );
  state[RUNNING] = { dir, servers };
  process.env[ENV_NAME] = JSON.stringify(
    servers.map(({ connection, s3Directory }) => ({ connection, s3Directory }) satisfies SharedSet),
  );
}

export async function stopSharedEmulators(): Promise<void> {
  const running = state[RUNNING];
  if (!running) return;
  await Promise.all(running.servers.map((s) => s.stop()));
  rmSync(running.dir, { recursive: true, force: true });
}
