// The outbox (docs/contract.md §7): a folder on the runner host where every delivery is written, durably, before it is
// sent, so nothing is lost to a crash, a reboot or an endpoint that is down.
//
//   pending/<order>-<delivery id>.json   one delivery: a JSON head line, then the exact body to sign
//   rejected/<same name>                 a delivery the endpoint refused for good, with <name>.answer.json
//   ledger.jsonl                         the content keys the endpoint accepted (appended, fsynced)
//   state.json                           per host: last error, last accepted delivery (for `status`)
//
// Writes are temp file + fsync + rename (+ fsync of the folder), so a file is either whole or absent. An
// accepted delivery is first added to the ledger, then its file removed: a crash in between leaves a file
// whose key the ledger already has, and it is dropped unsent at the next start. A crash between the 202
// and the ledger resends it with the same X-Replay-Delivery id, which the pipeline counts once.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuiltDelivery, DeliveryKind } from './delivery.ts';

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
  ) {}

  static async open(dir: string): Promise<Outbox> {
    await mkdir(join(dir, PENDING), { recursive: true, mode: 0o700 });
    await mkdir(join(dir, REJECTED), { recursive: true, mode: 0o700 });
    // Temp files of a writer that died before its rename never became deliveries.
    for (const folder of [dir, join(dir, PENDING), join(dir, REJECTED)]) {
      for (const name of await readdir(folder))
        if (name.includes(TEMP_MARK)) await rm(join(folder, name), { force: true });
    }
    const ledger = await readFile(join(dir, LEDGER), 'utf8').catch(() => '');
    const accepted = new Set(readLines(ledger).map((r) => (r as { contentKey: string }).contentKey));
    const rejected = new Set<string>();
    for (const name of await readdir(join(dir, REJECTED))) {
      if (!name.endsWith('.answer.json')) continue;
      const record = JSON.parse(await readFile(join(dir, REJECTED, name), 'utf8')) as RejectedRecord;
      rejected.add(record.contentKey);
    }
    const state = await readFile(join(dir, STATE), 'utf8').catch(() => '{}');
    return new Outbox(dir, accepted, rejected, JSON.parse(state) as Record<string, HostState>);
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
        const text = await readFile(join(this.dir, PENDING, name), 'utf8').catch(() => null);
        if (text === null) continue; // sent and removed meanwhile by another replay-push
        const entry = { ...(JSON.parse(text.slice(0, text.indexOf('\n'))) as OutboxEntry), name };
        if (this.accepted.has(entry.contentKey)) await unlink(join(this.dir, PENDING, name)).catch(() => {});
        else this.queued.set(name, entry);
      }
    }
    return [...this.queued.values()];
  }

  /** The exact bytes to sign and send, as stored. */
  async body(entry: OutboxEntry): Promise<Buffer> {
    const stored = await readFile(join(this.dir, PENDING, entry.name));
    return stored.subarray(stored.indexOf(0x0a) + 1);
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

  noteError(host: string, message: string, at = new Date()): void {
    this.hostState(host).lastError = { at: at.toISOString(), message };
  }

  async rejectedRecords(): Promise<RejectedRecord[]> {
    const names = (await readdir(join(this.dir, REJECTED))).filter((n) => n.endsWith('.answer.json')).sort();
    return Promise.all(
      names.map(async (n) => JSON.parse(await readFile(join(this.dir, REJECTED, n), 'utf8')) as RejectedRecord),
    );
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
