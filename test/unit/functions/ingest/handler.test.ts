// The ingest function's Lambda seam: API Gateway HTTP API events in, the answers docs/contract.md §3 names out, the
// delivery metrics in the EMF it prints, and nothing of a key or a store's internals in an answer or a log.
import { describe, expect, it } from '@jest/globals';
import { createIngestHandler } from '#functions/ingest/handler.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import { METRICS } from '#core/operations.ts';
import type { LandingMessage, ObjectStore } from '#core/ports.ts';
import { DEFAULT_SECRET_CONFIG_KEY, parseConfig } from '#schema/config.ts';
import { inboxEntrySchema } from '#schema/messages.ts';
import { runDelivery, signedDeliveryHeaders } from '../../../helpers/deliveries.ts';
import { httpApiEvent } from '../../../helpers/events.ts';
import {
  failingWhen,
  InMemoryKeySource,
  InMemoryObjectStore,
  InMemoryTable,
  RecordingQueue,
  SettableClock,
} from '../../../helpers/in-memory-ports.ts';
import { capturingOutput, logLines, metricValues, publishedMetrics } from '../../../helpers/lambda-output.ts';

const HOST_KEY = 'k-studio-0f3c9a';
const NOW = new Date('2026-11-29T12:00:00.000Z');

function ingest(inboxOf: (inbox: InMemoryObjectStore) => ObjectStore = (inbox) => inbox) {
  const inbox = new InMemoryObjectStore();
  const landingQueue = new RecordingQueue<LandingMessage>();
  const table = new InMemoryTable();
  const handler = createIngestHandler(
    {
      config: parseConfig({ spaces: { Main: { senders: ['mac-studio-1'] } } }),
      keys: new InMemoryKeySource({ [`${DEFAULT_SECRET_CONFIG_KEY}:mac-studio-1`]: [HOST_KEY] }),
      inbox: inboxOf(inbox),
      landingQueue,
      runs: table,
      issueOwners: table,
      clock: new SettableClock(NOW),
    },
    instrumentation('ingest'),
  );
  return { handler, inbox, landingQueue };
}

/** A delivery POSTed to `path` and signed for space Main with `key`, its body sent as text or base64 as API Gateway may. */
function signedPost(path: string, value: unknown, { key = HOST_KEY, base64 = false } = {}) {
  const body = Buffer.from(JSON.stringify(value));
  return httpApiEvent({
    method: 'POST',
    path,
    body,
    base64,
    headers: signedDeliveryHeaders('Main', body, key, { at: NOW }),
  });
}

const jsonBody = (result: { body?: string }) => JSON.parse(result.body ?? 'null') as Record<string, unknown>;

