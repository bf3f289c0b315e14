// A key the stores refuse (DynamoDB's sort keys and S3's object keys hold at most 1,024 bytes) would make an
// accepted delivery fail to land on every retry, so ingest refuses it with 400 id-too-long naming each key
// (docs/contract.md §3). Some keys percent-encode the run id or task id: 9 bytes a CJK character, so names within
// the schema's 200 characters may still be too long.
import { describe, expect, it } from '@jest/globals';
import { deliveryKeys, KEY_BYTES, oversizedKeys } from '#core/landing/bounds.ts';
import { parseDelivery } from '#core/ingest/accept-delivery.ts';
import { runId } from '#schema/run-id.ts';
import type { Delivery } from '#schema/delivery.ts';
import { hiddenTestDelivery, issueDelivery, runDelivery, runnerRow } from '../../../helpers/deliveries.ts';
import { ingestWorld } from '../../../helpers/ingest-world.ts';

const NOW = new Date('2026-11-29T12:00:00.000Z');
const KEY = 'k'.repeat(64);

function world() {
  const w = ingestWorld(
    { spaces: { S: { senders: ['mac-studio-1'] } } },
    { 'Hosting:ModuleReportSecret:mac-studio-1': [KEY] },
    NOW,
  );
  return { ...w, send: (delivery: unknown) => w.send('S', delivery, KEY) };
}

const parsed = (delivery: unknown): Delivery => {
  const result = parseDelivery(Buffer.from(JSON.stringify(delivery)), 'mac-studio-1');
  if (!result.ok || !('delivery' in result)) throw new Error(JSON.stringify(result));
  return result.delivery;
};

describe('keys longer than the stores take', () => {
  it.each([
    ['a run of a model named in 100 CJK characters', runDelivery({ model: '模'.repeat(100) }), 'run texts object'],
    [
      'a hidden-test result for an id of 200 CJK characters',
      hiddenTestDelivery('模'.repeat(200), '2026-11-20T10:12:00Z'),
      'held hidden-test result',
    ],
    ['an issue record whose task id is 120 CJK characters', issueDelivery({ taskId: '題'.repeat(120) }), 'issue index'],
  ])('refuse %s with 400 id-too-long naming the key, and queue nothing', async (_what, delivery, key) => {
    const w = world();
    const answer = await w.send(delivery);
    expect(answer).toMatchObject({ status: 400, body: { signature: 'verified', error: 'id-too-long' } });
    expect((answer.body as { details: string[] }).details).toContainEqual(
      expect.stringMatching(new RegExp(`^${key}: \\d+ bytes$`)),
    );
    expect(w.queued()).toBe(0);
  });

  it('take a run whose longest key is at the limit, and refuse it one character longer', async () => {
    // The longest model whose keys all fit, found by lengthening it a character at a time.
    let length = 1;
    while (!oversizedKeys('S', parsed(runDelivery({ model: '模'.repeat(length + 1) }))).length) length++;
    const fits = runDelivery({ model: '模'.repeat(length) });
    const longest = Math.max(...Object.values(deliveryKeys('S', parsed(fits))).map((key) => Buffer.byteLength(key)));
    expect(longest).toBeGreaterThan(KEY_BYTES - 9);
    expect(longest).toBeLessThanOrEqual(KEY_BYTES);
    const w = world();
    expect(await w.send(fits)).toMatchObject({ status: 202 });
    expect(await w.send(runDelivery({ model: '模'.repeat(length + 1) }))).toMatchObject({ status: 400 });
    expect(w.queued()).toBe(1);
  });

  it('leave the usual ids alone', () => {
    expect(oversizedKeys('S', parsed(runDelivery()))).toEqual([]);
    expect(oversizedKeys('S', parsed(hiddenTestDelivery(runId(runnerRow()), '2026-11-20T10:12:00Z')))).toEqual([]);
    expect(oversizedKeys('S', parsed(issueDelivery()))).toEqual([]);
  });
});
