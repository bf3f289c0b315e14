// Host key strength at ingest (docs/contract.md §3): a key shorter than 32 UTF-8 bytes still verifies but is counted
// as WeakHostKey with a log line naming the host; a space's `minKeyBytes` keeps shorter keys out of its
// verification altogether: 401 as for a wrong signature, and a "key too short" line naming the host. Neither the
// key nor any part of it is ever printed.
import { describe, expect, it } from '@jest/globals';
import { createIngestHandler } from '#functions/ingest/handler.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { METRICS } from '#core/operations.ts';
import type { LandingMessage } from '#core/ports.ts';
import { DEFAULT_SECRET_CONFIG_KEY, parseConfig } from '#schema/config.ts';
import { runDelivery, signedDeliveryHeaders } from '../../../helpers/deliveries.ts';
import { httpApiEvent } from '../../../helpers/events.ts';
import {
  InMemoryKeySource,
  InMemoryObjectStore,
  InMemoryTable,
  RecordingQueue,
  SettableClock,
} from '../../../helpers/in-memory-ports.ts';
import { capturingOutput, logLines, metricValues } from '../../../helpers/lambda-output.ts';

/** 31 UTF-8 bytes in 16 characters: counted in bytes, as HMAC takes the key, it is short. */
const WEAK_KEY = `${'é'.repeat(15)}k`;
/** Exactly 32 UTF-8 bytes in 16 characters. */
const EDGE_KEY = 'ü'.repeat(16);
const STRONG_KEY = 'b0c5d2e9a8f14c6b9e3d7a1f5c8e2b4d6a9f0e3c7b1d5a8f2e4c6b9d0a3f7e1c';

const NOW = new Date('2026-11-29T12:00:00.000Z');

function ingest(space: Record<string, unknown>) {
  const landingQueue = new RecordingQueue<LandingMessage>();
  const table = new InMemoryTable();
  const handler = createIngestHandler(
    {
      config: parseConfig({ spaces: { Main: { senders: ['weak-mac', 'edge-mac', 'strong-mac'], ...space } } }),
      keys: new InMemoryKeySource({
        [`${DEFAULT_SECRET_CONFIG_KEY}:weak-mac`]: [WEAK_KEY],
        [`${DEFAULT_SECRET_CONFIG_KEY}:edge-mac`]: [EDGE_KEY],
        [`${DEFAULT_SECRET_CONFIG_KEY}:strong-mac`]: [STRONG_KEY],
      }),
      inbox: new InMemoryObjectStore(),
      landingQueue,
      runs: table,
      issueOwners: table,
      clock: new SettableClock(NOW),
    },
    instrumentation('ingest'),
  );
  const post = (host: string, key: string) => {
    const body = Buffer.from(JSON.stringify(runDelivery({ host, taskId: `from-${host}` })));
    return capturingOutput(() =>
      handler(
        httpApiEvent({
          method: 'POST',
          path: '/hooks/Main/ingest',
          body,
          headers: signedDeliveryHeaders('Main', body, key, { at: NOW }),
        }),
      ),
    );
  };
  return { post, landingQueue };
}

const WEAK_LINE = 'a host signs with a key shorter than 32 bytes; pair it anew with a longer key';
const TOO_SHORT_LINE = 'key too short: a host signed with a key shorter than the space allows; answered 401';
const noKeyIn = (text: string) => [WEAK_KEY, EDGE_KEY, STRONG_KEY].forEach((key) => expect(text).not.toContain(key));

describe('a key shorter than 32 bytes', () => {
  it('still verifies, and is counted as WeakHostKey with a line naming the host', async () => {
    const i = ingest({});
    const { result, output } = await i.post('weak-mac', WEAK_KEY);
    expect(result.statusCode).toBe(202);
    expect(metricValues(output, 'ingest', METRICS.weakHostKey)).toEqual([1]);
    expect(logLines(output, WEAK_LINE)).toEqual([expect.objectContaining({ level: 'INFO', host: 'weak-mac' })]);
    noKeyIn(output.text);
  });

  it('is not counted for a key of 32 bytes or more', async () => {
    const i = ingest({});
    for (const [host, key] of [
      ['edge-mac', EDGE_KEY],
      ['strong-mac', STRONG_KEY],
    ] as const) {
      const { result, output } = await i.post(host, key);
      expect(result.statusCode).toBe(202);
      expect(metricValues(output, 'ingest', METRICS.weakHostKey)).toEqual([]);
      expect(logLines(output, WEAK_LINE)).toEqual([]);
    }
  });
});

describe("a space's minKeyBytes", () => {
  it('answers a delivery signed with a shorter key 401, exactly as a wrong signature, and says "key too short"', async () => {
    const i = ingest({ minKeyBytes: 32 });
    const short = await i.post('weak-mac', WEAK_KEY);
    const wrong = await i.post('strong-mac', 'not-the-key-of-anyone-at-all-0123456789');
    expect(short.result.statusCode).toBe(401);
    expect(short.result.body).toBe(wrong.result.body);
    expect(i.landingQueue.sent).toEqual([]);
    expect(logLines(short.output, TOO_SHORT_LINE)).toEqual([
      expect.objectContaining({ level: 'WARN', host: 'weak-mac', minKeyBytes: 32 }),
    ]);
    // A short key that is not used is not a weak key in use.
    expect(metricValues(short.output, 'ingest', METRICS.weakHostKey)).toEqual([]);
    expect(logLines(wrong.output, TOO_SHORT_LINE)).toEqual([]);
    noKeyIn(short.output.text + wrong.output.text);
  });

  it('counts the key in UTF-8 bytes: 32 bytes in 16 characters pass, as do longer keys', async () => {
    const i = ingest({ minKeyBytes: 32 });
    expect((await i.post('edge-mac', EDGE_KEY)).result.statusCode).toBe(202);
    expect((await i.post('strong-mac', STRONG_KEY)).result.statusCode).toBe(202);
    expect(i.landingQueue.sent).toHaveLength(2);
  });

  it('is absent by default: every key length verifies', async () => {
    const i = ingest({});
    expect((await i.post('weak-mac', WEAK_KEY)).result.statusCode).toBe(202);
  });
});
