// Verdict colours from the Okabe–Ito palette, which stays distinguishable under the common forms of
// colour blindness: under simulated protanopia, deuteranopia and tritanopia every two verdict colours
// stay at least 15 ΔE*ab apart (the browser suite checks it), and matrix cells are separated by a white
// gap so neighbours never merge. Colour is never the only cue: every bar, cell and chip also carries its name.
import type { HiddenColumn } from '#analytics/rate-figures.ts';
import type { VerdictKey } from '#analytics/result-filters.ts';

export { HIDDEN_TEST_LABELS, VERDICT_LABELS, VERDICT_ORDER, type VerdictKey } from '#analytics/result-filters.ts';

export const VERDICT_COLOURS: Record<VerdictKey, string> = {
  resolved: '#009E73',
  partial: '#E69F00',
  wrong: '#D55E00',
  no_change: '#CC79A7',
  error: '#3D3D3D',
  excluded: '#56B4E9',
  // A run whose "resolved" a flag rule withheld (judgeState "flagged"): no verdict, and not "not judged yet" either.
  flagged: '#F0E442',
  unjudged: '#D4D4D4',
};

/** Hidden-test results, in the verdict colours they agree with. */
export const HIDDEN_TEST_COLOURS: Record<HiddenColumn, string> = {
  pass: VERDICT_COLOURS.resolved,
  fail: VERDICT_COLOURS.wrong,
  error: VERDICT_COLOURS.error,
  none: VERDICT_COLOURS.unjudged,
};

export const MODEL_COLOUR = '#0072B2';
export const ORIGINAL_COLOUR = '#8C8C8C';

/** '#RRGGBB' as one opaque canvas pixel, for Uint32Array views of ImageData (little-endian RGBA, as every browser runs). */
export function pixelOf(hex: string): number {
  const v = Number.parseInt(hex.slice(1), 16);
  return ((0xff << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff)) >>> 0;
}

/**
 * One colour per configuration where curves of several share a chart: Okabe–Ito's, then Tol's muted scheme for the
 * rest (12 in all, the most Compare takes); each curve carries its name as well.
 */
export const CONFIGURATION_COLOURS = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#882255',
  '#44AA99',
  '#999933',
  '#AA4499',
  '#661100',
];
