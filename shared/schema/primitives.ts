// Building blocks shared by every record schema. Figures the sender did not measure are stored as null,
// never 0, so every optional figure normalises "absent" to null. Every string a delivery carries is built on
// `text`, so none can hold what the table, the object keys or the cockpit cannot take.
import * as z from './zod.ts';
import { TIERS } from './enums.ts';

// With the `u` flag a surrogate pair is one code point, so this matches only half of a pair on its own: JSON may
// carry one (`\ud800`), and it has no UTF-8 form, so no key, object or header could hold it.
const LONE_SURROGATE = /\p{Cs}/u;

/** Any string that is well-formed Unicode (docs/contract.md §2): the base of every text a record carries. */
export const text = z
  .string()
  .check(
    z.refine<string>((s) => !LONE_SURROGATE.test(s), 'must be well-formed Unicode (no lone surrogate such as \\ud800)'),
  );

// C0/C1 controls, format characters (\p{Cf}: the bidirectional overrides and isolates, zero-width spaces and
// joiners, the soft hyphen, the byte-order mark, tags), the line and paragraph separators and the noncharacters
// (U+FFFF among them, which no SQS message may hold): each can disguise a name or split one into look-alikes.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\p{Cf}\u2028\u2029\p{Noncharacter_Code_Point}]/u;

const printable = z.refine<string>(
  (s) => !FORBIDDEN_CHARS.test(s),
  'must not contain control, format (bidirectional, zero-width), line-separator or noncharacter code points',
);

const IDENTITY_CHECKS = [z.minLength(1), z.maxLength(200), printable];

/** A string in Unicode normalisation form C, checked after normalising: one name, one spelling. */
const nfc = (...checks: z.core.$ZodCheck<string>[]) =>
  z.pipe(
    z.pipe(
      text,
      z.transform((s: string) => s.normalize('NFC')),
    ),
    z.string().check(...checks),
  );

/** A free identity string such as a model name: 1–200 printable characters, NFC-normalised. */
export const identity = nfc(...IDENTITY_CHECKS);

/** Identity strings used in paths and keys (taskId, harnessVersion, host, space): also no `/` or whitespace. */
export const pathSafeIdentity = nfc(
  ...IDENTITY_CHECKS,
  z.refine<string>((s) => !/[/\s]/u.test(s), 'must not contain "/" or whitespace'),
);

/** `schema` where absent (undefined or null) reads as null. */
export const orNull = <T extends z.core.SomeType>(schema: T) =>
  z.pipe(
    z.nullish(schema),
    z.transform((v: z.output<T> | null | undefined) => v ?? null),
  );

/** `schema`'s output after `fn`, as the chained API's `.transform`. */
export const mapped = <T extends z.core.SomeType, O>(schema: T, fn: (value: z.output<T>) => O) =>
  z.pipe(schema, z.transform(fn));

/**
 * ISO-8601 instant, normalised to UTC with millisecond precision so instants compare as strings. Its UTC year has
 * four digits: "0000-01-01T00:00:00+00:01" is in year −1 in UTC, which toISOString writes with six digits and
 * sign, a form this schema would refuse when landing reads it back (a 202 that never lands).
 */
export const instant = mapped(
  z.iso.datetime({ offset: true }).check(
    // A text the format refuses is named by it alone (its checks all run).
    z.refine((s) => {
      const at = new Date(s);
      return Number.isNaN(at.getTime()) || /^\d{4}-/.test(at.toISOString());
    }, 'must fall in the years 0000 to 9999 in UTC'),
  ),
  (s) => new Date(s).toISOString(),
);

/**
 * The figures a record may carry (docs/contract.md §3): at most 2^53 − 1 in magnitude, so JSON gives back the very
 * number that was sent, and 0 or at least 1e-130, below which DynamoDB refuses a number (it would fail at landing,
 * for ever, after its 202).
 */
export const MAX_FIGURE = Number.MAX_SAFE_INTEGER;
export const MIN_FIGURE_MAGNITUDE = 1e-130;
export const isStorableFigure = (x: number) =>
  x === 0 || (Math.abs(x) <= MAX_FIGURE && Math.abs(x) >= MIN_FIGURE_MAGNITUDE);
const storable = z.refine<number>(
  isStorableFigure,
  `must be 0 or between ${MIN_FIGURE_MAGNITUDE} and ${MAX_FIGURE} in magnitude (a figure the table can store)`,
);

export const nonEmptyText = text.check(z.minLength(1));
/** Whole figures: zod's int is already bounded by the safe integers. */
export const count = z.int().check(z.nonnegative());
export const positiveCount = z.int().check(z.positive());
export const amount = z.number().check(z.nonnegative(), storable);
export const optionalCount = orNull(count);
export const optionalAmount = orNull(amount);
// Text a record carries. A short text (a model family, a hardware name, a path) has no control character at all. A
// long one keeps TAB and LF, its line structure: a summary and test details. A patch also keeps CR and FF, which
// diffs carry byte for byte from the files they change (CRLF line ends, page breaks in source files).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LONG_TEXT_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const PATCH_CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/u;
const without = (pattern: RegExp, what: string) =>
  z.refine<string>((s) => !pattern.test(s), `must not contain ${what}`);

export const shortText = (max: number) => text.check(z.maxLength(max), without(CONTROL, 'control characters'));
export const longText = (max: number) =>
  text.check(z.maxLength(max), without(LONG_TEXT_CONTROL, 'control characters other than TAB and LF'));
export const patchText = text.check(without(PATCH_CONTROL, 'control characters other than TAB, LF, CR and FF'));

/** A name a reader sees on one line (a hidden test's id): 1 to `max` characters, printable as an identity is. */
export const printableName = (max: number) => text.check(z.minLength(1), z.maxLength(max), printable);

export const optionalText = (max = 200) => orNull(shortText(max));
export const optionalBool = orNull(z.boolean());
export const optionalInstant = orNull(instant);

export const tier = z.enum(TIERS);
export const repoName = z.string().check(z.regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must look like "owner/name"'));
export const gitSha = z.string().check(z.regex(/^[0-9a-f]{7,64}$/, 'must be a hexadecimal commit SHA'));
