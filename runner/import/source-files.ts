// Reading a harness's output files: each as replay-push reads any file it did not write (never through a link, never
// a FIFO, within a cap; a JSON error gives a position, never the text), and small helpers to pick typed values out
// of the untyped JSON without guessing: a value of the wrong type reads as absent.
import { stat } from 'node:fs/promises';
import { JsonTextError, parseJsonText } from '../json-text.ts';
import { readFileSafely, UnsafeFileError } from '../safe-read.ts';
import type { ImportedRun, SkippedRun } from './imported-run.ts';

const MIB = 1024 * 1024;
/** A trajectory or report read whole: larger ones are refused by name. */
export const MAX_SOURCE_JSON_BYTES = 64 * MIB;

/** A source file that cannot be read or is not what its format needs: named, and its runs skipped. */
export class SourceError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'SourceError';
  }
}

export async function readSourceText(path: string, maxBytes = MAX_SOURCE_JSON_BYTES): Promise<string> {
  try {
    const read = await readFileSafely(path, { maxBytes });
    if (!read) throw new SourceError(path, 'does not exist.');
    return read.bytes.toString('utf8');
  } catch (error) {
    if (error instanceof UnsafeFileError) throw new SourceError(error.path, error.reason);
    throw error;
  }
}

export async function readSourceJson(path: string, maxBytes = MAX_SOURCE_JSON_BYTES): Promise<unknown> {
  const text = await readSourceText(path, maxBytes);
  try {
    return parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonTextError) throw new SourceError(path, `${error.message}.`);
    throw error;
  }
}

/** When the file was last written, as an instant: the time of a source that records none. */
export const modifiedAt = async (path: string) => (await stat(path)).mtime.toISOString();

export type Json = Record<string, unknown>;
export const asObject = (value: unknown): Json | null =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
export const asString = (value: unknown): string | null => (typeof value === 'string' ? value : null);
export const asNumber = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
export const asCount = (value: unknown): number | null => {
  const n = asNumber(value);
  return n !== null && Number.isInteger(n) && n >= 0 ? n : null;
};
export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A timestamp as an instant; one without a zone (OpenHands writes them so) is read as UTC. */
export function asInstant(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const zoned = /([zZ]|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value.replace(' ', 'T')}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** Seconds from one instant to another, both as the source gives them; null unless both are instants. */
export function secondsBetween(from: unknown, to: unknown): number | null {
  const start = asInstant(from);
  const end = asInstant(to);
  return start && end ? (Date.parse(end) - Date.parse(start)) / 1000 : null;
}

/** The run a file maps to, or the file named and skipped when it cannot be read as its format needs. */
export async function runOfFile(
  file: string,
  map: (file: string) => Promise<ImportedRun>,
): Promise<ImportedRun | SkippedRun> {
  try {
    return await map(file);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    return { source: file, field: '(file)', reason: error.reason };
  }
}
