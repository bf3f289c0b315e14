// The ingest rules of docs/contract.md §3, in order; the first failing check answers. An accepted delivery is
// durably queued before the 202: in its landing message when it fits and the queue is durable (SQS), otherwise
// written to the inbox first (object storage, no size limit) with the message as its claim check.
import { sha256Hex } from '#shared/sha256.ts';
import {
  acceptsV1At,
  keyCandidates,
  mayPublishIssues,
  pinsOfModel,
  repoAllowed,
  spaceOf,
  type ReplayConfig,
  type SpaceConfig,
} from '#schema/config.ts';
import {
  CHECK_KIND,
  checkDeliverySchema,
  deliverySchema,
  ignoredKeys,
  MAX_DELIVERY_BYTES,
  DELIVERY_KINDS,
  type Delivery,
  type IssueDelivery,
} from '#schema/delivery.ts';
import { describeIssues } from '#schema/issues-text.ts';
import { describeRun, runId, runIdentity, sameRun } from '#schema/run-id.ts';
import { queueMessageBody, type InboxEntry } from '#schema/messages.ts';
import { jsonError, type HttpAnswer } from '../http.ts';
import { inboxEntryName, inboxKey } from '../storage-layout.ts';
import { fitsInRow, KEY_BYTES, oversizedKeys, ROW_LIMITS } from '../landing/bounds.ts';
import type {
  Clock,
  IssueOwnerStore,
  KeySource,
  LandingMessage,
  MessageQueue,
  ObjectStore,
  RunStore,
} from '../ports.ts';
import {
  keyBytes,
  presentedSignature,
  SIGNATURE_HEADERS,
  STRONG_KEY_BYTES,
  verifySignature,
  type HostKeys,
  type PresentedSignature,
  type RequestHeaders,
} from '#shared/signature.ts';

export interface IngestDeps {
  config: ReplayConfig;
  keys: KeySource;
  inbox: ObjectStore;
  landingQueue: MessageQueue<LandingMessage>;
  /**
   * A delivery whose landing message is at most this many bytes travels in it, with no inbox object: set where
   * the landing queue is durable (SQS). Absent or 0: every delivery is written to the inbox first (local mode,
   * whose queue lives in memory and whose inbox is replayed on start).
   */
  landingMessageMaxBytes?: number;
  /**
   * Which object keys the object store takes, where it takes less than any key of 1,024 bytes (local mode's S3
   * emulator keeps each part between slashes as a file name): a run whose keys it refuses could never land there.
   */
  objectKeyFits?: (key: string) => boolean;
  /** The run rows, read (consistently) to refuse a run whose id is another run's (docs/contract.md §3 check 7). */
  runs: Pick<RunStore, 'getRun'>;
  issueOwners: IssueOwnerStore;
  clock: Clock;
  /**
   * Told when a host's key could not be read (a secret being deleted, a throttled lookup): that host has no
   * key for this request, every other host is unaffected. Gets the error's name only, never its message.
   */
  unreadableKey?: (host: string, errorName: string) => void;
  /** Told when a host's key that verified is shorter than STRONG_KEY_BYTES: accepted, but the host should be paired anew. */
  weakKey?: (host: string) => void;
  /** Told when only a key shorter than the space's `minKeyBytes` would have verified (answered 401). Never the key. */
  keyTooShort?: (host: string, minKeyBytes: number) => void;
  /**
   * Told which delivery this is as soon as it is known (before the signature is checked), and again with its run
   * id once the body has been read as a run or a hidden-test result: what its log lines are about.
   */
  identified?: (ids: { deliveryId: string; runId?: string }) => void;
}

