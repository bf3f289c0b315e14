// The read API's Lambda seam: API Gateway HTTP API events in, docs/contract.md §10 answers out (JSON, text, gzip bytes
// as base64), and a store failure mapped to a 500 that tells the client nothing of the store.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { columnsFromBytes } from '#analytics/columns.ts';
import { createReadApiHandler } from '#functions/read-api/handler.ts';
import { instrumentation } from '#adapters/aws/observability.ts';
import type { RunStore } from '#core/ports.ts';
import { DEFAULT_SECRET_CONFIG_KEY, parseConfig } from '#schema/config.ts';
import { httpApiEvent } from '../../../helpers/events.ts';
import {
  failingWhen,
  InMemoryKeySource,
  InMemoryObjectStore,
  InMemoryTable,
  SettableClock,
} from '../../../helpers/in-memory-ports.ts';
import { capturingOutput, logLines } from '../../../helpers/lambda-output.ts';
import { runRow, storedHost, storedIssue } from '../../../helpers/records.ts';

const PATCH = 'diff --git a/src/widget.ts b/src/widget.ts\n+b\n';

async function readApi(runsOf: (table: InMemoryTable) => RunStore = (table) => table) {
  const table = new InMemoryTable();
  const objects = new InMemoryObjectStore();
  const rows = [runRow({ taskId: 't-1' }, { patchKey: 'runs/S/t-1/patch.diff' }), runRow({ taskId: 't-2' })];
  for (const row of rows) await table.putRun(row, null);
  await objects.put('runs/S/t-1/patch.diff', PATCH);
  await table.putIssue(storedIssue());
  await table.putHost(storedHost(), null);
  const handler = createReadApiHandler(
    {
      config: parseConfig({ spaces: { S: { senders: ['mac-studio-1', 'mac-mini-2'] } } }),
      runs: runsOf(table),
      attempts: table,
      issues: table,
      hosts: table,
      objects,
      pairing: new InMemoryKeySource({ [`${DEFAULT_SECRET_CONFIG_KEY}:mac-studio-1`]: ['k-studio'] }),
      budget: table,
      clock: new SettableClock(new Date('2026-11-30T00:00:00.000Z')),
    },
    instrumentation('read-api'),
  );
  const get = (path: string, headers: Record<string, string> = {}) => handler(httpApiEvent({ path, headers }));
  return { rows, get, handler };
}

const jsonBody = (result: { body?: string }) => JSON.parse(result.body ?? 'null') as Record<string, unknown>;

describe('the read-api handler', () => {
  it('pages the runs of a space with the query string API Gateway parsed', async () => {
    const api = await readApi();
    const first = await api.get('/api/spaces/S/runs?limit=1');
    expect(first).toMatchObject({ statusCode: 200, headers: { 'content-type': 'application/json' } });
    const page = jsonBody(first) as { runs: { id: string }[]; cursor: string; asOf: string };
    expect(page.runs).toHaveLength(1);
    expect(page.asOf).toBe('2026-11-29T23:59:55.000Z');
    const rest = jsonBody(await api.get(`/api/spaces/S/runs?limit=10&cursor=${page.cursor}`)) as {
      runs: { id: string }[];
      cursor: string | null;
    };
    expect([...page.runs, ...rest.runs].map((r) => r.id).sort()).toEqual(api.rows.map((r) => r.id).sort());
    expect(rest.cursor).toBeNull();
  });

  it('serves a patch as text, the hosts with their pairing, and the columns as gzip bytes in base64', async () => {
    const api = await readApi();
    const patch = await api.get(`/api/spaces/S/runs/${encodeURIComponent(api.rows[0]!.id)}/patch`);
    expect(patch).toMatchObject({
      statusCode: 200,
      body: PATCH,
      headers: { 'content-type': 'text/x-diff; charset=utf-8' },
    });
    expect(jsonBody(await api.get('/api/spaces/S/hosts')).hosts).toEqual([
      expect.objectContaining({ host: 'mac-studio-1', runsLanded: 2, paired: true, spaces: ['S'] }),
      expect.objectContaining({ host: 'mac-mini-2', runsLanded: 0, paired: false, lastDeliveryAt: null }),
    ]);
    const columns = await api.get('/api/spaces/S/columns', { 'Accept-Encoding': 'gzip, br' });
    expect(columns).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'content-encoding': 'gzip' } });
    expect(columnsFromBytes(gunzipSync(Buffer.from(columns.body!, 'base64')))).toMatchObject({ count: 2 });
    // The cockpit asks for the compressed media type, which it inflates itself; weight 0 refuses it.
    const asType = await api.get('/api/spaces/S/columns', {
      'Accept-Encoding': 'gzip',
      Accept: 'application/vnd.replay.run-columns+gzip, application/vnd.replay.run-columns;q=0.5',
    });
    expect(asType).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: { 'content-type': 'application/vnd.replay.run-columns+gzip' },
    });
    expect(asType.headers!['content-encoding']).toBeUndefined();
    expect(columnsFromBytes(gunzipSync(Buffer.from(asType.body!, 'base64')))).toMatchObject({ count: 2 });
    const refused = await api.get('/api/spaces/S/columns', {
      'Accept-Encoding': 'gzip',
      Accept: 'application/vnd.replay.run-columns+gzip;q=0, */*',
    });
    expect(refused.headers).toMatchObject({
      'content-type': 'application/vnd.replay.run-columns',
      'content-encoding': 'gzip',
    });
  });

  it('answers a cursor it did not hand out with 400 bad-cursor', async () => {
    const api = await readApi();
    const answer = await api.get('/api/spaces/S/runs?cursor=bogus');
    expect(answer.statusCode).toBe(400);
    expect(jsonBody(answer)).toMatchObject({ error: 'bad-cursor' });
  });

  it('answers 500 when the store fails, with a sentence and nothing of the store, and logs the failure with its path', async () => {
    const internals =
      'User: arn:aws:sts::123456789012:assumed-role/replay-read is not authorized to perform: dynamodb:Query on table replay-prod';
    const api = await readApi((table) =>
      failingWhen(
        table,
        'listRuns',
        () => true,
        () => Object.assign(new Error(internals), { name: 'AccessDeniedException' }),
      ),
    );
    const { result, output } = await capturingOutput(() => api.get('/api/spaces/S/runs'));
    expect(result).toEqual({
      statusCode: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: 'internal', message: 'The request could not be answered; retry later.' }),
    });
    expect(logLines(output, 'read failed')).toEqual([
      expect.objectContaining({ level: 'ERROR', service: 'read-api', path: '/api/spaces/S/runs', error: internals }),
    ]);
  });
});
