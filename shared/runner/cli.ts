// `replay-push`: the commands of docs/contract.md §7 over the run-folder, outbox and drain modules. Everything the
// user sees is written through `CliIo`, so tests run the real command in-process; exit codes: 0 all
// delivered, 1 something still queued, 2 usage / unreadable run folder / unusable key file, 3 something
// rejected; 2 > 3 > 1 when several apply.
import { existsSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { issueRecordSchema } from '../schema/issue.ts';
import { describeIssues } from '../schema/issues-text.ts';
import { checkPairing } from './check.ts';
import { buildHiddenTestDelivery, buildIssueDelivery, type BuiltDelivery } from './delivery.ts';
import type { DrainEvent } from './drain.ts';
import { Outbox, OutboxError } from './outbox.ts';
import {
  MAX_RUN_FILE_BYTES,
  parseJsonFile,
  prepareRun,
  readRunFolder,
  RUN_FILES,
  RunFolderError,
} from './run-folder.ts';
import { readFileSafely, UnsafeFileError } from './safe-read.ts';
import {
  deliver,
  deliveriesOf,
  findRunFolders,
  prepareFolders,
  syncRunFolders,
  type DeliverySettings,
  type SyncReport,
} from './sync.ts';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Raw text to stderr, for the progress bar (only used when `isTTY`). */
  errRaw(text: string): void;
  isTTY: boolean;
}

export const EXIT = { delivered: 0, queued: 1, usage: 2, rejected: 3 } as const;

export const USAGE = `Usage: replay-push <command> [options]
  run <run-folder>           queue one finished run and deliver the outbox
  sync <runs-root>           queue every run folder not yet accepted, then deliver (catch-up)
  issue <task.json>…         deliver issue records
  hidden-test <run-folder>   deliver the run's hidden-tests.json
  status [<runs-root>]       what is queued, rejected, and the last error per host
  check                      one signed check: is this host's key paired and the host listed? Stores nothing
Options (environment):
  --endpoint URL   (REPLAY_ENDPOINT)  the ingest URL, …/hooks/{space}/ingest
  --host NAME      (REPLAY_HOST)      this runner's host name, as paired (required without --key-file)
  --outbox DIR     (REPLAY_OUTBOX)    default <runs-root>/.replay-outbox
  --key-file FILE                     else Hosting__ModuleReportSecret__{host} from the environment or REPLAY_KEYS_DIR
  --forbid DIR                        a root the agent must not touch (repeatable)
  --retry-for SECONDS (REPLAY_RETRY_FOR) how long to keep retrying an unavailable endpoint (default 60)
  --dry-run                           print the rows and what would be sent; send nothing
  --json                              the summary as one JSON object
See docs/runner.md.`;

class UsageError extends Error {}

interface Settings {
  endpoint?: string;
  host?: string;
  outbox?: string;
  keyFile?: string;
  forbid: string[];
  retryForMs: number;
  dryRun: boolean;
  json: boolean;
}

/** https anywhere; plain http only to this machine (127.0.0.0/8, ::1, localhost), as local mode listens. */
export function isSecureEndpoint(endpoint: string): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || (isIPv4(host) && host.startsWith('127.'));
}

