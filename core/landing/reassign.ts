// An operator's answer to run-id squatting (docs/contract.md §4, docs/deploy.md "Reassigning a run"): the run is
// given to the host that really ran it. That host's newest attempt, kept apart as foreign, becomes the row (its
// figures, patch and hidden-test result, judged anew), and the squatter's row is archived as a foreign attempt,
// with its verdict; one conditional write, the archive first, so a reassign sent twice ends in the same state.
import { optimisticUpdate, runRecord } from '../optimistic-update.ts';
import type { AttemptStore, Clock, ObjectStore, RunStore } from '../ports.ts';
import { archived, attemptAsRow, newestAttempt, patchOfAttempt, withAttempt } from './land.ts';
import { pinsOfModel, spaceOf, type ReplayConfig } from '#schema/config.ts';
import type { RunRow } from '#schema/run.ts';
import { describeRun, sameRun } from '#schema/run-id.ts';

export type Reassignment = 'reassigned' | 'already-owned';

export class ReassignError extends Error {
  override readonly name = 'ReassignError';
}

export async function reassignRun(
  deps: {
    config: ReplayConfig;
    runs: RunStore;
    attempts: Pick<AttemptStore, 'listAttempts' | 'archiveAttempt'>;
    /** The runs' texts: whether an attempt archived before it was kept on it carried a patch. */
    objects: Pick<ObjectStore, 'getText'>;
    clock: Clock;
  },
  space: string,
  id: string,
  host: string,
): Promise<Reassignment> {
  const settings = spaceOf(deps.config, space);
  if (!settings) throw new ReassignError(`There is no space "${space}" in the configuration.`);
  if (!settings.senders.includes(host))
    throw new ReassignError(
      `${host} is not a sender of space ${space}; its senders are ${settings.senders.join(', ')}.`,
    );
  return optimisticUpdate<RunRow, Reassignment>(
    runRecord(deps.runs, space, id),
    async (current) => {
      if (!current) throw new ReassignError(`There is no run "${id}" in space ${space}.`);
      if (current.value.host === host) return { done: 'already-owned' };
      // Read again on each try, so an attempt that lands meanwhile is weighed and counted. The host's own runs
      // under this id are kept apart. Given a row of another run (a model differing by ":" against "_"), or one
      // it has not sent (its run may still be on the way, and be that other run), the host's every later
      // delivery of its own could be refused as an id collision: only the run the host sent is given.
      const attempts = await deps.attempts.listAttempts(space, id);
      const hostRuns = attempts.filter((attempt) => attempt.host === host);
      // Given to the pinned host, a look-alike would stay its row and refuse the host's own run (§4 reclaims).
      const { model } = current.value;
      const pinned = pinsOfModel(settings, model).find(([name, hosts]) => name !== model && hosts.includes(host));
      const other = hostRuns.find((attempt) => !sameRun(attempt, current.value));
      if (other)
        throw new ReassignError(
          `Run "${id}" is the run of ${describeRun(current.value)}, not the ${describeRun(other)} ${host} sent ` +
            `under this id: given to ${host}, it would refuse ${host}'s own run. Pin ${other.model} to ${host} ` +
            `in the space's hostsByModel instead: ${host}'s next run of it then takes this id.`,
        );
      if (pinned)
        throw new ReassignError(
          `Run "${id}" is of model ${model}, a look-alike of ${pinned[0]}, which the space pins to ${host}: ` +
            `${host}'s own run of ${pinned[0]} takes this id when it lands, so nothing is reassigned.`,
        );
      if (hostRuns.length === 0)
        throw new ReassignError(
          `${host} has landed no run under "${id}" yet, so nothing shows the row is its run: reassign it once ` +
            `${host}'s run has landed (kept apart as foreign), or pin the model to ${host} in hostsByModel.`,
        );
      const promoted = newestAttempt(hostRuns)!;
      const patch = await patchOfAttempt(deps.objects, promoted);
      const replaced = archived(current.value, deps.clock, {});
      return {
        write: attemptAsRow(promoted, patch, withAttempt(attempts, replaced), deps.clock.now().toISOString()),
        result: 'reassigned',
        before: () => deps.attempts.archiveAttempt(replaced),
      };
    },
    { what: `reassigning ${id}` },
  );
}
