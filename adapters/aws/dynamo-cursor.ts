// Page cursors of the run listing: the query's last key, handed out opaque and taken back only when it is a
// key this very query could have returned.
import { InvalidCursorError } from '#core/ports.ts';

export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

/** The key attributes a query's LastEvaluatedKey has, each with the values this query could have handed out. */
export type CursorShape = Record<string, (value: string) => boolean>;

/**
 * A cursor must be a key this very query could have returned: exactly its key attributes, in the asking
 * space's partition. Anything else (another space's partition, other items, extra or missing attributes)
 * is refused here rather than passed to the table, which would fail the request or read outside the space.
 */
export function decodeCursor(cursor: string | undefined, shape: CursorShape): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = null;
  }
  const fits =
    key !== null &&
    typeof key === 'object' &&
    !Array.isArray(key) &&
    Object.keys(key).length === Object.keys(shape).length &&
    Object.entries(key).every(
      ([name, value]) => Object.hasOwn(shape, name) && typeof value === 'string' && shape[name]!(value),
    );
  if (!fits) throw new InvalidCursorError('The cursor is not one this API returned for this space and query.');
  return key as Record<string, unknown>;
}
