// The commands that deliver (run, sync, issue, hidden-test), each with its dry run: they build the deliveries,
// queue them in the outbox and drain it to the endpoint.
import { join, dirname, resolve } from 'node:path';
import { issueRecordSchema } from '#schema/issue.ts';
import { describeIssues } from '#schema/issues-text.ts';
import { UsageError, type CliSettings } from './cli-arguments.ts';
import { EXIT, finish, type CliIo } from './cli-output.ts';
import { buildHiddenTestDelivery, buildIssueDelivery, type BuiltDelivery } from './delivery.ts';
import { Outbox } from './outbox.ts';
import { Progress } from './progress-bar.ts';
import {
  MAX_RUN_FILE_BYTES,
  parseJsonFile,
  prepareRun,
  readRunFolder,
  RUN_FILES,
  RunFolderError,
} from './run-folder.ts';
import { readFileSafely, UnsafeFileError } from './safe-read.ts';
import { visible } from './untrusted-text.ts';
import { deliver, deliveriesOf, prepareFolders, syncRunFolders, type DeliverySettings } from './sync.ts';

/** The outbox: --outbox, else the one in the runs root. */
export function outboxDir(settings: CliSettings, runsRoot: string | undefined): string {
  if (settings.outbox) return resolve(settings.outbox);
  if (runsRoot) return join(runsRoot, '.replay-outbox');
  throw new UsageError('Which outbox? Give --outbox (or REPLAY_OUTBOX).');
}

export function deliverySettings(settings: CliSettings, env: NodeJS.ProcessEnv, progress: Progress): DeliverySettings {
  if (!settings.endpoint)
    throw new UsageError('Where to? Give --endpoint (or REPLAY_ENDPOINT): the ingest URL, …/hooks/{space}/ingest.');
  // Keys of several hosts may sit in the environment or REPLAY_KEYS_DIR: the host named in a run folder must
  // never choose which one signs.
  if (!settings.keyFile && !settings.host)
    throw new UsageError(
      'Which host signs? Without --key-file the key comes from the environment or REPLAY_KEYS_DIR, ' +
        'so give --host (or REPLAY_HOST): the host a result.json names never picks the key.',
    );
  return {
    endpoint: settings.endpoint,
    host: settings.host,
    forbid: settings.forbid,
    keyFile: settings.keyFile,
    env,
    retryForMs: settings.retryForMs,
    now: settings.now,
    onEvent: (event) => progress.event(event),
  };
}

/** The outbox, with a warning for anything opening it repaired. */
export async function openOutbox(dir: string, io: CliIo): Promise<Outbox> {
  const outbox = await Outbox.open(dir);
  for (const warning of outbox.warnings) io.err(`replay-push: warning: ${visible(warning)}`);
  return outbox;
}

/** Queues the runs of `folders` and delivers the outbox: `run` with one folder, `sync` with all. */
export async function runFolders(
  runsRoot: string,
  folders: string[],
  settings: CliSettings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  if (settings.dryRun) return dryRun(runsRoot, folders, settings, io);
  const progress = new Progress(io, !settings.json);
  const delivery = deliverySettings(settings, env, progress);
  const outbox = await openOutbox(outboxDir(settings, runsRoot), io);
  try {
    const report = await syncRunFolders(outbox, folders, runsRoot, delivery);
    return finish(report, outbox.dir, settings.json, io, progress);
  } finally {
    await outbox.close();
  }
}

export async function deliverIssues(
  files: string[],
  settings: CliSettings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  if (!files.length) throw new UsageError('Give at least one task.json.');
  if (!settings.host) throw new UsageError('Which host sends them? Give --host (or REPLAY_HOST).');
  const deliveries: BuiltDelivery[] = [];
  for (const file of files.map((f) => resolve(f))) {
    let read;
    try {
      read = await readFileSafely(file, { maxBytes: MAX_RUN_FILE_BYTES[RUN_FILES.task] });
    } catch (error) {
      if (error instanceof UnsafeFileError) throw new RunFolderError(error.path, error.reason);
      throw error;
    }
    if (!read) throw new RunFolderError(file, 'cannot be read (ENOENT).');
    const parsed = issueRecordSchema.safeParse(parseJsonFile(file, read.bytes.toString('utf8')));
    if (!parsed.success) throw new RunFolderError(file, describeIssues(parsed.error.issues).join('; '));
    deliveries.push(buildIssueDelivery(parsed.data, settings.host));
  }
  if (settings.dryRun) {
    for (const d of deliveries)
      io.out(
        settings.json
          ? JSON.stringify({ kind: d.kind, id: d.id, bytes: Buffer.byteLength(d.body) })
          : `would send issue ${d.id} (${Buffer.byteLength(d.body)} bytes)`,
      );
    return EXIT.delivered;
  }
  return deliverAndFinish(deliveries, outboxDir(settings, undefined), settings, env, io);
}

export async function deliverHiddenTest(
  folder: string,
  settings: CliSettings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  const run = prepareRun(await readRunFolder(folder), { host: settings.host, forbid: settings.forbid });
  if (!run.hiddenTest) throw new RunFolderError(join(folder, RUN_FILES.hiddenTests), 'is missing: nothing to deliver.');
  const delivery = buildHiddenTestDelivery(run, run.hiddenTest);
  if (settings.dryRun) {
    io.out(
      settings.json
        ? JSON.stringify({ kind: delivery.kind, id: delivery.id, body: JSON.parse(delivery.body) as unknown })
        : `would send hidden-test ${delivery.id}: ${delivery.body}`,
    );
    return EXIT.delivered;
  }
  return deliverAndFinish([delivery], outboxDir(settings, dirname(folder)), settings, env, io);
}

async function deliverAndFinish(
  deliveries: BuiltDelivery[],
  dir: string,
  settings: CliSettings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  const progress = new Progress(io, !settings.json);
  const delivery = deliverySettings(settings, env, progress);
  const outbox = await openOutbox(dir, io);
  try {
    return finish(await deliver(outbox, deliveries, delivery), outbox.dir, settings.json, io, progress);
  } finally {
    await outbox.close();
  }
}

async function dryRun(runsRoot: string, folders: string[], settings: CliSettings, io: CliIo): Promise<number> {
  const prepared = await prepareFolders(folders, { runsRoot, host: settings.host, forbid: settings.forbid });
  for (const warning of prepared.warnings) io.err(`replay-push: warning: ${warning}`);
  for (const invalid of prepared.invalid) io.err(`replay-push: ${invalid.message}`);
  for (const run of prepared.runs) {
    const deliveries = deliveriesOf(run).map((d) => ({
      kind: d.kind,
      id: d.id,
      bytes: Buffer.byteLength(d.body),
      ...(d.kind === 'run' ? { patchTruncated: d.patchTruncated } : {}),
    }));
    if (settings.json) io.out(JSON.stringify({ folder: run.folder, row: run.row, deliveries }));
    else {
      io.out(`${visible(run.folder)}\n${JSON.stringify(run.row, null, 2)}`);
      for (const d of deliveries)
        io.out(`  would send ${d.kind} ${d.id} (${d.bytes} bytes${d.patchTruncated ? ', patch cut to fit' : ''})`);
    }
  }
  return prepared.invalid.length ? EXIT.usage : EXIT.delivered;
}