describe('the ingest handler', () => {
  it.each([
    ['a text body', false],
    ['a base64 body', true],
  ])(
    'accepts a signed delivery sent as %s with 202, stores it, queues its claim check and counts DeliveryAccepted',
    async (_what, base64) => {
      const i = ingest();
      const delivery = runDelivery();
      const { result, output } = await capturingOutput(() =>
        i.handler(signedPost('/hooks/Main/ingest', delivery, { base64 })),
      );
      expect(result.statusCode).toBe(202);
      expect(jsonBody(result)).toEqual({ signature: 'verified', id: delivery.id, status: 'queued', ignored: [] });
      const [key] = await i.inbox.list('inbox/Main/');
      const entry = inboxEntrySchema.parse(JSON.parse((await i.inbox.getText(key!))!));
      expect(entry).toMatchObject({ space: 'Main', host: 'mac-studio-1', receivedAt: NOW.toISOString() });
      expect(i.landingQueue.sent).toEqual([{ space: 'Main', inboxKey: key, deliveryId: entry.deliveryId }]);
      // Followed by its delivery id, and by its run id once the body has been read (docs/deploy.md).
      expect(logLines(output, 'delivery answered')).toEqual([
        expect.objectContaining({ correlation_id: entry.deliveryId, run_id: delivery.id }),
      ]);
      expect(metricValues(output, 'ingest', METRICS.deliveryAccepted)).toEqual([1]);
      expect(metricValues(output, 'ingest', METRICS.deliveryRefused)).toEqual([]);
    },
  );

  it('answers a signed check with 200 naming the host, and stores, queues and counts nothing', async () => {
    const i = ingest();
    const { result, output } = await capturingOutput(() =>
      i.handler(signedPost('/hooks/Main/ingest', { kind: 'check', host: 'mac-studio-1' })),
    );
    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toEqual({ signature: 'verified', host: 'mac-studio-1' });
    expect(await i.inbox.list('')).toEqual([]);
    expect(i.landingQueue.sent).toEqual([]);
    expect(publishedMetrics(output).filter((m) => m.name.startsWith('Delivery'))).toEqual([]);
  });

  it('answers a check with a wrong key 401 and a check naming another host 400, as any delivery', async () => {
    const i = ingest();
    const unknown = await capturingOutput(() =>
      i.handler(signedPost('/hooks/Main/ingest', { kind: 'check', host: 'mac-studio-1' }, { key: 'who-knows' })),
    );
    expect(unknown.result.statusCode).toBe(401);
    const other = await capturingOutput(() =>
      i.handler(signedPost('/hooks/Main/ingest', { kind: 'check', host: 'mac-mini-2' })),
    );
    expect(other.result.statusCode).toBe(400);
    expect(jsonBody(other.result)).toMatchObject({ signature: 'verified', error: 'invalid-delivery' });
    expect(await i.inbox.list('')).toEqual([]);
  });

  it('refuses a delivery signed with an unknown key with 401, stores nothing and counts DeliveryRefused', async () => {
    const i = ingest();
    const { result, output } = await capturingOutput(() =>
      i.handler(signedPost('/hooks/Main/ingest', runDelivery(), { key: 'who-knows' })),
    );
    expect(result.statusCode).toBe(401);
    expect(jsonBody(result)).toMatchObject({ signature: 'invalid', error: 'bad-signature' });
    expect(await i.inbox.list('inbox/')).toEqual([]);
    expect(i.landingQueue.sent).toEqual([]);
    expect(metricValues(output, 'ingest', METRICS.deliveryRefused)).toEqual([1]);
    expect(logLines(output, 'delivery answered')).toEqual([
      expect.objectContaining({ status: 401, error: 'bad-signature' }),
    ]);
  });

  it.each([
    ['a path outside the hooks', '/submit'],
    ['another verb under a space', '/hooks/Main/deliver'],
    ['a nested space', '/hooks/Main/extra/ingest'],
  ])('answers %s with 404 not-found and queues nothing', async (_what, path) => {
    const i = ingest();
    const { result, output } = await capturingOutput(() => i.handler(signedPost(path, runDelivery())));
    expect(result.statusCode).toBe(404);
    expect(jsonBody(result)).toEqual({ error: 'not-found', message: `No route ${path}.` });
    expect(i.landingQueue.sent).toEqual([]);
    expect(publishedMetrics(output)).toEqual([]);
  });

  it('answers another method on the ingest route with 405 and names POST in Allow', async () => {
    const i = ingest();
    const { result } = await capturingOutput(() =>
      i.handler(httpApiEvent({ method: 'GET', path: '/hooks/Main/ingest' })),
    );
    expect(result).toMatchObject({ statusCode: 405, headers: { allow: 'POST' } });
    expect(jsonBody(result)).toMatchObject({ error: 'not-found', message: 'Deliveries are sent with POST.' });
  });

  it('answers 500 when the inbox cannot store the delivery, queues nothing, and tells neither the client nor the log a key', async () => {
    const outage = () => new Error('connect ECONNREFUSED 10.0.3.7:443 (bucket replay-inbox-123456789012)');
    const i = ingest((inbox) => failingWhen(inbox, 'putIfAbsent', () => true, outage));
    const event = signedPost('/hooks/Main/ingest', runDelivery());
    const { result, output } = await capturingOutput(() => i.handler(event));
    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toEqual({ error: 'internal', message: 'The delivery could not be stored; retry later.' });
    expect(i.landingQueue.sent).toEqual([]);
    expect(logLines(output, 'delivery could not be stored')).toEqual([
      expect.objectContaining({ level: 'ERROR', service: 'ingest', error: outage().message }),
    ]);
    for (const secret of [HOST_KEY, event.headers['x-replay-signature']!])
      expect(output.text + JSON.stringify(result)).not.toContain(secret);
  });
});
