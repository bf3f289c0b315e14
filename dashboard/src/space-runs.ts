// The space's runs as the cockpit loads and then follows them. The first load is the columns answer and,
// when that is the first part of a snapshot in parts, the other parts at once; parts of one snapshot only
// ever go together, and should the snapshot be replaced while they arrive (409), the load starts again
// from the first part. The changes since the snapshot's `asOf` are asked for as soon as the first part
// names it, alongside the other parts, and are in the table before the first render.
import { columnsFromBytes, compactRun } from '../../shared/cockpit/columns.ts';
import { apiPaths, type RunsPage } from '../../shared/cockpit/contract.ts';
import { RunTable } from '../../shared/cockpit/run-table.ts';
import type { RunRow } from '../../shared/schema/run.ts';
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

export async function loadSpaceRuns(api: Api, space: string): Promise<LoadedRuns> {
  for (let attempt = 1; ; attempt++) {
    const first = columnsFromBytes(new Uint8Array(await api.bytes(apiPaths.columns(space))));
    const { count, snapshot } = first.part;
    // Settled here, awaited below: a failure to catch up leaves the snapshot's own asOf to poll from.
    const changes = changesSince(api, space, first.asOf).then(
      (value) => ({ value, error: null }),
      (e: unknown) => ({ value: null, error: (e as Error).message }),
    );
    // Each part is added as it comes, in order, while the later ones still arrive: its arrays are views
    // of its bytes, copied into the table's. Parts hold as many runs as the first, give or take.
    const table = RunTable.withRoomFor(first.count * count);
    table.appendColumns(first);
    const rest = Array.from({ length: snapshot === null ? 0 : count - 1 }, (_, k) =>
      api.bytes(apiPaths.columns(space, { part: k + 1, snapshot: snapshot! })).then(
        (bytes) => ({ bytes }),
        (error: unknown) => ({ error }),
      ),
    );
    try {
      for (const part of rest) {
        const arrived = await part;
        if ('error' in arrived) throw arrived.error;
        table.appendColumns(columnsFromBytes(new Uint8Array(arrived.bytes)));
      }
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 409) || attempt === ATTEMPTS) throw e;
      continue;
    }
    const caughtUp = await changes;
    for (const row of caughtUp.value?.runs ?? []) table.upsert(compactRun(row));
    return { table, asOf: caughtUp.value?.asOf ?? first.asOf, catchUpError: caughtUp.error };
  }
}
