// Read, decide, conditional write, bounded retry: the one loop behind every record that writers race on
// (run rows, host records, a space's judging status). `decide` sees the current revision and either names
// the value to write or ends without writing; a lost race re-reads and decides again, so every writer's
// decision is made on the latest state. `decide` only reads; a write that must be stored before the record
// changes (archiving the attempt a row replaces) is named as `before`, idempotent since a lost race repeats it.
import type { HostStore, JudgingStatus, JudgingStatusStore, RunStore, Versioned } from './ports.ts';
import type { StoredHost } from '#schema/host.ts';
import type { RunRow } from '#schema/run.ts';

export interface VersionedRecord<T> {
  read(): Promise<Versioned<T> | null>;
  /** Writes if the stored revision is still `expectedRev` (null: the record must not exist). False on conflict. */
  write(value: T, expectedRev: number | null): Promise<boolean>;
}

export type UpdateDecision<T, R> = { write: T; result: R; before?: () => Promise<void> } | { done: R };

export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}

export const DEFAULT_MAX_CONFLICTS = 20;

export async function optimisticUpdate<T, R>(
  record: VersionedRecord<T>,
  decide: (current: Versioned<T> | null) => UpdateDecision<T, R> | Promise<UpdateDecision<T, R>>,
  options: { what: string; maxConflicts?: number; current?: Versioned<T> | null },
): Promise<R> {
  const maxConflicts = options.maxConflicts ?? DEFAULT_MAX_CONFLICTS;
  let current = options.current !== undefined ? options.current : await record.read();
  for (let conflict = 0; conflict < maxConflicts; conflict++) {
    const decision = await decide(current);
    if ('done' in decision) return decision.done;
    await decision.before?.();
    if (await record.write(decision.write, current?.rev ?? null)) return decision.result;
    current = await record.read();
  }
  throw new ConflictError(`Gave up ${options.what} after ${maxConflicts} conflicting writes.`);
}

export const runRecord = (runs: RunStore, space: string, id: string): VersionedRecord<RunRow> => ({
  read: () => runs.getRun(space, id),
  write: (row, rev) => runs.putRun(row, rev),
});

export const hostRecord = (hosts: HostStore, space: string, host: string): VersionedRecord<StoredHost> => ({
  read: () => hosts.getHost(space, host),
  write: (value, rev) => hosts.putHost(value, rev),
});

export const judgingStatusRecord = (store: JudgingStatusStore, space: string): VersionedRecord<JudgingStatus> => ({
  read: () => store.getJudgingStatus(space),
  write: (value, rev) => store.putJudgingStatus(value, rev),
});
