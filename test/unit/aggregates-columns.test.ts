// The cockpit's compact columnar form: what the read API encodes is what the dashboard decodes, and the
// per-process snapshot behind `GET /api/spaces/{space}/columns` never loses a row between a body and the
// `since` deltas that follow it.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { compactRun, encodeColumns, type CompactRun, type RunColumns } from '../../shared/read/columns.ts';
import { columnsAnswer, REENCODE_AFTER_MS } from '../../shared/read/columns-snapshot.ts';
import { RunTable } from '../../shared/read/run-table.ts';
import { toApiGateway } from '../../shared/adapters/aws/api-gateway.ts';
import type { Page, RunStore } from '../../shared/ports.ts';
import { emptyJudgeFields, runId, runnerRowSchema, type RunRow } from '../../shared/schema/run.ts';

function row(overrides: Record<string, unknown> = {}, updatedAt = '2026-01-01T00:00:00.000Z'): RunRow {
  const runner = runnerRowSchema.parse({
    model: 'mlx-community/Qwen3:8b',
    taskId: 'acme__widgets-42',
    harnessVersion: 'h1',
    host: 'mac-studio-1',
    startedAt: '2026-01-01T00:00:00Z',
    finishedAt: '2026-01-01T00:10:00Z',
    outcome: 'finished',
    wallSeconds: 600,
    ...overrides,
  });
  return {
    ...runner,
    ...emptyJudgeFields(),
    id: runId(runner),
    space: 'S',
    landedAt: updatedAt,
    updatedAt,
    deliveries: ['d'],
    patchKey: null,
    summaryKey: null,
    patchTruncated: false,
    patchSha256: 'x',
    hiddenTestResult: null,
  };
}

/** Just enough of a RunStore: rows by id, `since` on updatedAt, pages of `limit`. */
class MemoryRuns implements Pick<RunStore, 'listRuns'> {
  readonly rows = new Map<string, RunRow>();
  queries = 0;

  put(r: RunRow) {
    this.rows.set(r.id, r);
  }

  async listRuns(_space: string, q: { since?: string; cursor?: string; limit: number }): Promise<Page<RunRow>> {
    this.queries++;
    const all = [...this.rows.values()].filter((r) => !q.since || r.updatedAt >= q.since).sort((a, b) => a.id.localeCompare(b.id));
    const start = Number(q.cursor ?? 0);
    const items = all.slice(start, start + q.limit);
    return { items, cursor: start + q.limit < all.length ? String(start + q.limit) : null };
  }
}

const decode = (body: unknown, gzip: boolean): RunColumns => JSON.parse((gzip ? gunzipSync(body as Buffer) : (body as Buffer)).toString()) as RunColumns;

describe('the columnar form', () => {
  it('decodes into the same table as the rows it was encoded from, unknowns kept unknown', () => {
    const runs: CompactRun[] = [
      compactRun(row()),
      compactRun(row({ model: 'other', wallSeconds: null, tier: 'hard', repo: 'acme/widgets', contamination: [{ step: 1, path: 'x' }] })),
      { ...compactRun(row({ taskId: 't2' })), verdict: 'excluded', hiddenTest: 'pass', metricsSource: 'generated' },
    ];
    const fromWire = RunTable.fromColumns(JSON.parse(JSON.stringify(encodeColumns(runs, '2026-01-01T00:00:00.000Z'))) as RunColumns);
    const direct = RunTable.fromRuns(runs);
    expect(fromWire.size).toBe(3);
    for (let i = 0; i < 3; i++) {
      expect(fromWire.id(i)).toBe(direct.id(i));
      expect(fromWire.string('model', i)).toBe(direct.string('model', i));
      expect(fromWire.string('repo', i)).toBe(direct.string('repo', i));
      expect(fromWire.number('wallSeconds', i)).toBe(direct.number('wallSeconds', i));
      expect(fromWire.codes.verdict[i]).toBe(direct.codes.verdict[i]);
      expect(fromWire.codes.tier[i]).toBe(direct.codes.tier[i]);
    }
    expect(fromWire.number('wallSeconds', 1)).toBeNull();
    expect(fromWire.number('contamination', 1)).toBe(1);
    expect(fromWire.indexOfId(runId({ model: 'mlx-community/Qwen3:8b', taskId: 't2', harnessVersion: 'h1' }))).toBe(2);
  });
});

