import { describe, expect, it } from '@jest/globals';
import {
  attemptKey,
  attemptPrefix,
  auditKey,
  inboxKey,
  parseAttemptSortKey,
  parseInboxKey,
  parseReferenceDiffKey,
  parseRunObjectKey,
  patchKey,
  referenceDiffKey,
  runObjectPrefix,
  runTextsKey,
  snapshotManifestKey,
  spaceReadGrant,
  spaceReadPrefixes,
} from '#core/storage-layout.ts';
import { grantedOnly } from '#adapters/local/granted-object-store.ts';
import { InMemoryObjectStore } from '../../helpers/in-memory-ports.ts';

const F = '2026-11-29T08:10:00.000Z';

describe('the storage layout', () => {
  it('reads back every inbox key it builds', () => {
    expect(parseInboxKey(inboxKey('Main', '0b5e7c1e-5a7e-4c7e-9d2a-3f1c2b4a5d6e'))).toEqual({
      space: 'Main',
      deliveryId: '0b5e7c1e-5a7e-4c7e-9d2a-3f1c2b4a5d6e',
    });
    expect(parseInboxKey('inbox/Main/nested/x.json')).toBeNull();
    expect(parseInboxKey('runs/Main/x.json')).toBeNull();
  });

  it('keeps ids with slashes, hashes and double underscores inside one key segment', () => {
    const id = 'org/model:7b #2__task/1__h1';
    const key = patchKey('Main', id, F, 'ab'.repeat(32));
    expect(key.startsWith(`${runObjectPrefix('Main', id, F)}/`)).toBe(true);
    expect(parseRunObjectKey(key)).toEqual({ space: 'Main', id, finishedAt: F, name: `patch-${'ab'.repeat(32)}.diff` });
    expect(parseRunObjectKey(auditKey('Main', id, F, F, 2))).toMatchObject({ id, name: `judge-${F}-attempt-2.json` });
  });

  it('never lets one run id prefix-match another run id', () => {
    expect(patchKey('Main', 'a/b', F, 'c').startsWith(`${runObjectPrefix('Main', 'a', F)}`)).toBe(false);
    expect(attemptKey('Main', 'a#b', F, 'c').sk.startsWith(attemptPrefix('a'))).toBe(false);
    expect(attemptKey('Main', 'a', F, 'c').sk.startsWith(attemptPrefix('a'))).toBe(true);
  });

  it('reads back archived attempt keys and reference cache keys', () => {
    expect(parseAttemptSortKey(attemptKey('Main', 'm__t#1__h', F, 'ff').sk)).toEqual({
      id: 'm__t#1__h',
      finishedAt: F,
      patchSha256: 'ff',
      origin: null,
    });
    expect(parseAttemptSortKey(attemptKey('Main', 'm__t#1__h', F, 'ff', '0123abcd').sk)).toMatchObject({
      patchSha256: 'ff',
      origin: '0123abcd',
    });
    expect(parseAttemptSortKey('RUN#x')).toBeNull();
    expect(parseReferenceDiffKey(referenceDiffKey('Main', 'acme/widgets', 'a'.repeat(40), 'b'.repeat(40)))).toEqual({
      space: 'Main',
      repo: 'acme/widgets',
      baseSha: 'a'.repeat(40),
      mergeSha: 'b'.repeat(40),
    });
  });

  it("keeps each space's reference fixes under that space's prefixes only, never under the old shared cache", () => {
    const [base, merge] = ['a'.repeat(40), 'b'.repeat(40)];
    const readable = (space: string, key: string) => spaceReadPrefixes(space).some((p) => key.startsWith(p));
    const privateFix = referenceDiffKey('Private', 'acme/secret', base, merge);
    expect(readable('Private', privateFix)).toBe(true);
    expect(referenceDiffKey('Public', 'acme/secret', base, merge)).not.toBe(privateFix);
    // A space named like a cache version or a prefix of another space reads none of their fixes.
    for (const space of ['Public', 'Priv', 'v2', 'v1', 'spaces'])
      expect({ space, readable: readable(space, privateFix) }).toEqual({ space, readable: false });
    for (const space of ['v2', 'Private'])
      expect(readable(space, `reference/v2/acme/secret/${base}...${merge}.json`)).toBe(false);
  });

  it("grants a space named with IAM's wildcards its own keys only", async () => {
    const sha = 'ab'.repeat(32);
    const objects = new InMemoryObjectStore();
    const spaces = ['Team*', 'Team-2', 'Team?', 'Team$'];
    for (const space of spaces) await objects.put(runTextsKey(space, 'm__t__h', F, sha), space);
    expect(spaceReadGrant('Team*').get).toContain('runs/Team${*}/*');
    for (const space of ['Team*', 'Team?', 'Team$']) {
      const reader = grantedOnly(objects, spaceReadGrant(space));
      for (const other of spaces) {
        const read = reader.getText(runTextsKey(other, 'm__t__h', F, sha));
        if (other === space) await expect(read).resolves.toBe(space);
        else await expect(read).rejects.toMatchObject({ name: 'AccessDenied' });
      }
      await expect(reader.list(snapshotManifestKey('Team-2'))).rejects.toMatchObject({ name: 'AccessDenied' });
    }
  });
});
