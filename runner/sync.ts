// The core of `replay-push run` and `sync` (docs/contract.md §7), also used by `npm run demo`: read run folders, queue
// what the ledger has not accepted yet (issue first, then the run, then its hidden-test result), drain the
// outbox, and count run folders: delivered, already accepted, still queued, rejected.
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildHiddenTestDelivery, buildIssueDelivery, buildRunDelivery, type BuiltDelivery } from './delivery.ts';
import { drainOutbox, type DrainEvent, type DrainOptions, type DrainResult } from './drain.ts';
import { hostKey, KeyFileError, type KeySettings } from './host-key.ts';
import type { Outbox } from './outbox.ts';
import { prepareRun, readRunFolder, RUN_FILES, RunFolderError, type PreparedRun } from './run-folder.ts';

export interface SyncCounts {
  delivered: number;
  alreadyAccepted: number;
  queued: number;
  rejected: number;
}

export interface DeliverySettings extends KeySettings, Pick<DrainOptions, 'concurrency' | 'retryForMs' | 'now'> {
  endpoint: string;
  /** `--host`: folders naming another host are refused. */
  host?: string;
  forbid?: string[];
  onEvent?: (event: DrainEvent) => void;
}

export interface SyncReport extends SyncCounts {
  /** Folders that could not be read, each with its sentence (exit 2). */
  invalid: RunFolderError[];
  /** Key files that exist but cannot be used (exit 2). */
  keyErrors: string[];
  warnings: string[];
  /** Any delivery of any kind rejected in this call (exit 3). */
  anyRejected: boolean;
  /** Any delivery of any kind left queued (exit 1). */
  anyQueued: boolean;
  unpaired: { host: string; source: string; queued: number }[];
}

/**
 * Run folders directly inside the runs root: sub-folders holding a result.json (a run still being written has none
 * yet). A link that leads to one is listed too, so that reading it refuses it by name rather than passing it over.
 */
export async function findRunFolders(runsRoot: string): Promise<string[]> {
  const root = resolve(runsRoot);
  const names = (await readdir(root, { withFileTypes: true }))
    .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort();
  const found: string[] = [];
  for (const name of names) {
    const isRun = await lstat(join(root, name, RUN_FILES.result)).then(
      () => true,
      () => false,
    );
    if (isRun) found.push(join(root, name));
  }
  return found;
}

/** Everything one prepared run sends: its issue, the run, its hidden-test result. */
export function deliveriesOf(run: PreparedRun): BuiltDelivery[] {
  return [
    ...(run.task ? [buildIssueDelivery(run.task, run.host)] : []),
    buildRunDelivery(run),
    ...(run.hiddenTest ? [buildHiddenTestDelivery(run, run.hiddenTest)] : []),
  ];
}

/** Run folders read and queued together: at most 8 × 266 MiB of capped files held at once, not 64 ×. */
const BATCH = 8;

export interface PreparedFolders {
  runs: PreparedRun[];
  invalid: RunFolderError[];
  warnings: string[];
}

export async function prepareFolders(
  folders: string[],
  options: { runsRoot: string; host?: string; forbid?: string[] },
): Promise<PreparedFolders> {
  const prepared: PreparedFolders = { runs: [], invalid: [], warnings: [] };
  // Read a batch at a time: in parallel, but never thousands of open files at once.
  for (let start = 0; start < folders.length; start += BATCH) {
    const outcomes = await Promise.all(
      folders.slice(start, start + BATCH).map(async (folder) => {
        try {
          return prepareRun(await readRunFolder(folder), options);
        } catch (error) {
          if (error instanceof RunFolderError) return error;
          throw error;
        }
      }),
    );
    for (const outcome of outcomes) {
      if (outcome instanceof RunFolderError) prepared.invalid.push(outcome);
      else {
        prepared.runs.push(outcome);
        prepared.warnings.push(...outcome.warnings);
      }
    }
  }
  return prepared;
}

export interface QueuedFolders {
  /** Run folders whose run the ledger already accepted, or rejected before. */
  alreadyAccepted: number;
  rejectedBefore: number;
  invalid: RunFolderError[];
  warnings: string[];
}

/**
 * Queues what the ledger has not accepted or rejected and the outbox does not hold yet, in batches, so bodies are
 * not all held at once (the queueing half of `sync`, and of `import`).
 */
