// Local mode's S3 emulator keeps each part of an object key between slashes as a file name: a run id whose part
// is longer than a file name takes would be accepted and then fail to land on every retry. Ingest in local mode
// refuses it with 400 id-too-long (docs/contract.md §3); a run whose longest part is at the bound lands.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { acceptDelivery, parseDelivery, type IngestDeps } from '#core/ingest/accept-delivery.ts';
import { landInboxEntry } from '#core/landing/land.ts';
import { oversizedKeys } from '#core/landing/bounds.ts';
import { s3rverKeyFits } from '#infra/local/emulators.ts';
import { parseConfig } from '#schema/config.ts';
import type { Delivery } from '#schema/delivery.ts';
import type { JudgeMessage } from '#core/ports.ts';
import { landingDepsOf, startTestStores, type TestStores } from '../helpers/emulators.ts';
import { runDelivery, signedDeliveryHeaders } from '../helpers/deliveries.ts';
import { InMemoryKeySource, RecordingQueue, SettableClock } from '../helpers/in-memory-ports.ts';

const KEY = 'studio-key-0123456789abcdef0123456789';
const clock = new SettableClock(new Date('2026-12-07T08:00:00Z'));
let t: TestStores;
beforeAll(async () => {
  t = await startTestStores();
});
afterAll(async () => {
  await t.stop();
});

const ingestDeps = (objectKeyFits?: (key: string) => boolean): IngestDeps => ({
  config: parseConfig({ spaces: { Main: { senders: ['mac-studio-1'] } } }),
  keys: new InMemoryKeySource({ 'Hosting:ModuleReportSecret:mac-studio-1': [KEY] }),
  inbox: t.inbox,
  landingQueue: new RecordingQueue(),
  objectKeyFits,
  runs: t.store,
  issueOwners: t.store,
  clock,
});
const landingDeps = () => landingDepsOf(t, clock, new RecordingQueue<JudgeMessage>());
const send = (deps: IngestDeps, delivery: object) => {
  const rawBody = Buffer.from(JSON.stringify(delivery));
  return acceptDelivery(deps, {
    space: 'Main',
    rawBody,
    headers: signedDeliveryHeaders('Main', rawBody, KEY, { at: clock.now() }),
  });
};
/** Lands every inbox entry of the space, each as the lander would, and answers their outcomes. */
async function landAll(): Promise<string[]> {
  const outcomes = [];
  for (const key of await t.inbox.list('inbox/Main/')) outcomes.push(await landInboxEntry(landingDeps(), key));
  return outcomes;
}
const parsed = (delivery: object): Delivery => {
  const result = parseDelivery(Buffer.from(JSON.stringify(delivery)), 'mac-studio-1');
  if (!result.ok || !('delivery' in result)) throw new Error(JSON.stringify(result));
  return result.delivery;
};
// A CJK character is 9 bytes percent-encoded, as the id is in object keys.
const withModel = (length: number) => runDelivery({ model: '模'.repeat(length) });

describe("a run id longer than local mode's object store takes in one part of a key", () => {
  // The longest model whose object keys' parts all fit, found by lengthening it a character at a time.
  let fits = 1;
  while (!oversizedKeys('Main', parsed(withModel(fits + 1)), s3rverKeyFits).length) fits++;

  it('is refused at ingest with 400 id-too-long naming the part; one at the bound is accepted and lands', async () => {
    const refused = await send(ingestDeps(s3rverKeyFits), withModel(fits + 1));
    expect(refused).toMatchObject({ status: 400, body: { error: 'id-too-long' } });
    expect((refused.body as { details: string[] }).details).toContainEqual(
      expect.stringMatching(/^run texts object: \d+ bytes, with a part this object store cannot keep$/),
    );
    expect(await send(ingestDeps(s3rverKeyFits), withModel(fits))).toMatchObject({ status: 202 });
    expect(await landAll()).toEqual(['new']);
  });

  it('would otherwise be accepted and then never land', async () => {
    expect(await send(ingestDeps(), withModel(fits + 1))).toMatchObject({ status: 202 });
    await expect(landAll()).rejects.toThrow();
  });
});
