// The outbox (docs/contract.md §7): every delivery is written durably on the runner host before it is sent:
// `pending/<order>-<id>.json` (a JSON head line, then the exact body to sign), `rejected/` (refused for good, with
// the answer), `ledger.jsonl` (content keys accepted, fsynced) and `state.json` (for `status`). Writes are temp
// file + fsync + rename, so a file is whole or absent; an accepted delivery enters the ledger before its file is
// removed, so a crash in between drops it unsent at the next start. What is here gets signed, so the folders must
// be this user's own, 0700, and every file is read with readFileSafely (no link, FIFO or oversize file).
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { deliverySchema, MAX_DELIVERY_BYTES } from '#schema/delivery.ts';
import { describeIssues } from '#schema/issues-text.ts';
import * as z from '#schema/zod.ts';
import type { BuiltDelivery, DeliveryKind } from './delivery.ts';
import { JsonTextError, parseJsonText } from './json-text.ts';
import { readFileSafely, UnsafeFileError } from './safe-read.ts';
import { cutText } from './untrusted-text.ts';

export interface OutboxEntry {
  name: string;
  deliveryId: string;
  kind: DeliveryKind;
  host: string;
  id: string;
  contentKey: string;
  after?: string;
  patchTruncated?: boolean;
  queuedAt: string;
}

export interface ServerAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface HostState {
  lastError: { at: string; message: string } | null;
  lastAcceptedAt: string | null;
}

export interface RejectedRecord {
  contentKey: string;
  kind: DeliveryKind;
  id: string;
  host: string;
  rejectedAt: string;
  answer: ServerAnswer;
}

const PENDING = 'pending';
const REJECTED = 'rejected';
const LEDGER = 'ledger.jsonl';
const STATE = 'state.json';
const TEMP_MARK = '.tmp-';
const MIB = 1024 * 1024;
/** A queued delivery: its head line (a few hundred bytes) and a body of at most 1 MiB. */
const MAX_PENDING_BYTES = MAX_DELIVERY_BYTES + 64 * 1024;
/** About 250 bytes a line: some two million accepted deliveries. */
const MAX_LEDGER_BYTES = 512 * MIB;
const MAX_RECORD_BYTES = 4 * MIB;

/** The outbox cannot be used as it is: exit 2, with the sentence (naming the file, never showing its content). */
export class OutboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboxError';
  }
}

const outboxEntrySchema = z.object({
  deliveryId: z.string().check(z.regex(/^[0-9a-f-]{36}$/)),
  kind: z.enum(['run', 'issue', 'hidden-test']),
  host: z.string().check(z.minLength(1)),
  id: z.string().check(z.minLength(1)),
  contentKey: z.string().check(z.minLength(1)),
  after: z.optional(z.string()),
  patchTruncated: z.optional(z.boolean()),
  queuedAt: z.string(),
});

/** A real directory of this user's that nobody else can write: a planted or linked outbox would get its files signed. */
async function checkFolder(dir: string): Promise<void> {
  const stats = await lstat(dir);
  if (stats.isSymbolicLink())
    throw new OutboxError(
      `The outbox folder ${dir} is a symbolic link: the outbox is used where it is, never through a link.`,
    );
  if (!stats.isDirectory()) throw new OutboxError(`The outbox folder ${dir} is not a directory.`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid)
    throw new OutboxError(
      `The outbox folder ${dir} belongs to another user (uid ${stats.uid}): what is ` +
        `queued there would be signed with this host's key. Use an outbox of your own (--outbox).`,
    );
  if (stats.mode & 0o022)
    throw new OutboxError(
      `The outbox folder ${dir} can be written by other users (mode ${(stats.mode & 0o777).toString(8)}): run \`chmod 700 ${dir}\`.`,
    );
}

function parseRecord<T extends z.ZodMiniType>(schema: T, text: string, path: string): z.output<T> {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonTextError) throw new OutboxError(`${path} ${error.message}.`);
    throw error;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new OutboxError(`${path}: ${describeIssues(parsed.error.issues).join('; ')}`);
  return parsed.data;
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes the file whole or not at all (the caller fsyncs the folder once for a batch). */
async function writeDurably(path: string, data: string): Promise<void> {
  const temp = `${path}${TEMP_MARK}${process.pid}-${randomUUID()}`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

function readLines(text: string): unknown[] {
  // A torn last line (the process died mid-append) is not a record: skipped.
  return text.split('\n').flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line) as unknown] : [];
    } catch {
      return [];
    }
  });
}