describe('GET /api/spaces/{space}/columns', () => {
  it('answers gzip when accepted and plain JSON otherwise, with every run of the space', async () => {
    const store = new MemoryRuns();
    for (let k = 0; k < 2500; k++) store.put(row({ taskId: `t${k}` }));
    const gz = await columnsAnswer(store as unknown as RunStore, 'S', () => '2026-02-01T00:00:00.000Z', true);
    expect(gz.headers?.['content-encoding']).toBe('gzip');
    expect(decode(gz.body, true).count).toBe(2500);
    const plain = await columnsAnswer(store as unknown as RunStore, 'S', () => '2026-02-01T00:00:01.000Z', false);
    expect(plain.headers?.['content-encoding']).toBeUndefined();
    expect(decode(plain.body, false).count).toBe(2500);
  });

  it('reads the table once, then only what changed since the snapshot', async () => {
    const store = new MemoryRuns();
    for (let k = 0; k < 10; k++) store.put(row({ taskId: `t${k}` }));
    let now = 0;
    const answer = (asOf: string) => columnsAnswer(store as unknown as RunStore, 'S', () => asOf, true, () => now);
    const first = decode((await answer('2026-01-01T00:00:05.000Z')).body, true);
    expect(first).toMatchObject({ count: 10, asOf: '2026-01-01T00:00:05.000Z' });

    // A row changes after the snapshot. Within the re-encoding interval the old body is served, with its
    // own asOf: a client that asks `since` that asOf gets the change, so nothing is lost.
    store.put(row({ taskId: 't0', wallSeconds: 1 }, '2026-01-01T00:00:06.000Z'));
    store.put(row({ taskId: 'new' }, '2026-01-01T00:00:06.000Z'));
    const stale = decode((await answer('2026-01-01T00:00:10.000Z')).body, true);
    expect(stale).toMatchObject({ count: 10, asOf: '2026-01-01T00:00:05.000Z' });
    expect((await store.listRuns('S', { since: stale.asOf, limit: 100 })).items.map((r) => r.taskId).sort()).toEqual(['new', 't0']);

    now += REENCODE_AFTER_MS;
    const fresh = decode((await answer('2026-01-01T00:00:20.000Z')).body, true);
    expect(fresh).toMatchObject({ count: 11, asOf: '2026-01-01T00:00:20.000Z' });
    const table = RunTable.fromColumns(fresh);
    expect(table.number('wallSeconds', table.indexOfId(runId({ model: 'mlx-community/Qwen3:8b', taskId: 't0', harnessVersion: 'h1' })))).toBe(1);
  });

  it('shares one table read between concurrent requests', async () => {
    const store = new MemoryRuns();
    for (let k = 0; k < 3000; k++) store.put(row({ taskId: `t${k}` }));
    await Promise.all(Array.from({ length: 5 }, () => columnsAnswer(store as unknown as RunStore, 'S', () => '2026-02-01T00:00:00.000Z', true)));
    expect(store.queries).toBe(3);
  });
});

describe('a bytes answer through API Gateway', () => {
  it('crosses the Lambda boundary as base64 with its headers, so the gzip body reaches the browser intact', async () => {
    const store = new MemoryRuns();
    store.put(row());
    const answer = await columnsAnswer(store as unknown as RunStore, 'S', () => '2026-02-01T00:00:00.000Z', true);
    const result = toApiGateway(answer);
    expect(result).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(decode(Buffer.from(result.body!, 'base64'), true).count).toBe(1);
  });
});
