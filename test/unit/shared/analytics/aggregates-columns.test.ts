// The cockpit's compact columnar form: what the read API encodes is what the dashboard decodes, and the
// per-process snapshot behind `GET /api/spaces/{space}/columns` never loses a row between a body and the
// `since` deltas that follow it.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import {
  CODE_FIELDS,
  COLUMNS_FORMAT,
  COLUMNS_GZIP_MEDIA_TYPE,
  COLUMNS_MEDIA_TYPE,
  ColumnsFormatError,
  columnsFromBytes,
  columnsToBytes,
  compactRun,
  encodeColumns,
  NUMBER_FIELDS,
  TEXT_FIELDS,
  type CompactRun,
  type RunColumns,
} from '#analytics/columns.ts';
import { ColumnsReader } from '#analytics/columns-reader.ts';
import { columnsAnswer, REENCODE_AFTER_MS } from '#core/read/read-model.ts';
import { AS_OF_SAFETY_MS } from '#core/read/as-of.ts';
import { RunTable } from '#analytics/run-table.ts';
import { toApiGateway } from '#adapters/aws/api-gateway.ts';
import type { Page } from '#core/ports.ts';
import { runId, type RunRow } from '#schema/run.ts';
import { InMemoryObjectStore, InMemoryTable } from '../../../helpers/in-memory-ports.ts';
import { runRow } from '../../../helpers/records.ts';

// The runs of these tests: space S, a model name with the characters run ids replace.
const row = (overrides: Record<string, unknown> = {}, updatedAt = '2026-01-01T00:00:00.000Z'): RunRow =>
  runRow(
    {
      model: 'mlx-community/Qwen3:8b',
      harnessVersion: 'h1',
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:10:00Z',
      ...overrides,
    },
    { space: 'S', updatedAt },
  );

/**
 * `n` runs, one per task t0, t1, …: the landed row of t0 with its task (and so its id) changed, so a table of
 * several pages is seeded without landing each run.
 */
const runsOfTasks = (n: number): RunRow[] => {
  const first = row({ taskId: 't0' });
  return Array.from({ length: n }, (_, k) => ({ ...first, taskId: `t${k}`, id: runId({ ...first, taskId: `t${k}` }) }));
};

/** Counts the table reads, to show when the columns snapshot is reused. */
class CountingTable extends InMemoryTable {
  queries = 0;

  async put(r: RunRow) {
    const stored = await this.getRun(r.space, r.id);
    await this.putRun(r, stored?.rev ?? null);
  }

  override async listRuns(
    space: string,
    query: { since?: string; cursor?: string; limit: number },
  ): Promise<Page<RunRow>> {
    this.queries++;
    return super.listRuns(space, query);
  }
}

/** Read-side dependencies (no persisted snapshot) whose clock makes the next `asOf` exactly the one set. */
function readDeps(store: CountingTable) {
  let asOf = '2026-02-01T00:00:00.000Z';
  return {
    deps: {
      runs: store,
      issues: store,
      objects: new InMemoryObjectStore(),
      clock: { now: () => new Date(Date.parse(asOf) + AS_OF_SAFETY_MS) },
    },
    setAsOf: (value: string) => void (asOf = value),
  };
}

/** Every field of row `i` of `table`, as read back. */
const rowOf = (table: RunTable, i: number) => [
  table.id(i),
  ...TEXT_FIELDS.map((f) => table.string(f, i)),
  ...CODE_FIELDS.map((f) => table.codes[f][i]),
  ...NUMBER_FIELDS.map((f) => table.number(f, i)),
];

const decode = (body: unknown, gzip: boolean): RunColumns =>
  columnsFromBytes(gzip ? gunzipSync(body as Buffer) : (body as Buffer));

