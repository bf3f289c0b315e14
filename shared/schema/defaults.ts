// Defaults of the configuration (docs/contract.md §9) that the cockpit's statistics need too, as plain constants
// the browser can import without zod.

/** `cockpits.<name>.minN` when the configuration does not say. */
export const DEFAULT_MIN_N = 10;
