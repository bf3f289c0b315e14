// The Athena engine against the stand-in that speaks Athena's wire protocol (test/helpers/athena-stand-in.ts):
// rows read across pages and typed by the result's column metadata, a failed query and one that runs past the
// poll's time reported as errors naming the query (the latter stopped). The figures over the run dataset are
// checked in run-dataset-engine.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { AthenaEngine, AthenaQueryError } from '#adapters/aws/athena-engine.ts';
import { EngineAnswerTooLargeError } from '#core/ports.ts';
import { S3RVER_OBJECT_SUFFIX } from '#adapters/local/duckdb-engine.ts';
import { startAthenaStandIn, type AthenaStandIn } from '../helpers/athena-stand-in.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';

let stores: TestStores;
let standIn: AthenaStandIn;
let slowStandIn: AthenaStandIn;
const polling = { firstMs: 1, factor: 2, maxMs: 10, timeoutMs: 20_000 };

beforeAll(async () => {
  stores = await startTestStores();
  const settings = {
    s3: stores.emulators.s3,
    bucketDirectory: (bucket: string) => join(stores.emulators.s3Directory, bucket),
    objectSuffix: S3RVER_OBJECT_SUFFIX,
    workGroups: { replay: { outputLocation: `s3://${stores.emulators.names.dataBucket}/athena-results/` } },
    tables: [],
  };
  standIn = await startAthenaStandIn({ ...settings, runningPolls: 3 });
  slowStandIn = await startAthenaStandIn({ ...settings, runningPolls: Number.MAX_SAFE_INTEGER });
}, 60_000);

afterAll(async () => {
  await standIn?.stop();
  await slowStandIn?.stop();
  await stores?.stop();
});

const engineOf = (stand: AthenaStandIn, overrides: Partial<ConstructorParameters<typeof AthenaEngine>[2]> = {}) =>
  new AthenaEngine(stand.client, stores.data, {
    workGroup: 'replay',
    dataBucket: stores.emulators.names.dataBucket,
    database: 'replay_runs',
    table: 'runs',
    polling,
    ...overrides,
  });

describe('the Athena engine', () => {
  it('names the Glue table as the relation the queries read', () => {
    expect(engineOf(standIn).runDataset).toBe('"replay_runs"."runs"');
  });

  // Texts with a comma, quotes, a line break, an empty one and nulls (beside a quoted text and beside none),
  // numbers, booleans and instants.
  const TYPED_ROWS = `SELECT CASE WHEN range % 4 = 1 THEN '' WHEN range % 4 = 2 THEN 'lead' END AS lead,
       range AS n, range / 4.0 AS share, range % 2 = 0 AS even,
       CASE WHEN range % 3 = 0 THEN NULL WHEN range % 5 = 0 THEN '' ELSE 'task-' || range || ', "a"' || chr(10) || 'b' END AS task,
       TIMESTAMP '2026-11-29 12:00:00.250' AS at,
       CASE WHEN range % 2 = 0 THEN 'say "hi"' WHEN range % 3 = 0 THEN '' END AS note
     FROM range(23) ORDER BY range`;
  /** The calls the engine made to Athena for its last query, after StartQueryExecution. */
  const callsOfLastQuery = () => standIn.calls.slice(standIn.calls.lastIndexOf('StartQueryExecution') + 1);

  it('reads an answer of one page from that page, each value typed by its column, the header row left out', async () => {
    const rows = await engineOf(standIn, { pageSize: 30 }).rows(TYPED_ROWS);
    expect(rows).toHaveLength(23);
    const at = '2026-11-29T12:00:00.250Z';
    expect(rows[0]).toEqual({ lead: null, n: 0, share: 0, even: true, task: null, at, note: 'say "hi"' });
    expect(rows[3]).toMatchObject({ lead: null, n: 3, task: null, note: '' });
    expect(rows[5]).toMatchObject({ lead: '', n: 5, task: '', note: null });
    // Empty texts first and last, a null between them.
    expect(rows[9]).toMatchObject({ lead: '', n: 9, task: null, note: '' });
    expect(rows[22]).toEqual({
      lead: 'lead',
      n: 22,
      share: 5.5,
      even: true,
      task: 'task-22, "a"\nb',
      at,
      note: 'say "hi"',
    });
    expect(rows.map((r) => r['n'])).toEqual(Array.from({ length: 23 }, (_, i) => i));
    // Polled past the stand-in's three RUNNING answers, then one page (the header row and 23 rows).
    const calls = callsOfLastQuery();
    const polls = calls.filter((c) => c === 'GetQueryExecution').length;
    expect(polls).toBeGreaterThanOrEqual(4);
    expect(calls).toEqual([...Array(polls).fill('GetQueryExecution'), 'GetQueryResults']);
  });

  it('reads an answer longer than a page from the result object Athena wrote, in one read, the same values', async () => {
    const onePage = await engineOf(standIn, { pageSize: 30 }).rows(TYPED_ROWS);
    const reads = standIn.calls.length;
    const rows = await engineOf(standIn, { pageSize: 7 }).rows(TYPED_ROWS);
    expect(rows).toEqual(onePage);
    // One page for the column types, then the object: not four pages of 7 rows one after another.
    expect(standIn.calls.slice(reads).filter((c) => c === 'GetQueryResults')).toEqual(['GetQueryResults']);
  });

  it('refuses an answer of more rows than one read may hold, before reading it', async () => {
    const refused = engineOf(standIn, { pageSize: 7, maxAnswerRows: 20 }).rows(TYPED_ROWS);
    await expect(refused).rejects.toThrow(EngineAnswerTooLargeError);
    await expect(refused).rejects.toThrow(/holds 23 rows, more than the 20 one read may hold: narrow the filter/);
    expect(callsOfLastQuery().at(-1)).toBe('GetQueryRuntimeStatistics');
    expect(await engineOf(standIn, { pageSize: 7, maxAnswerRows: 23 }).rows(TYPED_ROWS)).toHaveLength(23);
  });

  it('reports a query Athena failed with its reason', async () => {
    const failed = engineOf(standIn).rows('SELECT no_such_column FROM range(1)');
    await expect(failed).rejects.toThrow(AthenaQueryError);
    await expect(failed).rejects.toThrow(/Athena query [\w-]+ failed: .*no_such_column/);
  });

  it('refuses a workgroup that does not exist, as Athena answers it', async () => {
    await expect(engineOf(standIn, { workGroup: 'other' }).rows('SELECT 1 AS one')).rejects.toThrow(
      'WorkGroup other is not found.',
    );
  });

  it('stops a query that does not finish within the poll time and says so', async () => {
    const engine = engineOf(slowStandIn, { polling: { firstMs: 1, factor: 2, maxMs: 5, timeoutMs: 50 } });
    await expect(engine.rows('SELECT 1 AS one')).rejects.toThrow(/did not finish within 50 ms \(last state RUNNING\)/);
    expect(slowStandIn.calls.at(-1)).toBe('StopQueryExecution');
    const stopped = [...slowStandIn.executions.values()].at(-1)!;
    await stopped.done;
    expect(stopped.state).toBe('CANCELLED');
  });
});
