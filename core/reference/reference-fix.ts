// The merged fix a candidate is compared with. The diff is fetched once per (space, repo, baseSha, mergeSha)
// and kept in object storage under the space (storage-layout.ts), lock files already left out, with the task's prompt nonce (see judge/prompt.ts);
// the first judge to cache it wins and the others use its entry. The issue text is fetched per attempt
// because it must never be stored.
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
  const cached = await objects.getWithEtag(key);
  const entry = cached && readEntry(cached.bytes);
  if (entry) return entry;
  const { diff, omitted } = omitLockFiles(await source.diff(repo, baseSha, mergeSha));
  const fetched: ReferenceDiff = { diff, omittedLockFiles: omitted, nonce: newNonce() };
  // Create-only (or replacing exactly the unreadable entry read above): when another judge cached the fix
  // meanwhile, its entry is the one every prompt of the task uses, nonce included.
  if (await objects.putIfMatch(key, JSON.stringify(fetched), cached?.etag ?? null, 'application/json')) return fetched;
  const winner = await objects.getBytes(key);
  return (winner && readEntry(winner)) ?? fetched;
}

/** A cached entry, or null when it is unreadable (then it is fetched and written again). */
function readEntry(bytes: Uint8Array): ReferenceDiff | null {
  try {
    const entry = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ReferenceDiff>;
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
