// The row bounds of docs/contract.md §4. A DynamoDB item holds at most 400 KB, and an accepted delivery must never fail
// to land on that limit: the row keeps the first contamination entries (cut texts) and the last delivery
// ids, with the full counts beside them; the whole contamination list goes to the run's objects, and so do the
// test names of a hidden-test result past their share of the row. Ingest refuses, with a 400, the one delivery
// whose row would still not fit, and one whose id or task id would make a key longer than the stores take.
import type { Delivery } from '#schema/delivery.ts';
import type { HiddenTestResult, RunRow, RunnerRow } from '#schema/run.ts';
import {
  attemptKey,
  auditKey,
  byUpdatedKey,
  contaminationKey,
  issueByUpdatedKey,
  issueKey,
  pendingHiddenTestKey,
  runKey,
  runTextsKey,
  testsKey,
} from '../storage-layout.ts';

export const ROW_LIMITS = {
  contaminationEntries: 100,
  contaminationText: 300,
  deliveryIds: 20,
  /** The hidden-test result's test names (their JSON); longer lists are kept beside the row. */
  testNamesBytes: 32 * 1024,
  /** Well under DynamoDB's 400 KB item limit, leaving room for the judge's fields and the index attributes. */
  rowBytes: 300_000,
} as const;

type Contamination = RunnerRow['contamination'];

const cut = (text: string) =>
  text.length > ROW_LIMITS.contaminationText ? text.slice(0, ROW_LIMITS.contaminationText) : text;

/** The entries a row keeps; `complete` is false when the full list must be read from the run's objects. */
export function boundedContamination(list: Contamination): { kept: Contamination; complete: boolean } {
  const kept = list
    .slice(0, ROW_LIMITS.contaminationEntries)
    .map((c) => ({ ...c, path: cut(c.path), ...(c.reason !== undefined ? { reason: cut(c.reason) } : {}) }));
  const complete =
    list.length === kept.length && kept.every((c, i) => c.path === list[i]!.path && c.reason === list[i]!.reason);
  return { kept, complete };
}

/** The last delivery ids, this one included once. */
export function recentDeliveries(ids: string[], deliveryId: string): string[] {
  const all = ids.includes(deliveryId) ? ids : [...ids, deliveryId];
  return all.slice(-ROW_LIMITS.deliveryIds);
}

/** Bytes of the row as stored (JSON is within a few percent of DynamoDB's own item size). */
export const rowBytes = (row: Partial<RunRow>) => Buffer.byteLength(JSON.stringify(row));

/** Whether a runner row, once bounded, fits in the table; ingest refuses the delivery otherwise. */
export function fitsInRow(row: RunnerRow): boolean {
  return rowBytes({ ...row, contamination: boundedContamination(row.contamination).kept }) <= ROW_LIMITS.rowBytes;
}

/** The test names of a hidden-test result as one JSON object, or null when it names none. */
export function testNamesJson(result: HiddenTestResult): string | null {
  const { failedTests, passedTests } = result;
  return failedTests === undefined && passedTests === undefined ? null : JSON.stringify({ failedTests, passedTests });
}

/** Whether the row can keep the result's test names itself. */
export const rowKeepsTestNames = (names: string) => Buffer.byteLength(names) <= ROW_LIMITS.testNamesBytes;

/** DynamoDB's sort keys and S3's object keys hold at most 1,024 bytes of UTF-8. */
export const KEY_BYTES = 1024;

/**
 * The keys a delivery's landing and judging may write, at their longest (a hash, a time, an attempt origin in
 * every place one goes), by what each names. The id and task id are percent-encoded in some of them, so a name
 * within the schema's bounds can still make a key the stores refuse.
 */
export function deliveryKeys(space: string, delivery: Delivery): Record<string, string> {
  const time = new Date(0).toISOString();
  if (delivery.kind === 'issue') {
    const { taskId } = delivery.issue;
    return {
      'issue row': issueKey(space, taskId).sk,
      'issue index': issueByUpdatedKey(space, time, taskId).byUpdatedSk,
    };
  }
  const { id } = delivery;
  const objects = deliveryObjectKeys(space, delivery);
  if (delivery.kind === 'hidden-test')
    return { ...objects, 'held hidden-test result': pendingHiddenTestKey(space, id, delivery.host).sk };
  return {
    ...objects,
    'run row': runKey(space, id).sk,
    'run index': byUpdatedKey(space, time, id).byUpdatedSk,
    'archived attempt': attemptKey(space, id, time, LONGEST_HASH, 'f'.repeat(16)).sk,
  };
}

const LONGEST_HASH = 'f'.repeat(64);

/** Of deliveryKeys, those of objects (an issue record writes none). */
function deliveryObjectKeys(space: string, delivery: Delivery): Record<string, string> {
  if (delivery.kind === 'issue') return {};
  const [{ id }, time] = [delivery, new Date(0).toISOString()];
  return {
    'run texts object': runTextsKey(space, id, time, LONGEST_HASH),
    'test names object': testsKey(space, id, time, LONGEST_HASH),
    'judge audit object': auditKey(space, id, time, time, 1_000_000),
    ...(delivery.kind === 'run' ? { 'contamination object': contaminationKey(space, id, time, LONGEST_HASH) } : {}),
  };
}

/**
 * The keys of `delivery` longer than the stores take, each with its length; ingest refuses the delivery if any.
 * `objectKeyFits`, where the object store takes less than any key of 1,024 bytes (local mode's S3 emulator keeps
 * each part between slashes as a file name), says which object keys it takes.
 */
export function oversizedKeys(
  space: string,
  delivery: Delivery,
  objectKeyFits: (key: string) => boolean = () => true,
): string[] {
  const tooLong = Object.entries(deliveryKeys(space, delivery))
    .map(([name, key]) => [name, Buffer.byteLength(key)] as const)
    .filter(([, bytes]) => bytes > KEY_BYTES)
    .map(([name, bytes]) => `${name}: ${bytes} bytes`);
  const refused = Object.entries(deliveryObjectKeys(space, delivery))
    .filter(([, key]) => Buffer.byteLength(key) <= KEY_BYTES && !objectKeyFits(key))
    .map(([name, key]) => `${name}: ${Buffer.byteLength(key)} bytes, with a part this object store cannot keep`);
  return [...tooLong, ...refused];
}
