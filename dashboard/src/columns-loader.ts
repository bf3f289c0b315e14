// The space's runs as the cockpit first loads them: the columns answer, and when it is the first part of a
// snapshot in parts, the other parts at once. Parts of one snapshot only ever go together; should the
// snapshot be replaced while its parts arrive (409), the load starts again from the first part.
import { apiPaths, type RunColumns } from '../../shared/cockpit/contract.ts';
import { RunTable } from '../../shared/cockpit/run-table.ts';
import { ApiError, type Api } from './api.ts';

const ATTEMPTS = 3;

export async function loadColumns(api: Api, space: string): Promise<{ table: RunTable; asOf: string }> {
  for (let attempt = 1; ; attempt++) {
    const first = await api.json<RunColumns>(apiPaths.columns(space));
    const { count, snapshot } = first.part;
    try {
      const rest = snapshot === null ? [] : await Promise.all(Array.from({ length: count - 1 }, (_, k) => api.json<RunColumns>(apiPaths.columns(space, { part: k + 1, snapshot }))));
      return { table: RunTable.fromColumns([first, ...rest]), asOf: first.asOf };
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 409) || attempt === ATTEMPTS) throw e;
    }
  }
}