function parse(argv: string[], env: NodeJS.ProcessEnv): { command: string; targets: string[]; settings: Settings } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        endpoint: { type: 'string' },
        host: { type: 'string' },
        outbox: { type: 'string' },
        'key-file': { type: 'string' },
        forbid: { type: 'string', multiple: true },
        'retry-for': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...targets] = positionals;
  if (values.help) return { command: 'help', targets: [], settings: {} as Settings };
  if (!command) throw new UsageError('Which command?');
  const retryFor = Number(values['retry-for'] ?? env.REPLAY_RETRY_FOR ?? 60);
  if (!Number.isFinite(retryFor) || retryFor < 0)
    throw new UsageError(
      `--retry-for must be a number of seconds, not "${values['retry-for'] ?? env.REPLAY_RETRY_FOR}".`,
    );
  const endpoint = values.endpoint ?? env.REPLAY_ENDPOINT;
  // A URL's scheme is case-insensitive (RFC 3986 §3.1); its path is not.
  const schemeLowered = endpoint?.replace(/^[a-z][a-z0-9+.-]*:/i, (scheme) => scheme.toLowerCase());
  if (schemeLowered !== undefined && !/^https?:\/\/[^/]+\/.*hooks\/[^/]+\/ingest$/.test(schemeLowered)) {
    throw new UsageError(`--endpoint must be the ingest URL, …/hooks/{space}/ingest, not "${endpoint}".`);
  }
  if (endpoint !== undefined && !isSecureEndpoint(endpoint)) {
    throw new UsageError(
      `--endpoint ${endpoint} is plain http to a host that is not this machine: signed runs go over https only (http is for local mode on 127.0.0.1, ::1 or localhost).`,
    );
  }
  return {
    command,
    targets,
    settings: {
      endpoint,
      host: values.host ?? env.REPLAY_HOST,
      outbox: values.outbox ?? env.REPLAY_OUTBOX,
      keyFile: values['key-file'],
      forbid: values.forbid ?? [],
      retryForMs: retryFor * 1000,
      dryRun: values['dry-run'],
      json: values.json,
    },
  };
}

const exactlyOne = (targets: string[], what: string) => {
  if (targets.length !== 1) throw new UsageError(`Give exactly one ${what}.`);
  return resolve(targets[0]!);
};