const rejectedRecordSchema = z.object({
  contentKey: z.string(),
  kind: z.enum(['run', 'issue', 'hidden-test']),
  id: z.string(),
  host: z.string(),
  rejectedAt: z.string(),
  answer: z.object({ status: z.number(), body: z.record(z.string(), z.unknown()) }),
});

const statesSchema = z.record(
  z.string(),
  z.object({
    lastError: z.nullable(z.object({ at: z.string(), message: z.string() })),
    lastAcceptedAt: z.nullable(z.string()),
  }),
);

/** A file of the outbox, read inside it (never through a link, never a FIFO, never beyond `maxBytes`); null if absent. */
async function readOutboxFile(dir: string, name: string, maxBytes: number): Promise<Buffer | null> {
  try {
    return (await readFileSafely(join(dir, name), { within: dir, maxBytes }))?.bytes ?? null;
  } catch (error) {
    if (error instanceof UnsafeFileError) throw new OutboxError(error.message);
    throw error;
  }
}

/** A queued file's head line, checked against its body: a delivery of that kind and host, as the ingest would parse it. */
function queuedEntry(text: string, path: string, name: string): OutboxEntry {
  const head = text.indexOf('\n');
  if (head < 0) throw new OutboxError(`${path} has no head line: it is not a delivery replay-push queued.`);
  const entry: OutboxEntry = { ...parseRecord(outboxEntrySchema, text.slice(0, head), path), name };
  const delivery = parseRecord(deliverySchema, text.slice(head + 1), path);
  if (delivery.kind !== entry.kind || delivery.host !== entry.host)
    throw new OutboxError(
      `${path} holds a ${delivery.kind} delivery of host "${delivery.host}", not the ${entry.kind} of "${entry.host}" its head line names.`,
    );
  return entry;
}

const readInside = async (dir: string, name: string, maxBytes: number) =>
  (await readOutboxFile(dir, name, maxBytes))?.toString('utf8') ?? null;

/**
 * The per-host state. One over its cap (an older replay-push kept whole answers in it, and a 5 MiB one made every
 * later command exit 2) is set aside beside it and rebuilt from the ledger: each host's last acceptance, no last
 * error. A link, or a file that is not JSON, is still refused like any file of the outbox.
 */
async function readStates(
  dir: string,
  ledger: unknown[],
): Promise<{ states: Record<string, HostState>; warnings: string[] }> {
  const path = join(dir, STATE);
  const stats = await lstat(path).catch(() => null);
  if (!stats?.isFile() || stats.size <= MAX_RECORD_BYTES) {
    const text = (await readInside(dir, STATE, MAX_RECORD_BYTES)) ?? '{}';
    return { states: parseRecord(statesSchema, text, path) as Record<string, HostState>, warnings: [] };
  }
  const aside = join(dir, `state.set-aside-${Date.now()}.json`);
  await rename(path, aside);
  const states: Record<string, HostState> = {};
  for (const record of ledger) {
    const { host, acceptedAt } = (record ?? {}) as { host?: unknown; acceptedAt?: unknown };
    if (typeof host !== 'string' || typeof acceptedAt !== 'string') continue;
    const state = (states[host] ??= { lastError: null, lastAcceptedAt: null });
    if (state.lastAcceptedAt === null || acceptedAt > state.lastAcceptedAt) state.lastAcceptedAt = acceptedAt;
  }
  return {
    states,
    warnings: [
      `${path} was ${stats.size} bytes, over its ${MAX_RECORD_BYTES / MIB} MiB cap: set aside as ${aside} and ` +
        'rebuilt from the ledger (last acceptances kept, last errors cleared).',
    ],
  };
}

export class Outbox {
  private ledgerHandle: FileHandle | null = null;
  private ledgerWaiting: { line: string; done: (error?: unknown) => void }[] = [];
  private ledgerFlushing: Promise<void> | null = null;
  private sequence = 0;
  /** The pending folder's entries, read once and then kept in step with this process's own changes. */
  private queued: Map<string, OutboxEntry> | null = null;

