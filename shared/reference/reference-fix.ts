// The merged fix a candidate is compared with. The diff is fetched once per (repo, baseSha, mergeSha) and
// kept in object storage, lock files already left out; the issue text is fetched per attempt because it
// must never be stored.
import type { ObjectStore, ReferenceSource } from '../ports.ts';
import { referenceDiffKey } from '../storage-layout.ts';
import { omitLockFiles } from './lock-files.ts';

export interface ReferenceDiff {
  diff: string;
  omittedLockFiles: string[];
}

export async function referenceDiff(objects: ObjectStore, source: ReferenceSource, repo: string, baseSha: string, mergeSha: string): Promise<ReferenceDiff> {
  const key = referenceDiffKey(repo, baseSha, mergeSha);
  const cached = await objects.getText(key);
  if (cached !== null) return JSON.parse(cached) as ReferenceDiff;
  const { diff, omitted } = omitLockFiles(await source.diff(repo, baseSha, mergeSha));
  const entry: ReferenceDiff = { diff, omittedLockFiles: omitted };
  await objects.put(key, JSON.stringify(entry), 'application/json');
  return entry;
}