export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  try {
    const { command, targets, settings } = parse(argv, env);
    switch (command) {
      case 'run': {
        const folder = exactlyOne(targets, 'run folder');
        return await runFolders(dirname(folder), [folder], settings, env, io);
      }
      case 'sync': {
        const root = exactlyOne(targets, 'runs root');
        const folders = await findRunFolders(root).catch((error: NodeJS.ErrnoException) => {
          throw new UsageError(`The runs root ${root} cannot be read (${error.code ?? error.message}).`);
        });
        return await runFolders(root, folders, settings, env, io);
      }
      case 'issue':
        return await issues(targets, settings, env, io);
      case 'hidden-test':
        return await hiddenTest(exactlyOne(targets, 'run folder'), settings, env, io);
      case 'help':
        io.out(USAGE);
        return EXIT.delivered;
      case 'status':
        return await status(targets[0] ? resolve(targets[0]) : undefined, settings, io);
      case 'check': {
        if (!settings.endpoint || !settings.host)
          throw new UsageError('check needs --endpoint and --host (or REPLAY_ENDPOINT and REPLAY_HOST).');
        const outcome = await checkPairing(settings.endpoint, settings.host, { keyFile: settings.keyFile, env });
        if (outcome.exitCode === 0) io.out(`replay-push: ${outcome.line}`);
        else io.err(`replay-push: ${outcome.line}`);
        return outcome.exitCode;
      }
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`replay-push: ${error.message}`);
      io.err(USAGE);
      return EXIT.usage;
    }
    if (error instanceof RunFolderError || error instanceof OutboxError) {
      io.err(`replay-push: ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
}

function outboxDir(settings: Settings, runsRoot: string | undefined): string {
  if (settings.outbox) return resolve(settings.outbox);
  if (runsRoot) return join(runsRoot, '.replay-outbox');
  throw new UsageError('Which outbox? Give --outbox (or REPLAY_OUTBOX).');
}

function deliverySettings(settings: Settings, env: NodeJS.ProcessEnv, progress: Progress): DeliverySettings {
  if (!settings.endpoint)
    throw new UsageError('Where to? Give --endpoint (or REPLAY_ENDPOINT): the ingest URL, …/hooks/{space}/ingest.');
  // Keys of several hosts may sit in the environment or REPLAY_KEYS_DIR: the host named in a run folder must
  // never choose which one signs.
  if (!settings.keyFile && !settings.host)
    throw new UsageError(
      'Which host signs? Without --key-file the key comes from the environment or REPLAY_KEYS_DIR, so give --host (or REPLAY_HOST): the host a result.json names never picks the key.',
    );
  return {
    endpoint: settings.endpoint,
    host: settings.host,
    forbid: settings.forbid,
    keyFile: settings.keyFile,
    env,
    retryForMs: settings.retryForMs,
    onEvent: (event) => progress.event(event),
  };
}

async function runFolders(
  runsRoot: string,
  folders: string[],
  settings: Settings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  if (settings.dryRun) return dryRun(runsRoot, folders, settings, io);
  const progress = new Progress(io, !settings.json);
  const delivery = deliverySettings(settings, env, progress);
  const outbox = await Outbox.open(outboxDir(settings, runsRoot));
  try {
    const report = await syncRunFolders(outbox, folders, runsRoot, delivery);
    return finish(report, outbox.dir, settings, io, progress);
  } finally {
    await outbox.close();
  }
}

async function issues(files: string[], settings: Settings, env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
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

async function hiddenTest(folder: string, settings: Settings, env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
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
  settings: Settings,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  const progress = new Progress(io, !settings.json);
  const delivery = deliverySettings(settings, env, progress);
  const outbox = await Outbox.open(dir);
  try {
    return finish(await deliver(outbox, deliveries, delivery), outbox.dir, settings, io, progress);
  } finally {
    await outbox.close();
  }
}

async function dryRun(runsRoot: string, folders: string[], settings: Settings, io: CliIo): Promise<number> {
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
      io.out(`${run.folder}\n${JSON.stringify(run.row, null, 2)}`);
      for (const d of deliveries)
        io.out(`  would send ${d.kind} ${d.id} (${d.bytes} bytes${d.patchTruncated ? ', patch cut to fit' : ''})`);
    }
  }
  return prepared.invalid.length ? EXIT.usage : EXIT.delivered;
}

/** The exit code of a report: 2 > 3 > 1 > 0. */
export function exitCode(
  report: Pick<SyncReport, 'invalid' | 'keyErrors' | 'anyRejected' | 'rejected' | 'anyQueued'>,
): number {
  if (report.invalid.length || report.keyErrors.length) return EXIT.usage;
  if (report.anyRejected || report.rejected) return EXIT.rejected;
  return report.anyQueued ? EXIT.queued : EXIT.delivered;
}

export const summaryLine = (r: Pick<SyncReport, 'delivered' | 'alreadyAccepted' | 'queued' | 'rejected'>) =>
  `delivered ${r.delivered}, already accepted ${r.alreadyAccepted}, queued ${r.queued}, rejected ${r.rejected}`;

function finish(report: SyncReport, outboxPath: string, settings: Settings, io: CliIo, progress: Progress): number {
  progress.end();
  for (const warning of report.warnings) io.err(`replay-push: warning: ${warning}`);
  for (const invalid of report.invalid) io.err(`replay-push: ${invalid.message}`);
  for (const message of report.keyErrors) io.err(`replay-push: ${message}`);
  for (const u of report.unpaired) {
    io.err(
      `replay-push: ${u.host} is not paired yet: no key in ${u.source}. ${u.queued} deliveries wait in ${outboxPath} and go out on the next run or sync once the key is there.`,
    );
  }
  const { delivered, alreadyAccepted, queued, rejected } = report;
  io.out(settings.json ? JSON.stringify({ delivered, alreadyAccepted, queued, rejected }) : summaryLine(report));
  return exitCode(report);
}

async function status(runsRoot: string | undefined, settings: Settings, io: CliIo): Promise<number> {
  const dir = outboxDir(settings, runsRoot);
  if (!existsSync(dir))
    throw new UsageError(`There is no outbox at ${dir}: nothing was ever queued there (or give --outbox).`);
  const outbox = await Outbox.open(dir);
  const pending = await outbox.pending();
  const rejected = await outbox.rejectedRecords();
  const hosts = [
    ...new Set([...pending.map((p) => p.host), ...rejected.map((r) => r.host), ...Object.keys(outbox.hostStates())]),
  ].sort();
  const perHost = hosts.map((host) => {
    const queued = pending.filter((p) => p.host === host);
    const state = outbox.hostStates()[host];
    return {
      host,
      queued: {
        run: queued.filter((q) => q.kind === 'run').length,
        issue: queued.filter((q) => q.kind === 'issue').length,
        'hidden-test': queued.filter((q) => q.kind === 'hidden-test').length,
      },
      rejected: rejected.filter((r) => r.host === host).length,
      lastAcceptedAt: state?.lastAcceptedAt ?? null,
      lastError: state?.lastError ?? null,
    };
  });
  if (settings.json) {
    io.out(
      JSON.stringify({
        outbox: outbox.dir,
        queued: pending.length,
        rejected: rejected.length,
        accepted: outbox.acceptedCount,
        hosts: perHost,
      }),
    );
    return EXIT.delivered;
  }
  io.out(
    `${outbox.dir}: ${pending.length} queued, ${rejected.length} rejected, ${outbox.acceptedCount} accepted so far`,
  );
  for (const h of perHost) {
    io.out(
      `  ${h.host}: queued ${h.queued.run} runs, ${h.queued.issue} issues, ${h.queued['hidden-test']} hidden-test results; rejected ${h.rejected}; last accepted ${h.lastAcceptedAt ?? 'never'}`,
    );
    if (h.lastError) io.out(`    last error ${h.lastError.at}: ${h.lastError.message}`);
  }
  for (const r of rejected)
    io.out(
      `  rejected ${r.kind} ${r.id} (${r.host}) at ${r.rejectedAt}: ${r.answer.status} ${String(r.answer.body.error ?? '')}: ${String(r.answer.body.message ?? '')}`,
    );
  await outbox.close();
  return EXIT.delivered;
}

/** A progress bar on a terminal (count, rate, time left); plain lines otherwise. */
class Progress {
  private total = 0;
  private done = 0;
  private started = Date.now();
  private drawnAt = 0;
  private drawn = false;

  constructor(
    private readonly io: CliIo,
    private readonly enabled: boolean,
  ) {}

  event(event: DrainEvent): void {
    if (!this.enabled) return;
    switch (event.type) {
      case 'start':
        this.total = event.runs;
        this.started = Date.now();
        return;
      case 'accepted':
        if (event.entry.kind !== 'run') return;
        this.done++;
        if (this.io.isTTY) this.draw();
        else this.io.err(`delivered ${event.entry.id}`);
        return;
      case 'rejected':
        this.line(
          `rejected ${event.entry.kind} ${event.entry.id}: ${event.answer.status} ${String(event.answer.body.error ?? '')}: ${String(event.answer.body.message ?? '')}`,
        );
        return;
      case 'waiting':
        this.line(
          `${event.queued} deliveries not accepted yet (last answer: ${event.message}); retrying in ${event.seconds.toFixed(1)} s`,
        );
        return;
      case 'retry':
        return;
    }
  }

  end(): void {
    if (this.drawn) this.io.errRaw('\n');
    this.drawn = false;
  }

  private line(text: string): void {
    if (this.drawn) this.io.errRaw('\r\x1b[K');
    this.io.err(text);
    if (this.drawn) this.draw(true);
  }

  private draw(force = false): void {
    const now = Date.now();
    if (!force && now - this.drawnAt < 100 && this.done < this.total) return;
    this.drawnAt = now;
    const width = 30;
    const share = this.total ? Math.min(1, this.done / this.total) : 1;
    const rate = this.done / Math.max(0.001, (now - this.started) / 1000);
    const left = rate > 0 ? Math.ceil((this.total - this.done) / rate) : 0;
    const filled = Math.round(share * width);
    this.io.errRaw(
      `\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} runs  ${rate.toFixed(1)}/s  ${left} s left`,
    );
    this.drawn = true;
  }
}
