// Building blocks shared by every record schema. Figures the sender did not measure are stored as null,
// never 0, so every optional figure normalises "absent" to null.
import * as z from 'zod';
import { TIERS } from './enums.ts';

// C0/C1 controls and the Unicode bidirectional overrides/isolates that can disguise a name.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** A free identity string such as a model name: 1–200 printable characters. */
export const identity = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => !FORBIDDEN_CHARS.test(s), 'must not contain control or bidirectional-override characters');

/** Identity strings used in paths and keys (taskId, harnessVersion, host, space): also no `/` or whitespace. */
export const pathSafeIdentity = identity.refine((s) => !/[/\s]/u.test(s), 'must not contain "/" or whitespace');

/** ISO-8601 instant, normalised to UTC with millisecond precision so instants compare as strings. */
export const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

export const optionalCount = z.number().int().nonnegative().nullish().transform((v) => v ?? null);
export const optionalAmount = z.number().nonnegative().finite().nullish().transform((v) => v ?? null);
export const optionalText = (max = 200) => z.string().max(max).nullish().transform((v) => v ?? null);
export const optionalBool = z.boolean().nullish().transform((v) => v ?? null);
export const optionalInstant = instant.nullish().transform((v) => v ?? null);

export const tier = z.enum(TIERS);
export const repoName = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must look like "owner/name"');
export const gitSha = z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a hexadecimal commit SHA');
