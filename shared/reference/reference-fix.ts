// The merged fix a candidate is compared with. The diff is fetched once per (repo, baseSha, mergeSha) and
// kept in object storage, lock files already left out; the issue text is fetched per attempt because it
// must never be stored.
import type { ObjectStore, ReferenceSource } from '../ports.ts';
import { omitLockFiles } from './lock-files.ts';

/** Bumped whenever what is cached changes (the lock-file list, say), so old entries are simply not read. */
const CACHE_VERSION = 'v1';

export interface ReferenceDiff {
  diff: string;
  omittedLockFiles: string[];
}

export const referenceDiffKey = (repo: string, baseSha: string, mergeSha: string) =>
  `reference/${CACHE_VERSION}/${repo}/${baseSha}...${mergeSha}.json`;

export async function referenceDiff(objects: ObjectStore, source: ReferenceSource, repo: string, baseSha: string, mergeSha: string): Promise<ReferenceDiff> {
  const key = referenceDiffKey(repo, baseSha, mergeSha);
  const cached = await objects.getText(key);
  if (cached !== null) return JSON.parse(cached) as ReferenceDiff;
  const { diff, omitted } = omitLockFiles(await source.diff(repo, baseSha, mergeSha));
  const entry: ReferenceDiff = { diff, omittedLockFiles: omitted };
  await objects.put(key, JSON.stringify(entry), 'application/json');
  return entry;
}