  private constructor(
    readonly dir: string,
    private readonly accepted: Set<string>,
    private readonly rejectedKeys: Set<string>,
    private readonly states: Record<string, HostState>,
    /** What opening had to repair, one sentence each, for the command to print as warnings. */
    readonly warnings: string[],
  ) {}

  static async open(dir: string): Promise<Outbox> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await checkFolder(dir);
    for (const sub of [PENDING, REJECTED]) {
      await mkdir(join(dir, sub), { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      await checkFolder(join(dir, sub));
    }
    // Temp files of a writer that died before its rename never became deliveries.
    for (const folder of [dir, join(dir, PENDING), join(dir, REJECTED)]) {
      for (const name of await readdir(folder))
        if (name.includes(TEMP_MARK)) await rm(join(folder, name), { force: true });
    }
    const ledger = readLines((await readInside(dir, LEDGER, MAX_LEDGER_BYTES)) ?? '');
    const accepted = new Set(
      ledger.flatMap((r) => {
        const key = (r as { contentKey?: unknown } | null)?.contentKey;
        return typeof key === 'string' ? [key] : [];
      }),
    );
    const rejected = new Set<string>();
    for (const name of await readdir(join(dir, REJECTED))) {
      if (!name.endsWith('.answer.json')) continue;
      const text = await readInside(dir, join(REJECTED, name), MAX_RECORD_BYTES);
      if (text !== null) rejected.add(parseRecord(rejectedRecordSchema, text, join(dir, REJECTED, name)).contentKey);
    }
    const { states, warnings } = await readStates(dir, ledger);
    return new Outbox(dir, accepted, rejected, states, warnings);
  }

  isAccepted = (contentKey: string) => this.accepted.has(contentKey);
  isRejected = (contentKey: string) => this.rejectedKeys.has(contentKey);
  get acceptedCount() {
    return this.accepted.size;
  }

  /** Writes each delivery to pending/ durably, in the given order, before anything is sent. */
  async enqueue(deliveries: BuiltDelivery[], now = new Date()): Promise<OutboxEntry[]> {
    const entries = await Promise.all(
      deliveries.map(async (d, i) => {
        const deliveryId = randomUUID();
        const order = `${String(now.getTime()).padStart(14, '0')}-${process.pid}-${String(this.sequence + i).padStart(8, '0')}`;
        const entry: OutboxEntry = {
          name: `${order}-${deliveryId}.json`,
          deliveryId,
          kind: d.kind,
          host: d.host,
          id: d.id,
          contentKey: d.contentKey,
          ...(d.after ? { after: d.after } : {}),
          ...(d.patchTruncated !== undefined ? { patchTruncated: d.patchTruncated } : {}),
          queuedAt: now.toISOString(),
        };
        await writeDurably(join(this.dir, PENDING, entry.name), `${JSON.stringify(entry)}\n${d.body}`);
        return entry;
      }),
    );
    this.sequence += deliveries.length;
    if (entries.length) await fsyncPath(join(this.dir, PENDING));
    if (this.queued) for (const entry of entries) this.queued.set(entry.name, entry);
    return entries;
  }

  /** Every queued delivery, oldest first. Those whose content the ledger already has are dropped unsent. */
  async pending(): Promise<OutboxEntry[]> {
    if (!this.queued) {
      this.queued = new Map();
      for (const name of (await readdir(join(this.dir, PENDING))).filter((n) => n.endsWith('.json')).sort()) {
        const text = await readInside(this.dir, join(PENDING, name), MAX_PENDING_BYTES);
        if (text === null) continue; // sent and removed meanwhile by another replay-push
        const entry = queuedEntry(text, join(this.dir, PENDING, name), name);
        if (this.accepted.has(entry.contentKey)) await unlink(join(this.dir, PENDING, name)).catch(() => {});
        else this.queued.set(name, entry);
      }
    }
    return [...this.queued.values()];
  }

  /** The exact bytes to sign and send, as stored (checked by `pending()` when this process did not write them). */
  async body(entry: OutboxEntry): Promise<Buffer> {
    const read = await readOutboxFile(this.dir, join(PENDING, entry.name), MAX_PENDING_BYTES);
    if (!read) throw new OutboxError(`${join(this.dir, PENDING, entry.name)} disappeared before it was sent.`);
    return read.subarray(read.indexOf(0x0a) + 1);
  }

  /** Ledger first (durably), then the file: a crash in between is healed by `pending()`. */
  async markAccepted(entry: OutboxEntry, at = new Date()): Promise<void> {
    await this.appendLedger(
      JSON.stringify({
        contentKey: entry.contentKey,
        kind: entry.kind,
        id: entry.id,
        host: entry.host,
        deliveryId: entry.deliveryId,
        acceptedAt: at.toISOString(),
      }),
    );
    this.accepted.add(entry.contentKey);
    await unlink(join(this.dir, PENDING, entry.name)).catch(() => {});
    this.queued?.delete(entry.name);
    this.hostState(entry.host).lastAcceptedAt = at.toISOString();
  }

  /** Sets the delivery aside with the server's answer beside it; its content is never queued again. */
  async markRejected(entry: OutboxEntry, answer: ServerAnswer, at = new Date()): Promise<void> {
    const record: RejectedRecord = {
      contentKey: entry.contentKey,
      kind: entry.kind,
      id: entry.id,
      host: entry.host,
      rejectedAt: at.toISOString(),
      answer,
    };
    await writeDurably(
      join(this.dir, REJECTED, entry.name.replace(/\.json$/, '.answer.json')),
      `${JSON.stringify(record, null, 2)}\n`,
    );
    await rename(join(this.dir, PENDING, entry.name), join(this.dir, REJECTED, entry.name)).catch(() => {});
    await fsyncPath(join(this.dir, REJECTED));
    this.rejectedKeys.add(entry.contentKey);
    this.queued?.delete(entry.name);
  }

  /** Keeps a host's last error, cut to MAX_ANSWER_TEXT characters: it may quote an endpoint's answer. */
  noteError(host: string, message: string, at = new Date()): void {
    this.hostState(host).lastError = { at: at.toISOString(), message: cutText(message) };
  }

  async rejectedRecords(): Promise<RejectedRecord[]> {
    const names = (await readdir(join(this.dir, REJECTED))).filter((n) => n.endsWith('.answer.json')).sort();
    const records = await Promise.all(
      names.map(async (n) => {
        const text = await readInside(this.dir, join(REJECTED, n), MAX_RECORD_BYTES);
        return text === null
          ? []
          : [parseRecord(rejectedRecordSchema, text, join(this.dir, REJECTED, n)) as RejectedRecord];
      }),
    );
    return records.flat();
  }

  hostStates(): Readonly<Record<string, HostState>> {
    return this.states;
  }

  /** Saves the per-host state and releases the ledger. */
  async close(): Promise<void> {
    await this.ledgerFlushing;
    await this.ledgerHandle?.close();
    this.ledgerHandle = null;
    await writeDurably(join(this.dir, STATE), `${JSON.stringify(this.states, null, 2)}\n`);
  }

  private hostState(host: string): HostState {
    return (this.states[host] ??= { lastError: null, lastAcceptedAt: null });
  }

  /** Group commit: lines that arrive while a write is in flight share the next write and fsync. */
  private appendLedger(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ledgerWaiting.push({ line, done: (error) => (error ? reject(error) : resolve()) });
      this.ledgerFlushing ??= this.flushLedger();
    });
  }

  private async flushLedger(): Promise<void> {
    while (this.ledgerWaiting.length) {
      const batch = this.ledgerWaiting.splice(0);
      try {
        this.ledgerHandle ??= await open(join(this.dir, LEDGER), 'a', 0o600);
        await this.ledgerHandle.appendFile(batch.map((b) => `${b.line}\n`).join(''));
        await this.ledgerHandle.datasync();
        batch.forEach((b) => b.done());
      } catch (error) {
        batch.forEach((b) => b.done(error));
      }
    }
    // Cleared in the same tick as the empty check, so a line appended from now on starts a new flush.
    this.ledgerFlushing = null;
  }
}