export interface IngestRequest {
  space: string;
  rawBody: Uint8Array;
  /** The request's headers by lower-case name; those of SIGNATURE_HEADERS are read. */
  headers: RequestHeaders;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function acceptDelivery(deps: IngestDeps, req: IngestRequest): Promise<HttpAnswer> {
  const space = spaceOf(deps.config, req.space);
  if (!space) return jsonError(404, 'unknown-space', `There is no space named "${req.space}".`);

  if (req.rawBody.byteLength > MAX_DELIVERY_BYTES) {
    return jsonError(
      413,
      'too-large',
      `A delivery may be at most ${MAX_DELIVERY_BYTES} bytes; cut the patch and mark it truncated.`,
    );
  }

  const deliveryId = deliveryIdOf(req);
  deps.identified?.({ deliveryId });

  // A signature that can verify nothing here is refused before any key is read: it costs no lookup.
  const presented = presentedSignature(req.headers, req.space);
  if ('problem' in presented) return jsonError(401, 'bad-signature', presented.message, { signature: 'invalid' });
  const refusal = timeRefusal(presented, space, deps.clock.now());
  if (refusal) return refusal;
  const named = await candidateKeys(deps);
  const candidates = byHost(named);
  const minKeyBytes = space.minKeyBytes ?? 0;
  const check = verifySignature(
    req.rawBody,
    presented,
    keysOfLength(candidates, (n) => n >= minKeyBytes),
  );
  if (!check.ok && check.reason === 'no-match' && minKeyBytes) {
    // Said only for the host whose short key for this space signed this, so the space's other short keys, and
    // the host's keys for other spaces, stay quiet.
    const own = byHost(named.filter((k) => k.secretConfigKey === space.secretConfigKey));
    const short = verifySignature(
      req.rawBody,
      presented,
      keysOfLength(own, (n) => n < minKeyBytes),
    );
    if (short.ok) deps.keyTooShort?.(short.host, minKeyBytes);
  }
  if (check.ok && check.keyBytes < STRONG_KEY_BYTES) deps.weakKey?.(check.host);
  if (!check.ok) {
    const why = {
      'no-match': 'No paired host key verifies this signature.',
      ambiguous: 'More than one host key verifies this signature, so the sender cannot be identified.',
    }[check.reason];
    return jsonError(401, 'bad-signature', why, { signature: 'invalid' });
  }
  if (!space.senders.includes(check.host)) {
    return jsonError(403, 'sender-not-listed', `Host "${check.host}" is not a sender of space "${req.space}".`, {
      signature: 'unauthorized',
    });
  }
  const foreignKey = anotherSpacesKey(
    named,
    space,
    check.host,
    (keys) => verifySignature(req.rawBody, presented, [{ host: check.host, keys }]).ok,
  );
  if (foreignKey === UNREAD) {
    // Not the other space's key for sure: this space's key of the host may be the same, and was not read.
    return jsonError(
      503,
      'key-unreadable',
      `Host "${check.host}"'s key for space "${req.space}" could not be read just now; send the delivery again.`,
      { signature: 'invalid' },
    );
  }
  if (foreignKey) {
    return jsonError(
      403,
      'key-of-another-space',
      `Host "${check.host}" signed with its key under "${foreignKey}"; space "${req.space}" verifies its senders ` +
        `with their keys under "${space.secretConfigKey}". Pair the host for this space.`,
      { signature: 'unauthorized' },
    );
  }

  const parsed = parseDelivery(req.rawBody, check.host);
  if (!parsed.ok) {
    return jsonError(400, 'invalid-delivery', parsed.message, { signature: 'verified', details: parsed.details });
  }
  // A check has proved the key and the listing; it changes nothing.
  if (!('delivery' in parsed)) return { status: 200, body: { signature: 'verified', host: check.host } };
  const ahead = timesAhead(parsed.delivery, deps.clock.now(), space.timestampToleranceSeconds);
  if (ahead.length) {
    // A time to come would order this delivery after every real one: a later delivery of the run would be stale.
    // Not yet, rather than never: a run recorded while its host's clock ran fast is taken once that time has come.
    const message = `The delivery holds a time more than ${space.timestampToleranceSeconds} s ahead of the endpoint's clock; it is taken once the clock reaches it. Set the host's clock (NTP).`;
    return jsonError(425, 'times-ahead', message, { signature: 'verified', details: ahead });
  }
  if (parsed.delivery.kind !== 'issue') deps.identified?.({ deliveryId, runId: parsed.delivery.id });
  if (parsed.delivery.kind === 'run' && !fitsInRow(parsed.delivery.row)) {
    // Refused now rather than accepted and then lost: the row could not be stored (docs/contract.md §4 bounds).
    return jsonError(
      400,
      'row-too-large',
      `The run's row would exceed ${ROW_LIMITS.rowBytes} bytes even with its contamination list bounded; shorten its texts.`,
      { signature: 'verified' },
    );
  }
  const oversized = oversizedKeys(req.space, parsed.delivery, deps.objectKeyFits);
  if (oversized.length) {
    // The id is percent-encoded in some keys (9 bytes a CJK character): refused now, or it could never land.
    const names = parsed.delivery.kind === 'issue' ? "the task id's" : "the run id's (model, task id, harness)";
    return jsonError(
      400,
      'id-too-long',
      `The delivery would need keys longer than the stores take (${KEY_BYTES} bytes, or a part between slashes ` +
        `longer than this object store keeps); shorten ${names} text.`,
      { signature: 'verified', details: oversized },
    );
  }
  if (parsed.delivery.kind === 'issue' && !repoAllowed(space, parsed.delivery.issue.repo)) {
    const { repo } = parsed.delivery.issue;
    return jsonError(
      400,
      'repo-not-allowed',
      `Space "${req.space}" does not list repository ${repo} in its "repos"; the issue record was refused.`,
      { signature: 'verified' },
    );
  }

  const stored = parsed.delivery.kind === 'run' ? await deps.runs.getRun(req.space, parsed.delivery.id) : null;
  if (
    parsed.delivery.kind === 'run' &&
    stored &&
    stored.value.host === check.host &&
    !sameRun(stored.value, parsed.delivery.row)
  ) {
    // Another run of this host has this id (its model differs by ":" or "/" against "_"): nothing of it is
    // replaced (§4). Another host's row is never a reason to refuse: landing keeps such a run apart.
    const [storedRun, deliveredRun] = [runIdentity(stored.value), runIdentity(parsed.delivery.row)];
    return jsonError(
      409,
      'id-collision',
      `Run id ${parsed.delivery.id} is already the run of ${describeRun(storedRun)}; this delivery is the run of ${describeRun(deliveredRun)}. Rename the model or the harness version so that their ids differ.`,
      { signature: 'verified', stored: storedRun, delivered: deliveredRun },
    );
  }
  const notOwner =
    parsed.delivery.kind === 'issue' &&
    (await issueOwnershipRefusal(deps, req.space, space, check.host, parsed.delivery));
  if (notOwner) return jsonError(403, 'not-owner', notOwner, { signature: 'verified' });

  const entry: InboxEntry = {
    space: req.space,
    deliveryId,
    receivedAt: deps.clock.now().toISOString(),
    host: check.host,
    delivery: parsed.delivery,
    // Who may own a run of a pinned model is read here, where the configuration is, and travels with the entry.
    ...(parsed.delivery.kind === 'run' && pinnedHosts(space, parsed.delivery.row.model)),
  };
  await enqueueForLanding(deps, req, check.host, entry);

  const id = parsed.delivery.kind === 'issue' ? parsed.delivery.issue.taskId : parsed.delivery.id;
  return { status: 202, body: { signature: 'verified', id, status: 'queued', ignored: parsed.ignored } };
}

/** Each time of the delivery that orders it against others (§4) and lies ahead of `now` by more than the tolerance. */
function timesAhead(delivery: Delivery, now: Date, toleranceSeconds: number): string[] {
  const times: Record<string, string> =
    delivery.kind === 'run'
      ? { 'row.startedAt': delivery.row.startedAt, 'row.finishedAt': delivery.row.finishedAt }
      : delivery.kind === 'hidden-test'
        ? { finishedAt: delivery.finishedAt, 'hiddenTestResult.ranAt': delivery.hiddenTestResult.ranAt }
        : { sentAt: delivery.sentAt };
  const latest = now.getTime() + toleranceSeconds * 1000;
  return Object.entries(times)
    .filter(([, at]) => Date.parse(at) > latest)
    .map(([field, at]) => `${field}: ${at} is ahead of the endpoint's clock (${now.toISOString()})`);
}

/** `X-Replay-Delivery` when it is a UUID, else the SHA-256 of the body (docs/contract.md §3). */
function deliveryIdOf(req: IngestRequest): string {
  const header = req.headers[SIGNATURE_HEADERS.delivery]?.trim();
  return header && UUID.test(header) ? header.toLowerCase() : sha256Hex(req.rawBody);
}

/**
 * The 202's promise kept: once this returns, the delivery is durably queued. One that fits travels in the landing
 * message itself (SQS keeps it until it lands, or sets it aside in the dead-letter queue); a larger one, or any
 * where the queue is not durable (local mode), is written to the inbox first and the message carries its key.
 */
async function enqueueForLanding(deps: IngestDeps, req: IngestRequest, host: string, entry: InboxEntry) {
  const inline: LandingMessage = { space: req.space, entry, deliveryId: entry.deliveryId };
  if (deps.landingMessageMaxBytes && Buffer.byteLength(queueMessageBody(inline)) <= deps.landingMessageMaxBytes) {
    await deps.landingQueue.send(inline);
    return;
  }
  // Create-only: an entry already under this key is this very body from this host, stored by an earlier
  // attempt, so it is answered 202 again and queued again (landing is idempotent).
  const key = inboxKey(req.space, inboxEntryName(host, sha256Hex(req.rawBody)));
  await deps.inbox.putIfAbsent(key, JSON.stringify(entry), 'application/json');
  await deps.landingQueue.send({ space: req.space, inboxKey: key, deliveryId: entry.deliveryId });
}

/**
 * Why a signature is refused for its time before any key is read (401), or null: a v2 timestamp further from the
 * clock than the space's tolerance, or a v1 signature (which binds no time) outside the space's migration window.
 */
function timeRefusal(presented: PresentedSignature, space: SpaceConfig, now: Date): HttpAnswer | null {
  if (presented.version === 1) {
    if (acceptsV1At(space, now)) return null;
    const window = space.acceptV1Until ? `its migration window ended with ${space.acceptV1Until}` : 'it has none';
    return jsonError(
      401,
      'bad-signature',
      `This space takes only v2 signatures (X-Replay-Signature): ${window}. Update replay-push.`,
      { signature: 'invalid' },
    );
  }
  const offBy = presented.timestamp - Math.floor(now.getTime() / 1000);
  if (Math.abs(offBy) <= space.timestampToleranceSeconds) return null;
  return jsonError(
    401,
    'stale',
    `X-Replay-Timestamp is ${Math.abs(offBy)} s ${offBy < 0 ? 'behind' : 'ahead of'} the endpoint's clock; at most ` +
      `${space.timestampToleranceSeconds} s is taken. Sign each attempt when it is sent, and set the host's clock (NTP).`,
    { signature: 'invalid' },
  );
}

/**
 * One host, its own data (docs/contract.md §3 check 7): an issue record belongs to its space's publishers and, among
 * them, to the first that published the task. A sentence saying why, or null when the host may write. A run of
 * another host's id is accepted and kept apart at landing as a foreign attempt (§4), never refused.
 */
async function issueOwnershipRefusal(
  deps: IngestDeps,
  spaceName: string,
  space: SpaceConfig,
  host: string,
  delivery: IssueDelivery,
): Promise<string | null> {
  const { taskId } = delivery.issue;
  if (!mayPublishIssues(space, host))
    return `Space "${spaceName}" takes issue records only from ${space.issuePublishers!.map((h) => `"${h}"`).join(', ')}; host "${host}" is not one of them.`;
  const owner = await deps.issueOwners.claimIssue(spaceName, taskId, host);
  return owner === host
    ? null
    : `The issue record of task ${taskId} is published by host "${owner}"; host "${host}" may not replace it.`;
}

/**
 * The hosts a space pins a model to (`hostsByModel`, by what its name reads as), as the inbox entry's `owners`, and
 * whether the model is named as pinned (not a look-alike of the name); or none.
 */
const pinnedHosts = (space: SpaceConfig, model: string): { owners: string[]; pinnedName: boolean } | null => {
  const pins = pinsOfModel(space, model);
  const owners = pins.flatMap(([, hosts]) => hosts);
  return owners.length ? { owners: [...new Set(owners)], pinnedName: pins.some(([pinned]) => pinned === model) } : null;
};

/** A host's keys under one `secretConfigKey`; `unread` where the lookup failed (then `keys` is empty). */
type NamedKeys = HostKeys & { secretConfigKey: string; unread?: true };

/** What anotherSpacesKey answers when the host's key under the space's own name could not be read. */
const UNREAD = Symbol('unread');

/** Every candidate host's keys under each `secretConfigKey` it is paired for, looked up concurrently. */
async function candidateKeys(deps: IngestDeps): Promise<NamedKeys[]> {
  return Promise.all(
    keyCandidates(deps.config).map(async ({ secretConfigKey, host }) => {
      try {
        return { secretConfigKey, host, keys: await deps.keys.keysFor(secretConfigKey, host) };
      } catch (error) {
        // One host's broken secret never refuses another host's delivery (docs/contract.md §3).
        deps.unreadableKey?.(host, (error as Error).name ?? 'Error');
        return { secretConfigKey, host, keys: [], unread: true as const };
      }
    }),
  );
}

/** Each host with all its keys: a signature names its host whichever space's key it was made with. */
function byHost(named: NamedKeys[]): HostKeys[] {
  const keysOf = new Map<string, string[]>();
  for (const { host, keys } of named) keysOf.set(host, [...(keysOf.get(host) ?? []), ...keys]);
  return [...keysOf].map(([host, keys]) => ({ host, keys }));
}

/**
 * The `secretConfigKey` of another space whose key of `host` made the signature, when none of `host`'s keys under
 * the space's own does; UNREAD when those could not be read; else null. A key paired for one space never signs for
 * another (§3 "Keys").
 */
function anotherSpacesKey(
  named: NamedKeys[],
  space: SpaceConfig,
  host: string,
  signs: (keys: string[]) => boolean,
): string | typeof UNREAD | null {
  const others = named.filter((k) => k.host === host && k.secretConfigKey !== space.secretConfigKey);
  if (others.length === 0) return null;
  const own = named.find((k) => k.host === host && k.secretConfigKey === space.secretConfigKey);
  const minKeyBytes = space.minKeyBytes ?? 0;
  if (signs((own?.keys ?? []).filter((key) => keyBytes(key) >= minKeyBytes))) return null;
  if (own?.unread) return UNREAD;
  return (others.find((k) => signs(k.keys)) ?? others[0]!).secretConfigKey;
}

/** Each host with only those of its keys whose UTF-8 length passes `keep`. */
const keysOfLength = (candidates: HostKeys[], keep: (bytes: number) => boolean): HostKeys[] =>
  candidates.map(({ host, keys }) => ({ host, keys: keys.filter((key) => keep(keyBytes(key))) }));

type Parsed =
  | { ok: true; delivery: Delivery; ignored: string[] }
  | { ok: true; check: true }
  | { ok: false; message: string; details: string[] };

/** Shape check plus the identity rules: the body and row name the verifying host, and the id is the row's own. */
export function parseDelivery(rawBody: Uint8Array, verifiedHost: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(rawBody).toString('utf8'));
  } catch (e) {
    return { ok: false, message: 'The body is not valid JSON.', details: [(e as Error).message] };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, message: 'The body must be a JSON object.', details: [] };
  }
  const kind = (json as Record<string, unknown>).kind;
  if (kind === CHECK_KIND) return parseCheck(json, verifiedHost);
  if (!DELIVERY_KINDS.includes(kind as never)) {
    return {
      ok: false,
      message: `Unknown delivery kind ${JSON.stringify(kind)}; expected one of ${[...DELIVERY_KINDS, CHECK_KIND].join(', ')}.`,
      details: ['kind'],
    };
  }
  const result = deliverySchema.safeParse(json);
  if (!result.success) {
    return {
      ok: false,
      message: `The ${String(kind)} delivery has the wrong shape.`,
      details: describeIssues(result.error.issues),
    };
  }
  const delivery = result.data;
  const mismatch: string[] = [];
  if (delivery.host !== verifiedHost)
    mismatch.push(`host: the body names "${delivery.host}" but the signature is "${verifiedHost}"'s`);
  if (delivery.kind === 'run') {
    if (delivery.row.host !== verifiedHost)
      mismatch.push(`row.host: the row names "${delivery.row.host}" but the signature is "${verifiedHost}"'s`);
    const expected = runId(delivery.row);
    if (delivery.id !== expected) mismatch.push(`id: "${delivery.id}" is not the row's own id "${expected}"`);
  }
  if (mismatch.length)
    return { ok: false, message: 'The delivery does not match its signer or its own row.', details: mismatch };
  return { ok: true, delivery, ignored: ignoredKeys(json as Record<string, unknown>) };
}

function parseCheck(json: unknown, verifiedHost: string): Parsed {
  const result = checkDeliverySchema.safeParse(json);
  if (!result.success)
    return {
      ok: false,
      message: 'The check delivery has the wrong shape.',
      details: describeIssues(result.error.issues),
    };
  if (result.data.host !== verifiedHost)
    return {
      ok: false,
      message: 'The delivery does not match its signer.',
      details: [`host: the body names "${result.data.host}" but the signature is "${verifiedHost}"'s`],
    };
  return { ok: true, check: true };
}
