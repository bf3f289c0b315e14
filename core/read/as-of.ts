import type { Clock } from '../ports.ts';

/** `asOf` trails the clock by this much, so a row whose write was in flight during the query is seen next time. */
export const AS_OF_SAFETY_MS = 5_000;

/** A safe `since` for the next delta, taken before the query it belongs to. */
export const asOfNow = (clock: Clock) => new Date(clock.now().getTime() - AS_OF_SAFETY_MS).toISOString();