export async function queueRunFolders(
  outbox: Outbox,
  folders: string[],
  runsRoot: string,
  settings: Pick<DeliverySettings, 'host' | 'forbid'>,
): Promise<QueuedFolders> {
  const queued: QueuedFolders = { alreadyAccepted: 0, rejectedBefore: 0, invalid: [], warnings: [] };
  const pendingKeys = new Set((await outbox.pending()).map((q) => q.contentKey));
  for (let start = 0; start < folders.length; start += BATCH) {
    const batch = await prepareFolders(folders.slice(start, start + BATCH), {
      runsRoot,
      host: settings.host,
      forbid: settings.forbid,
    });
    queued.invalid.push(...batch.invalid);
    queued.warnings.push(...batch.warnings);
    const fresh: BuiltDelivery[] = [];
    for (const run of batch.runs) {
      for (const delivery of deliveriesOf(run)) {
        if (delivery.kind === 'run' && outbox.isAccepted(delivery.contentKey)) queued.alreadyAccepted++;
        if (delivery.kind === 'run' && outbox.isRejected(delivery.contentKey)) queued.rejectedBefore++;
        if (
          outbox.isAccepted(delivery.contentKey) ||
          outbox.isRejected(delivery.contentKey) ||
          pendingKeys.has(delivery.contentKey)
        )
          continue;
        pendingKeys.add(delivery.contentKey);
        fresh.push(delivery);
      }
    }
    await outbox.enqueue(fresh);
  }
  return queued;
}

/** Queues run folders, then drains the whole outbox. */
export async function syncRunFolders(
  outbox: Outbox,
  folders: string[],
  runsRoot: string,
  settings: DeliverySettings,
): Promise<SyncReport> {
  const queued = await queueRunFolders(outbox, folders, runsRoot, settings);
  const drained = await drain(outbox, settings);
  return {
    ...summarise(drained.result),
    alreadyAccepted: queued.alreadyAccepted,
    rejected: drained.result.rejected.filter((e) => e.kind === 'run').length + queued.rejectedBefore,
    invalid: queued.invalid,
    keyErrors: drained.keyErrors,
    warnings: [...queued.warnings, ...drained.warnings],
    unpaired: drained.unpaired,
  };
}

/** Queues any deliveries (issue and hidden-test commands), then drains the whole outbox. */
export async function deliver(
  outbox: Outbox,
  deliveries: BuiltDelivery[],
  settings: DeliverySettings,
): Promise<SyncReport> {
  const pendingKeys = new Set((await outbox.pending()).map((q) => q.contentKey));
  await outbox.enqueue(
    deliveries.filter(
      (d) => !outbox.isAccepted(d.contentKey) && !outbox.isRejected(d.contentKey) && !pendingKeys.has(d.contentKey),
    ),
  );
  const drained = await drain(outbox, settings);
  return {
    ...summarise(drained.result),
    alreadyAccepted: 0,
    invalid: [],
    keyErrors: drained.keyErrors,
    warnings: drained.warnings,
    unpaired: drained.unpaired,
  };
}

function summarise(result: DrainResult) {
  const runs = (entries: { kind: string }[]) => entries.filter((e) => e.kind === 'run').length;
  return {
    delivered: runs(result.accepted),
    queued: runs(result.remaining),
    rejected: runs(result.rejected),
    anyRejected: result.rejected.length > 0,
    anyQueued: result.remaining.length > 0,
  };
}

async function drain(outbox: Outbox, settings: DeliverySettings) {
  const queued = await outbox.pending();
  const hosts = [...new Set(queued.map((q) => q.host))];
  const keys = new Map<string, string | null>();
  const sources = new Map<string, string>();
  const keyErrors: string[] = [];
  const warnings: string[] = [];
  for (const host of hosts) {
    // Keys looked up by name sign only the --host's deliveries (replay-push always names one; the demo, playing a
    // whole fleet, does not); another host's wait for a replay-push run as that host.
    if (!settings.keyFile && settings.host !== undefined && host !== settings.host) {
      keys.set(host, null);
      const count = queued.filter((q) => q.host === host).length;
      warnings.push(
        `${count} deliveries of host "${host}" wait in ${outbox.dir}: this replay-push signs as "${settings.host}" only.`,
      );
      continue;
    }
    try {
      const found = await hostKey(host, settings);
      keys.set(host, found.key);
      sources.set(host, found.source);
    } catch (error) {
      if (!(error instanceof KeyFileError)) throw error;
      keyErrors.push(error.message);
      keys.set(host, null);
    }
  }
  const unpaired: SyncReport['unpaired'] = [];
  const result = await drainOutbox(outbox, {
    ...settings,
    keys,
    onEvent: (event) => {
      // A host whose key file is unusable already has its sentence; "not paired" would be wrong.
      if (event.type === 'unpaired' && sources.has(event.host))
        unpaired.push({ host: event.host, source: sources.get(event.host)!, queued: event.queued });
      if (event.type !== 'unpaired') settings.onEvent?.(event);
    },
  });
  return { result, keyErrors, unpaired, warnings };
}
