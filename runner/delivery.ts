// Building the bodies replay-push sends (docs/contract.md §3, §7). A run's summary is cut to 64 KiB, then its patch at
// a line boundary, with a marker line, so the whole body fits the 1 MiB ingest limit. Each body comes with
// the key that identifies its content in the outbox's ledger, so the same content is never queued twice.
import { canonicalJson } from '#shared/canonical-json.ts';
import { MAX_DELIVERY_BYTES, type HiddenTestDelivery, type IssueDelivery, type RunDelivery } from '#schema/delivery.ts';
import type { IssueRecord } from '#schema/issue.ts';
import type { HiddenTestResult } from '#schema/run.ts';
import { sha256Hex } from '#shared/sha256.ts';
import type { PreparedRun } from './run-folder.ts';

export const MAX_SUMMARY_BYTES = 64 * 1024;
export const PATCH_CUT_MARKER = '# replay-push: patch cut to fit the 1 MiB delivery limit\n';

export type DeliveryKind = 'run' | 'issue' | 'hidden-test';

export interface BuiltDelivery {
  kind: DeliveryKind;
  host: string;
  /** Run id, or the taskId of an issue. */
  id: string;
  /** What the ledger remembers: the content's identity (run: id, finishedAt and patch hash). */
  contentKey: string;
  body: string;
  /** Hidden-test results go out only after this run delivery is accepted. */
  after?: string;
  patchTruncated?: boolean;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
/** Bytes a string adds inside a JSON string literal (escapes included, quotes excluded). */
const jsonBytes = (text: string) => bytes(JSON.stringify(text)) - 2;

/** The longest prefix of at most `limit` UTF-8 bytes that does not split a character. */
export function cutToBytes(text: string, limit: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= limit) return text;
  let end = limit;
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}

export const runContentKey = (id: string, finishedAt: string, patchSha256: string) =>
  `run ${id} ${finishedAt} ${patchSha256}`;

/**
 * The patch as sent: whole when the body fits, else the longest run of whole lines that leaves room for
 * the marker. Lines are measured as they will be escaped in JSON, so the body is ≤ the limit exactly.
 */
function fitPatch(
  patch: string,
  bodyWithout: (patch: string, truncated: boolean) => string,
  limit: number,
): { patch: string; truncated: boolean } {
  if (bytes(bodyWithout(patch, false)) <= limit) return { patch, truncated: false };
  let room = limit - bytes(bodyWithout('', true)) - jsonBytes(PATCH_CUT_MARKER);
  const lines = patch.split(/(?<=\n)/);
  let kept = 0;
  for (const line of lines) {
    room -= jsonBytes(line);
    if (room < 0) break;
    kept++;
  }
  // The whole patch plus the marker cannot fit where the patch alone did not, so every kept line ends in \n.
  return { patch: lines.slice(0, kept).join('') + PATCH_CUT_MARKER, truncated: true };
}

export function buildRunDelivery(run: PreparedRun, limit = MAX_DELIVERY_BYTES): BuiltDelivery {
  const summary = cutToBytes(run.summary, MAX_SUMMARY_BYTES);
  const bodyWith = (patch: string | null, patchTruncated: boolean) =>
    JSON.stringify({
      kind: 'run',
      host: run.host,
      id: run.id,
      row: run.row,
      patch,
      patchTruncated,
      summary,
    } satisfies RunDelivery);
  const fitted = run.patch === null ? { patch: null, truncated: false } : fitPatch(run.patch, bodyWith, limit);
  const body = bodyWith(fitted.patch, fitted.truncated);
  if (bytes(body) > limit)
    throw new Error(
      `The delivery of ${run.id} is ${bytes(body)} bytes without its patch: more than the ${limit}-byte limit.`,
    );
  return {
    kind: 'run',
    host: run.host,
    id: run.id,
    contentKey: runContentKey(run.id, run.row.finishedAt, run.patchSha256),
    body,
    patchTruncated: fitted.truncated,
  };
}

/**
 * `sentAt` is set here, once, as the delivery is built for the outbox: every retry sends the same bytes, and the
 * pipeline keeps the record sent last (docs/contract.md §4). It is no part of the content key.
 */
export function buildIssueDelivery(issue: IssueRecord, host: string, sentAt = new Date()): BuiltDelivery {
  return {
    kind: 'issue',
    host,
    id: issue.taskId,
    contentKey: `issue ${issue.taskId} ${sha256Hex(canonicalJson(issue))}`,
    body: JSON.stringify({ kind: 'issue', host, sentAt: sentAt.toISOString(), issue } satisfies IssueDelivery),
  };
}

export function buildHiddenTestDelivery(
  run: Pick<PreparedRun, 'id' | 'host' | 'row' | 'patchSha256'>,
  result: HiddenTestResult,
): BuiltDelivery {
  const { id, host } = run;
  const finishedAt = run.row.finishedAt;
  return {
    kind: 'hidden-test',
    host,
    id,
    contentKey: `hidden-test ${id} ${finishedAt} ${sha256Hex(canonicalJson(result))}`,
    body: JSON.stringify({
      kind: 'hidden-test',
      host,
      id,
      finishedAt,
      hiddenTestResult: result,
    } satisfies HiddenTestDelivery),
    after: runContentKey(id, finishedAt, run.patchSha256),
  };
}
