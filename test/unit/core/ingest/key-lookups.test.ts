// What a delivery costs in key lookups (docs/contract.md §3): a signature header that can verify nothing is refused
// before any key is read, the candidate hosts' keys are looked up concurrently, and a host without a key is looked
// up once a minute at most. Counted against a key source that records its calls.
import { describe, expect, it } from '@jest/globals';
import { acceptDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { MISSING_KEY_SECONDS, rememberingMissingKeys } from '#core/ingest/missing-keys.ts';
import { signV1, type RequestHeaders } from '#shared/signature.ts';
import type { KeySource, LandingMessage } from '#core/ports.ts';
import { parseConfig } from '#schema/config.ts';
import { runDelivery, signedDeliveryHeaders } from '../../../helpers/deliveries.ts';
import { InMemoryObjectStore, InMemoryTable, RecordingQueue, SettableClock } from '../../../helpers/in-memory-ports.ts';

const NOW = '2026-11-29T12:00:00.000Z';
const HOSTS = ['mac-studio-1', 'mac-mini-2', 'mac-pro-3', 'unpaired-4'];
const KEYS: Record<string, string> = { 'mac-studio-1': 'k-1', 'mac-mini-2': 'k-2', 'mac-pro-3': 'k-3' };

/** Keys by host, counting every lookup and how many were in flight at once; `gate` holds each lookup until opened. */
class CountingKeySource implements KeySource {
  calls: string[] = [];
  inFlight = 0;
  mostInFlight = 0;
  gate: Promise<void> = Promise.resolve();

  async keysFor(_secretConfigKey: string, host: string): Promise<string[]> {
    this.calls.push(host);
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    await this.gate;
    this.inFlight--;
    return KEYS[host] ? [KEYS[host]] : [];
  }
}

function world() {
  const source = new CountingKeySource();
  const clock = new SettableClock(new Date(NOW));
  const table = new InMemoryTable();
  const deps: IngestDeps = {
    config: parseConfig({ spaces: { S: { senders: HOSTS } } }),
    keys: rememberingMissingKeys(source, clock),
    inbox: new InMemoryObjectStore(),
    landingQueue: new RecordingQueue<LandingMessage>(),
    runs: table,
    issueOwners: table,
    clock,
  };
  const body = Buffer.from(JSON.stringify(runDelivery()));
  const send = (headers: RequestHeaders) => acceptDelivery(deps, { space: 'S', rawBody: body, headers });
  const signed = (key: string, at = clock.now()) => signedDeliveryHeaders('S', body, key, { at });
  return { source, clock, body, send, signed };
}

describe('key lookups at ingest', () => {
  const signedNow = world().signed('k-1');
  it.each([
    ['no signature header', {}, 'bad-signature'],
    ['an empty one', { ...signedNow, 'x-replay-signature': '' }, 'bad-signature'],
    ['one without the v2, prefix', { ...signedNow, 'x-replay-signature': 'A'.repeat(43) + '=' }, 'bad-signature'],
    ['one without its timestamp', { ...signedNow, 'x-replay-timestamp': undefined }, 'bad-signature'],
    ['one signed six minutes ago', world().signed('k-1', new Date(Date.parse(NOW) - 360_000)), 'stale'],
    ['a v1 header with 63 hex digits', { 'x-hub-signature-256': `sha256=${'a'.repeat(63)}` }, 'bad-signature'],
    [
      'a v1 signature in a space without a migration window',
      { 'x-hub-signature-256': signV1('{}', 'k-1') },
      'bad-signature',
    ],
  ])('refuse %s with 401 before any key is read', async (_what, headers, error) => {
    const w = world();
    expect(await w.send(headers)).toMatchObject({ status: 401, body: { error } });
    expect(w.source.calls).toEqual([]);
  });

  it("run concurrently: every candidate host's lookup is under way before any answers", async () => {
    const w = world();
    let open!: () => void;
    w.source.gate = new Promise((r) => (open = r));
    const answer = w.send(w.signed('k-1'));
    await new Promise((r) => setImmediate(r));
    expect(w.source.inFlight).toBe(HOSTS.length);
    open();
    expect((await answer).status).toBe(202);
    expect(w.source.mostInFlight).toBe(HOSTS.length);
  });

  it(`remember a host without a key for ${MISSING_KEY_SECONDS} s, and look it up again after`, async () => {
    const w = world();
    for (let i = 0; i < 5; i++) await w.send(w.signed('not-a-key'));
    expect(w.source.calls.filter((h) => h === 'unpaired-4')).toHaveLength(1);
    expect(w.source.calls.filter((h) => h === 'mac-studio-1')).toHaveLength(5);
    w.clock.advance(MISSING_KEY_SECONDS + 1);
    await w.send(w.signed('k-1'));
    expect(w.source.calls.filter((h) => h === 'unpaired-4')).toHaveLength(2);
  });

  it('never remember a lookup that failed as an absent key', async () => {
    const clock = new SettableClock(new Date('2026-11-29T12:00:00.000Z'));
    let failing = true;
    const source: KeySource = {
      keysFor: async () => {
        if (failing) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
        return ['k'];
      },
    };
    const keys = rememberingMissingKeys(source, clock);
    await expect(keys.keysFor('Hosting:ModuleReportSecret', 'h')).rejects.toThrow('throttled');
    failing = false;
    expect(await keys.keysFor('Hosting:ModuleReportSecret', 'h')).toEqual(['k']);
  });
});
