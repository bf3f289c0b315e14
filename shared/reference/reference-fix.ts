// The merged fix a candidate is compared with. The diff is fetched once per (space, repo, baseSha, mergeSha)
// and kept in object storage under the space (storage-layout.ts), lock files already left out, with the
// task's prompt nonce (see judge/prompt.ts); the issue text is fetched per attempt because it must never be
// stored.
import type { ObjectStore, ReferenceSource } from '../ports.ts';
import { referenceDiffKey } from '../storage-layout.ts';
import { newNonce } from '../judge/prompt.ts';
import { omitLockFiles } from './lock-files.ts';

export interface ReferenceDiff {
  diff: string;
  omittedLockFiles: string[];
  /** Delimits the data blocks of every judge prompt of this task; chosen once, when the fix is first fetched. */
  nonce: string;
}

export async function referenceDiff(
  objects: ObjectStore,
  source: ReferenceSource,
  space: string,
  repo: string,
  baseSha: string,
  mergeSha: string,
): Promise<ReferenceDiff> {
  const key = referenceDiffKey(space, repo, baseSha, mergeSha);
  const cached = await objects.getText(key);
  const entry = cached === null ? null : readEntry(cached);
  if (entry) return entry;
  const { diff, omitted } = omitLockFiles(await source.diff(repo, baseSha, mergeSha));
  const fetched: ReferenceDiff = { diff, omittedLockFiles: omitted, nonce: newNonce() };
  await objects.put(key, JSON.stringify(fetched), 'application/json');
  return fetched;
}

/** A cached entry, or null when it is unreadable (then it is fetched and written again). */
function readEntry(text: string): ReferenceDiff | null {
  try {
    const entry = JSON.parse(text) as Partial<ReferenceDiff>;
    const valid =
      typeof entry.diff === 'string' &&
      Array.isArray(entry.omittedLockFiles) &&
      typeof entry.nonce === 'string' &&
      /^[0-9a-f]{32}$/.test(entry.nonce);
    return valid ? (entry as ReferenceDiff) : null;
  } catch {
    return null;
  }
}
