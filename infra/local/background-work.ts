// What local mode runs beside its HTTP server, as AWS runs it beside the APIs: the landing and judge queues
// polled as Lambda's event source mappings poll them, and the sweeper, the inbox reconciliation and the
// snapshot compactor on their schedules.
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ScheduledEvent } from 'aws-lambda';
import { TIMINGS } from '#core/operations.ts';
import { pollQueue, type BatchHandler } from './queue-poller.ts';

export interface BackgroundHandlers {
  lander: BatchHandler;
  judge: BatchHandler;
  sweeper: (event: ScheduledEvent) => Promise<void>;
  reconciler: (event: ScheduledEvent) => Promise<void>;
  compactor: (event: ScheduledEvent) => Promise<void>;
}

/** LocalModeOptions' say in it (local-mode.ts); what they leave out comes from `env`, else the defaults. */
interface Settings {
  pollers?: number;
  sweepIntervalSeconds?: number;
  snapshotIntervalSeconds?: number;
}

/** Starts the pollers and the schedules; `stop` waits for each to finish what it is doing. */
export function startBackgroundWork(
  sqs: SQSClient,
  queueUrls: { landing: string; judge: string },
  handlers: BackgroundHandlers,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): { stop(): Promise<void> } {
  const onError = (e: unknown) => log(`queue poller: ${(e as Error).message}`);
  const concurrency = settings.pollers ?? 2;
  const pollers = [
    pollQueue(sqs, queueUrls.landing, handlers.lander, { concurrency, onError }),
    pollQueue(sqs, queueUrls.judge, handlers.judge, { concurrency, onError }),
  ];
  const sweepSeconds = settings.sweepIntervalSeconds ?? positiveNumber(env.REPLAY_SWEEP_SECONDS) ?? 60;
  const sweeps = every(
    sweepSeconds * 1000,
    () => handlers.sweeper(scheduledEvent()),
    (e) => log(`judge sweeper: ${(e as Error).message}`),
  );
  const reconciliations = every(
    TIMINGS.inboxReconcileEvery * 1000,
    () => handlers.reconciler(scheduledEvent()),
    (e) => log(`inbox reconciler: ${(e as Error).message}`),
  );
  const snapshotSeconds = settings.snapshotIntervalSeconds ?? positiveNumber(env.REPLAY_SNAPSHOT_SECONDS) ?? 60;
  const compactions =
    snapshotSeconds > 0
      ? every(
          snapshotSeconds * 1000,
          () => handlers.compactor(scheduledEvent()),
          (e) => log(`snapshot compactor: ${(e as Error).message}`),
        )
      : null;
  return {
    async stop() {
      await sweeps.stop();
      await reconciliations.stop();
      await compactions?.stop();
      await Promise.all(pollers.map((p) => p.stop()));
    },
  };
}

/** A setting from the environment: its number when above 0, else none. */
export const positiveNumber = (value: string | undefined) => (value && Number(value) > 0 ? Number(value) : undefined);

/**
 * Runs `task` now and then every `intervalMs`, never two at once. The first run matters: judge messages live
 * only in the in-memory queue, so a sweep at start re-queues whatever was due when the process stopped.
 */
function every(
  intervalMs: number,
  task: () => Promise<unknown>,
  onError: (e: unknown) => void,
): { stop(): Promise<void> } {
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
