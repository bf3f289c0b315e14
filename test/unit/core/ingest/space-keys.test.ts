// A host's key signs for the spaces it was paired for (docs/contract.md §3 "Keys"): two spaces that keep their keys
// under different `secretConfigKey`s and list the same host name take that host's deliveries only when signed with
// the key under their own name. A key under another space's name identifies the host (so it is not a 401) but is
// refused with a 403 that names both, and nothing is queued.
import { describe, expect, it } from '@jest/globals';
import { runDelivery } from '../../../helpers/deliveries.ts';
import { InMemoryKeySource } from '../../../helpers/in-memory-ports.ts';
import { ingestWorld } from '../../../helpers/ingest-world.ts';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const SPACES = {
  spaces: {
    A: { secretConfigKey: 'TeamA:Keys', senders: ['mac-studio-1'] },
    B: { secretConfigKey: 'TeamB:Keys', senders: ['mac-studio-1', 'mac-mini-2'] },
  },
};

function world(keys: Record<string, string[]>) {
  const w = ingestWorld(SPACES, keys, NOW);
  const send = (space: string, key: string, host = 'mac-studio-1') => w.send(space, runDelivery({ host }), key);
  return { ...w, send };
}

describe("a host's key signs only for the spaces it is paired for", () => {
  const paired = {
    'TeamA:Keys:mac-studio-1': [KEY_A],
    'TeamB:Keys:mac-studio-1': [KEY_B],
    'TeamB:Keys:mac-mini-2': ['m'.repeat(64)],
  };

  it("refuses a delivery to A signed with the host's key for B, naming both, and queues nothing", async () => {
    const w = world(paired);
    const answer = await w.send('A', KEY_B);
    expect(answer).toMatchObject({ status: 403, body: { signature: 'unauthorized', error: 'key-of-another-space' } });
    expect((answer.body as { message: string }).message).toContain('"TeamB:Keys"');
    expect((answer.body as { message: string }).message).toContain('"TeamA:Keys"');
    expect(w.queued()).toBe(0);
  });

  it('refuses it too where the host has no key for A at all', async () => {
    const w = world({ 'TeamB:Keys:mac-studio-1': [KEY_B] });
    expect(await w.send('A', KEY_B)).toMatchObject({ status: 403, body: { error: 'key-of-another-space' } });
    expect(w.queued()).toBe(0);
  });

  it("accepts each space's deliveries signed with the key under its own name", async () => {
    const w = world(paired);
    expect(await w.send('A', KEY_A)).toMatchObject({ status: 202 });
    expect(await w.send('B', KEY_B)).toMatchObject({ status: 202 });
    expect(w.queued()).toBe(2);
  });

  it('accepts a host paired for both spaces with one key', async () => {
    const w = world({ 'TeamA:Keys:mac-studio-1': [KEY_A], 'TeamB:Keys:mac-studio-1': [KEY_A] });
    expect(await w.send('A', KEY_A)).toMatchObject({ status: 202 });
    expect(await w.send('B', KEY_A)).toMatchObject({ status: 202 });
  });

  it("answers 503 where the host's key for the space could not be read, not that it is another space's", async () => {
    const keys = new InMemoryKeySource({ 'TeamA:Keys:mac-studio-1': [KEY_A], 'TeamB:Keys:mac-studio-1': [KEY_A] });
    const w = world({});
    w.deps.keys = {
      keysFor: async (secretConfigKey, host) => {
        if (secretConfigKey === 'TeamA:Keys')
          throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
        return keys.keysFor(secretConfigKey, host);
      },
    };
    expect(await w.send('A', KEY_A)).toMatchObject({ status: 503, body: { error: 'key-unreadable' } });
    expect(w.queued()).toBe(0);
  });

  it("says a key is too short for a space only of the host's key for that space", async () => {
    const w = world({ 'TeamA:Keys:mac-studio-1': [KEY_A], 'TeamB:Keys:mac-studio-1': ['short-b'] });
    const tooShort: string[] = [];
    w.deps.config.spaces['A']!.minKeyBytes = 32;
    w.deps.config.spaces['B']!.minKeyBytes = 32;
    w.deps.keyTooShort = (host) => tooShort.push(host);
    expect(await w.send('A', 'short-b')).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
    expect(tooShort).toEqual([]);
    expect(await w.send('B', 'short-b')).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
    expect(tooShort).toEqual(['mac-studio-1']);
  });

  it('still answers sender-not-listed for a host paired only for another space', async () => {
    const w = world(paired);
    expect(await w.send('A', 'm'.repeat(64), 'mac-mini-2')).toMatchObject({
      status: 403,
      body: { error: 'sender-not-listed' },
    });
  });
});
