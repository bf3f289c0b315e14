// Text replay-push did not write (an endpoint's answer, a run folder's name, a harness's ids) as it is kept and as it
// is shown (docs/contract.md §7): cut to a bounded length, and with every control, format and line-separator
// character written as a visible `\uXXXX` escape, so no answer can move the cursor, retitle the terminal
// (OSC), write an OSC 8 link, reorder a line (bidi) or forge a line of output.

/** The most of one text of an answer replay-push keeps, in characters. */
export const MAX_ANSWER_TEXT = 500;

/** `text` cut to `max` characters (whole code points), ending with `…` when it was cut. */
export function cutText(text: string, max = MAX_ANSWER_TEXT): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length > max ? `${points.slice(0, max - 1).join('')}…` : text;
}

// C0 and C1 controls, DEL, format characters (bidi overrides and isolates, zero-width), line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/gu;
// The same but for line feed and tab, which replay-push's own output uses.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/gu;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One value shown on a terminal: every control character visible, a line feed included (it could forge a line). */
export const visible = (text: string): string => text.replace(UNPRINTABLE, escape);

/** A whole line of output as it reaches the terminal: line feeds and tabs kept, every other control character visible. */
export const visibleLine = (text: string): string => text.replace(UNPRINTABLE_BUT_LINES, escape);
