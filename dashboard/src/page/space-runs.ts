// The space's runs as the cockpit loads and then follows them. The first load is the columns answer and,
// when that is the first part of a snapshot in parts, the other parts at once, each read into the table as
// it streams in (columns-reader.ts) and asked for compressed as its own media type, which the page inflates
// itself: a browser that inflates and buffers the bodies for the page spent more on the copies than the page
// spends on the runs (docs/contract.md §10). Parts of one snapshot only ever go together, and should the
// snapshot be replaced while they arrive (409), the load starts again from the first part. A part may
// replace runs of the parts before it (the snapshot's delta parts): the table keeps each run once. The changes
// since the snapshot's `asOf` are asked for as soon as the first part names it, alongside the other
// parts, and are in the table before the first render. A space above the cockpit's browser limit answers an
// empty first body saying so, and the page reads it through the read API instead (engine-cockpit.ts).
import {
  COLUMNS_GZIP_MEDIA_TYPE,
  COLUMNS_MEDIA_TYPE,
  ColumnsFormatError,
  compactRun,
  type ColumnsHeader,
  type ColumnsSink,
  type EngineReading,
} from '#analytics/columns.ts';
import { ColumnsReader } from '#analytics/columns-reader.ts';
import { apiPaths, type RunsPage } from '#analytics/contract.ts';
import { RunTable } from '#analytics/run-table.ts';
import type { RunRow } from '#schema/run.ts';
import { ApiError, type Api } from './api.ts';

const ATTEMPTS = 3;

/** Every run changed since `since`, page by page, and the `asOf` to ask from next time. */
export async function changesSince(api: Api, space: string, since: string): Promise<{ runs: RunRow[]; asOf: string }> {
  const runs: RunRow[] = [];
  let cursor: string | undefined;
  let asOf: string | undefined;
  do {
    const page = await api.json<RunsPage>(apiPaths.runs(space, { since, cursor, limit: 1000 }));
    asOf ??= page.asOf;
    runs.push(...page.runs);
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return { runs, asOf: asOf! };
}

export interface LoadedRuns {
  table: RunTable;
  /** Where the next `since` starts. */
  asOf: string;
  /** Why the changes since the snapshot could not be fetched (the next poll fetches them), or null. */
  catchUpError: string | null;
}

/** A space the page reads through the engine: the first answer said so, with no run in it (docs/contract.md §6). */
export interface EngineSpace {
  engine: EngineReading;
  asOf: string;
}

export async function loadSpaceRuns(api: Api, space: string): Promise<LoadedRuns | EngineSpace> {
  for (let attempt = 1; ; attempt++) {
    // Once one part fails, the others still streaming are cancelled.
    const aborting = new AbortController();
    try {
      return await loadSnapshot(api, space, aborting.signal);
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 409) || attempt === ATTEMPTS) throw e;
    } finally {
      aborting.abort();
    }
  }
}

async function loadSnapshot(api: Api, space: string, signal: AbortSignal): Promise<LoadedRuns | EngineSpace> {
  const first = await openColumns(api, apiPaths.columns(space), signal);
  const { asOf, count, part, engine } = first.header;
  if (engine) return { engine, asOf };
  // Settled here, awaited below: a failure to catch up leaves the snapshot's own asOf to poll from.
  const changes = changesSince(api, space, asOf).then(
    (value) => ({ value, error: null }),
    (e: unknown) => ({ value: null, error: (e as Error).message }),
  );
  // Parts apply in the order 1, 2, …, then 0 (the newest). The first `base` of them hold distinct runs and
  // are read into the table as they stream in; each later one holds runs that replace the same runs before
  // it, read into a table of its own and merged, in order, once the base is in.
  const order = [...Array.from({ length: part.count - 1 }, (_, k) => k + 1), 0];
  const opened = new Map<number, Promise<OpenedColumns>>([[0, Promise.resolve(first)]]);
  for (let k = 1; part.snapshot !== null && k < part.count; k++)
    opened.set(k, openColumns(api, apiPaths.columns(space, { part: k, snapshot: part.snapshot }), signal));
  // Parts hold as many runs as the first, give or take.
  const table = RunTable.withRoomFor(count * part.base);
  // Each base part's rows follow the previous part's, taken as soon as its header is in; the parts stream in together.
  let previous: Promise<unknown> = Promise.resolve();
  const filled = order.map((k, position) => {
    const opening = opened.get(k)!;
    if (position >= part.base)
      return opening.then(async (columns) => {
        const superseding = RunTable.withRoomFor(columns.header.count);
        await columns.fill(superseding.reserve(columns.header));
        return superseding;
      });
    const rows = Promise.all([opening, previous]).then(([columns]) => ({
      columns,
      rows: table.reserve(columns.header),
    }));
    previous = rows;
    return rows.then(({ columns, rows }) => columns.fill(rows)).then(() => null);
  });
  for (const superseding of await Promise.all(filled)) if (superseding) table.upsertAll(superseding);
  const caughtUp = await changes;
  for (const row of caughtUp.value?.runs ?? []) table.upsert(compactRun(row));
  return { table, asOf: caughtUp.value?.asOf ?? asOf, catchUpError: caughtUp.error };
}

interface OpenedColumns {
  header: ColumnsHeader;
  /** Reads the rest of the body into `rows`. */
  fill(rows: ColumnsSink): Promise<void>;
}

/** Asks for a columns body and reads it up to the end of its header. */
async function openColumns(api: Api, path: string, signal: AbortSignal): Promise<OpenedColumns> {
  const response = await api.response(path, {
    accept: `${COLUMNS_GZIP_MEDIA_TYPE}, ${COLUMNS_MEDIA_TYPE};q=0.5`,
    signal,
  });
  if (!response.body) throw new ColumnsFormatError(`${path} answered without a body.`);
  // The compressed media type reaches the page as it was sent and is inflated here, as it streams; a body
  // sent with Content-Encoding instead was inflated by the browser.
  const compressed = response.headers.get('content-type')?.split(';')[0]!.trim() === COLUMNS_GZIP_MEDIA_TYPE;
  const stream = (compressed ? response.body.pipeThrough(new DecompressionStream('gzip')) : response.body).getReader();
  const reader = new ColumnsReader();
  const next = async () => {
    const { done, value } = await stream.read();
    if (done) reader.end();
    else reader.push(value);
    return done;
  };
  while (!reader.header) await next();
  return {
    header: reader.header,
    async fill(rows) {
      reader.start(rows);
      while (!(await next()));
    },
  };
}