describe('the columnar form', () => {
  it('holds finishing and landing times in whole seconds cut as a clock reads them, not rounded into the next minute', () => {
    const run = compactRun(row({ finishedAt: '2026-01-01T00:10:59.600Z' }));
    expect(run.finishedAt).toBe(Date.parse('2026-01-01T00:10:59Z') / 1000);
    const landed = compactRun(runRow({}, { landedAt: '2026-11-29T12:00:59.999Z' }));
    expect(landed.landedAt).toBe(Date.parse('2026-11-29T12:00:59Z') / 1000);
  });

  it('decodes into the same table as the rows it was encoded from, unknowns kept unknown', () => {
    const runs: CompactRun[] = [
      compactRun(row()),
      compactRun(
        row({
          model: 'other',
          wallSeconds: null,
          tier: 'hard',
          repo: 'acme/widgets',
          contamination: [{ step: 1, path: 'x' }],
        }),
      ),
      { ...compactRun(row({ taskId: 't2' })), verdict: 'excluded', hiddenTest: 'pass', metricsSource: 'generated' },
    ];
    const fromWire = RunTable.fromColumns([
      columnsFromBytes(columnsToBytes(encodeColumns(runs, '2026-01-01T00:00:00.000Z'))),
    ]);
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

  it('carries each column in the narrowest array that holds it exactly, figures exact at a few decimals scaled, and every figure back unchanged', () => {
    const runs: CompactRun[] = Array.from({ length: 300 }, (_, k) => ({
      ...compactRun(row({ taskId: `task-${k}` })),
      steps: k % 7 === 0 ? null : k,
      promptTokens: 5_000_000_000 + k,
      // Cents and milliseconds as the doubles arithmetic leaves them (0.07 * 3 is not 0.21), a ratio, and a negative figure.
      judgeCostUsd: k % 2 ? Math.round(0.07 * k * 100) / 100 : null,
      wallSeconds: k % 5 ? (1000 + 37 * k) / 1000 : null,
      outputTokensPerMinute: k % 3 ? 6000 / (k + 7) : null,
      contamination: null,
      patchLinesAdded: k === 7 ? -1 : k,
      wave: 1,
    }));
    const wire = columnsFromBytes(columnsToBytes(encodeColumns(runs, '2026-01-01T00:00:00.000Z')));
    const { taskId, model } = wire.text;
    const { wave, steps, promptTokens, judgeCostUsd, wallSeconds, outputTokensPerMinute, patchLinesAdded } =
      wire.numbers;
    expect(
      [taskId, model, wave, steps, promptTokens, judgeCostUsd, wallSeconds, outputTokensPerMinute, patchLinesAdded].map(
        (c) => c.constructor.name,
      ),
    ).toEqual([
      'Uint16Array',
      'Uint8Array',
      'Uint8Array',
      'Uint16Array',
      'Float64Array',
      'Uint16Array',
      'Uint16Array',
      'Float64Array',
      'Float64Array',
    ]);
    expect(wire.decimals).toEqual({ judgeCostUsd: 2, wallSeconds: 3 });
    const table = RunTable.fromColumns([wire]);
    expect(runs.map((_, k) => [...NUMBER_FIELDS.map((f) => table.number(f, k)), table.string('taskId', k)])).toEqual(
      runs.map((run) => [...NUMBER_FIELDS.map((f) => run[f]), run.taskId]),
    );
  });

  it('grows the table for parts larger than its room, and finds rows by id across parts', () => {
    const part = (from: number, n: number) =>
      encodeColumns(
        Array.from({ length: n }, (_, k) => compactRun(row({ taskId: `t${from + k}`, steps: from + k }))),
        '2026-01-01T00:00:00.000Z',
      );
    // Room for 10: the first part grows it, and the second grows it again after the id index was built.
    const table = new RunTable(10);
    table.appendColumns(part(0, 15));
    table.indexOfId(runId({ model: 'mlx-community/Qwen3:8b', taskId: 't3', harnessVersion: 'h1' }));
    table.appendColumns(part(15, 25));
    expect(table.size).toBe(40);
    expect([table.number('steps', 39), table.string('taskId', 15)]).toEqual([39, 't15']);
    expect(table.indexOfId(runId({ model: 'mlx-community/Qwen3:8b', taskId: 't32', harnessVersion: 'h1' }))).toBe(32);
    expect(table.upsert(compactRun(row({ taskId: 't20', steps: 1 })))).toEqual({ index: 20, changed: true });
    expect(table.size).toBe(40);
  });

  it('holds whole figures below 2^24 in float32, and makes a column float64, its rows kept, once a part or a run brings a value float32 does not hold', () => {
    const part = (runs: Partial<CompactRun>[]) =>
      encodeColumns(
        runs.map((r, k) => ({ ...compactRun(row({ taskId: `t${k}-${r.steps}` })), ...r })),
        '2026-01-01T00:00:00.000Z',
      );
    const table = RunTable.withRoomFor(10);
    table.appendColumns(
      part([
        { steps: 3, promptTokens: 2 ** 24 - 1, wallSeconds: null },
        { steps: null, promptTokens: 7, wallSeconds: null },
      ]),
    );
    expect(
      [table.numbers.steps, table.numbers.promptTokens, table.numbers.wallSeconds].map((c) => c.constructor.name),
    ).toEqual(['Float32Array', 'Float32Array', 'Float32Array']);
    // Epoch seconds are past 2^24 from the first part on.
    expect(table.numbers.finishedAt).toBeInstanceOf(Float64Array);
    expect(table.number('finishedAt', 0)).toBe(Date.parse('2026-01-01T00:10:00Z') / 1000);
    table.appendColumns(part([{ steps: 4, promptTokens: 2 ** 24, wallSeconds: 2.1 }]));
    expect(
      [table.numbers.steps, table.numbers.promptTokens, table.numbers.wallSeconds].map((c) => c.constructor.name),
    ).toEqual(['Float32Array', 'Float64Array', 'Float64Array']);
    expect([0, 1, 2].map((i) => [table.number('promptTokens', i), table.number('wallSeconds', i)])).toEqual([
      [2 ** 24 - 1, null],
      [7, null],
      [2 ** 24, 2.1],
    ]);
    expect(table.upsert({ ...compactRun(row({ taskId: 'late' })), steps: 0.1 }).changed).toBe(true);
    expect(table.numbers.steps).toBeInstanceOf(Float64Array);
    expect([0, 1, 2, 3].map((i) => table.number('steps', i))).toEqual([3, null, 4, 0.1]);
    expect(table.upsert({ ...compactRun(row({ taskId: 'late' })), steps: 0.1 }).changed).toBe(false);
  });

  it('reads a body streamed in chunks cut anywhere, even inside a value, into the same table as the whole body', () => {
    const runs: CompactRun[] = Array.from({ length: 300 }, (_, k) => ({
      ...compactRun(row({ taskId: `task-${k}`, model: k % 3 ? 'a' : 'b' })),
      steps: k % 7 === 0 ? null : k,
      promptTokens: 70_000 + k,
      wallSeconds: k % 5 ? 1.5 * k : null,
      repo: k % 4 ? null : 'acme/widgets',
    }));
    const bytes = columnsToBytes(encodeColumns(runs, '2026-01-01T00:00:00.000Z'));
    const whole = RunTable.fromColumns([columnsFromBytes(bytes)]);
    // One run already in the table: the body's rows follow it, its dictionaries mapped onto the table's.
    const first = compactRun(row({ taskId: 'before', model: 'b' }));
    for (const [size, startLate] of [
      [1, false],
      [7, true],
      [4096, false],
      [bytes.length, true],
    ] as const) {
      const table = RunTable.fromRuns([first]);
      const reader = new ColumnsReader();
      // Started as soon as the header is in, or (the bytes held meanwhile) once the whole body is.
      let started = false;
      for (let at = 0; at < bytes.length; at += size) {
        reader.push(bytes.slice(at, at + size));
        if (reader.header && !startLate && !started) {
          reader.start(table.reserve(reader.header));
          started = true;
        }
      }
      if (!started) reader.start(table.reserve(reader.header!));
      // Times at one decimal travel scaled: the table takes them as float64 from the reservation on.
      expect(reader.header!.fractional).toContain('wallSeconds');
      expect(reader.header!.fractional).not.toContain('steps');
      expect(table.numbers.wallSeconds).toBeInstanceOf(Float64Array);
      // Made so by the reservation itself, before a value of the body arrives, its rows unknown until then.
      const reserved = new RunTable();
      reserved.reserve(columnsFromBytes(bytes));
      expect([
        reserved.numbers.wallSeconds.constructor.name,
        reserved.numbers.steps.constructor.name,
        reserved.number('wallSeconds', 0),
      ]).toEqual(['Float64Array', 'Float32Array', null]);
      reader.end();
      expect(table.size).toBe(301);
      expect(table.indexOfId(runId(first))).toBe(0);
      expect(Array.from({ length: 300 }, (_, i) => rowOf(table, i + 1))).toEqual(
        Array.from({ length: 300 }, (_, i) => rowOf(whole, i)),
      );
    }
  });

  it('refuses a streamed body that ends early, saying where, and reads an empty one', () => {
    const bytes = columnsToBytes(encodeColumns([compactRun(row())], '2026-01-01T00:00:00.000Z'));
    const streamed = (body: Uint8Array) => {
      const reader = new ColumnsReader();
      reader.push(body);
      if (reader.header) reader.start(new RunTable().reserve(reader.header));
      reader.end();
      return reader.header;
    };
    expect(() => streamed(bytes.subarray(0, 20))).toThrow(
      new ColumnsFormatError('The columns body ends before its header does.'),
    );
    expect(() => streamed(bytes.subarray(0, bytes.length - 8))).toThrow(
      new ColumnsFormatError('The columns body ends before its last column.'),
    );
    expect(streamed(columnsToBytes(encodeColumns([], '2026-01-01T00:00:00.000Z')))?.count).toBe(0);
  });

  it('reads a body wherever its bytes start, and refuses a truncated, foreign or older body with a sentence', () => {
    const bytes = columnsToBytes(encodeColumns([compactRun(row())], '2026-01-01T00:00:00.000Z'));
    const shifted = new Uint8Array(bytes.length + 3);
    shifted.set(bytes, 3);
    expect(columnsFromBytes(shifted.subarray(3)).count).toBe(1);
    expect(() => columnsFromBytes(bytes.subarray(0, bytes.length - 8))).toThrow(
      new ColumnsFormatError('The columns body ends before its last column.'),
    );
    expect(() => columnsFromBytes(new TextEncoder().encode('{"format":"replay-run-columns/3"}'))).toThrow(
      ColumnsFormatError,
    );
    const older = new TextEncoder().encode(JSON.stringify({ format: 'replay-run-columns/3' }));
    const body = new Uint8Array(4 + older.length);
    new DataView(body.buffer).setUint32(0, older.length, true);
    body.set(older, 4);
    expect(() => columnsFromBytes(body)).toThrow(
      `The columns body is in format replay-run-columns/3; this cockpit reads ${COLUMNS_FORMAT}.`,
    );
    // Decimals only for a figure column that travels as whole numbers.
    const empty = columnsToBytes(encodeColumns([], '2026-01-01T00:00:00.000Z'));
    const header = JSON.parse(
      new TextDecoder().decode(empty.subarray(4, 4 + new DataView(empty.buffer).getUint32(0, true))),
    ) as { types: string[]; decimals: number[] };
    const withHeader = (changed: object) => {
      const head = new TextEncoder().encode(JSON.stringify({ ...header, ...changed }));
      // Padded to the 8-byte boundary where its (empty) columns start.
      const out = new Uint8Array((4 + head.length + 7) & ~7);
      new DataView(out.buffer).setUint32(0, head.length, true);
      out.set(head, 4);
      return out;
    };
    expect(columnsFromBytes(withHeader({})).count).toBe(0);
    const figure = TEXT_FIELDS.length + CODE_FIELDS.length;
    for (const decimals of [
      header.decimals.map((d, k) => (k === 0 ? 2 : d)),
      header.decimals.map((d, k) => (k === figure ? 7 : d)),
      header.decimals.slice(1),
    ]) {
      expect(() => columnsFromBytes(withHeader({ decimals }))).toThrow(
        'The columns body does not have one column of the right type per field.',
      );
    }
    expect(() =>
      columnsFromBytes(
        withHeader({
          types: header.types.map((t, k) => (k === figure ? 'f64' : t)),
          decimals: header.decimals.map((d, k) => (k === figure ? 2 : d)),
        }),
      ),
    ).toThrow(ColumnsFormatError);
  });
});

describe('GET /api/spaces/{space}/columns', () => {
  it('answers gzip when accepted and the plain body otherwise, with every run of the space', async () => {
    const store = new CountingTable();
    // One run past the table's page of 1,000.
    for (const r of runsOfTasks(1001)) await store.put(r);
    const { deps } = readDeps(store);
    const gz = await columnsAnswer(deps, 'S', 'gzip');
    expect(gz.headers?.['content-encoding']).toBe('gzip');
    expect(decode(gz.body, true).count).toBe(1001);
    const plain = await columnsAnswer(deps, 'S', 'identity');
    expect(plain.headers?.['content-encoding']).toBeUndefined();
    expect(decode(plain.body, false).count).toBe(1001);
    // Asked for as its own compressed media type, the same gzip bytes travel without Content-Encoding.
    const asType = await columnsAnswer(deps, 'S', 'gzip-media-type');
    expect([asType.contentType, asType.headers?.['content-encoding'], asType.headers?.vary]).toEqual([
      COLUMNS_GZIP_MEDIA_TYPE,
      undefined,
      'accept, accept-encoding',
    ]);
    expect(decode(asType.body, true).count).toBe(1001);
  });

  it('without a persisted snapshot reads the table once, then only what changed since', async () => {
    const store = new CountingTable();
    for (let k = 0; k < 10; k++) await store.put(row({ taskId: `t${k}` }));
    const { deps, setAsOf } = readDeps(store);
    let now = 0;
    const answer = (asOf: string) => {
      setAsOf(asOf);
      return columnsAnswer(deps, 'S', 'gzip', null, () => now);
    };
    const first = decode((await answer('2026-01-01T00:00:05.000Z')).body, true);
    expect(first).toMatchObject({ count: 10, asOf: '2026-01-01T00:00:05.000Z' });

    // A row changes after the snapshot. Within the re-encoding interval the old body is served, with its
    // own asOf: a client that asks `since` that asOf gets the change, so nothing is lost.
    await store.put(row({ taskId: 't0', wallSeconds: 1 }, '2026-01-01T00:00:06.000Z'));
    await store.put(row({ taskId: 'new' }, '2026-01-01T00:00:06.000Z'));
    const stale = decode((await answer('2026-01-01T00:00:10.000Z')).body, true);
    expect(stale).toMatchObject({ count: 10, asOf: '2026-01-01T00:00:05.000Z' });
    expect((await store.listRuns('S', { since: stale.asOf, limit: 100 })).items.map((r) => r.taskId).sort()).toEqual([
      'new',
      't0',
    ]);

    now += REENCODE_AFTER_MS;
    const fresh = decode((await answer('2026-01-01T00:00:20.000Z')).body, true);
    expect(fresh).toMatchObject({ count: 11, asOf: '2026-01-01T00:00:20.000Z' });
    const table = RunTable.fromColumns([fresh]);
    expect(
      table.number(
        'wallSeconds',
        table.indexOfId(runId({ model: 'mlx-community/Qwen3:8b', taskId: 't0', harnessVersion: 'h1' })),
      ),
    ).toBe(1);
  });

  it('shares one table read (and one delta after it) between concurrent requests', async () => {
    const store = new CountingTable();
    // Three pages of the table's 1,000 runs each, read once, and one delta.
    for (const r of runsOfTasks(2001)) await store.put(r);
    const { deps } = readDeps(store);
    await Promise.all(Array.from({ length: 5 }, () => columnsAnswer(deps, 'S', 'gzip')));
    expect(store.queries).toBe(3 + 1);
  });
});

describe('a bytes answer through API Gateway', () => {
  it('crosses the Lambda boundary as base64 with its headers, so the gzip body reaches the browser intact', async () => {
    const store = new CountingTable();
    await store.put(row());
    const answer = await columnsAnswer(readDeps(store).deps, 'S', 'gzip');
    const result = toApiGateway(answer);
    expect(result).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: { 'content-type': COLUMNS_MEDIA_TYPE, 'content-encoding': 'gzip' },
    });
    expect(decode(Buffer.from(result.body!, 'base64'), true).count).toBe(1);
  });
});
