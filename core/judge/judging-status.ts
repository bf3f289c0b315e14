// A space's judging as a whole: held (`paused` after the provider refused the key or the model,
// `waiting-credentials` without credentials) or `judging`. While held, rows wait and the sweeper sends one
// probe per sweep instead of every due row.
import { optimisticUpdate, judgingStatusRecord, type UpdateDecision } from '../optimistic-update.ts';
import type { JudgingStatus, JudgingStatusStore } from '../ports.ts';
import type { JudgeProblem } from './transitions.ts';

export const judgingAgain = (space: string, now: Date): JudgingStatus => ({
  space,
  state: 'judging',
  since: now.toISOString(),
  reason: null,
  probeRunId: null,
});

/** Puts the space on hold; true when this call is the one that did (so it is logged and counted once). */
export function holdJudging(
  store: JudgingStatusStore,
  space: string,
  state: 'paused' | 'waiting-credentials',
  reason: JudgeProblem,
  now: Date,
): Promise<boolean> {
  return optimisticUpdate(
    judgingStatusRecord(store, space),
    (status): UpdateDecision<JudgingStatus, boolean> =>
      status?.value.state === state && status.value.reason?.code === reason.code
        ? { done: false }
        : {
            write: { space, state, since: now.toISOString(), reason, probeRunId: null },
            result: status?.value.state !== state,
          },
    { what: `recording that judging of ${space} is ${state}` },
  );
}

/** Ends a hold; a space already judging is left as it is. */
export function resumeJudging(store: JudgingStatusStore, space: string, now: Date): Promise<void> {
  return optimisticUpdate(
    judgingStatusRecord(store, space),
    (status): UpdateDecision<JudgingStatus, void> =>
      !status || status.value.state === 'judging'
        ? { done: undefined }
        : { write: judgingAgain(space, now), result: undefined },
    { what: `resuming judging of ${space}` },
  );
}
