import { isUuid } from '../domain/ids';
import { ProblemError } from '../http/problem';

/** A page boundary: the last row's sort key, opaque to the client. */
export function encodeCursor(key: (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key of a cursor this API gave, checked against the shape `kinds` expects. */
export function decodeCursor(
  cursor: string,
  kinds: ('string' | 'number' | 'uuid' | 'digits')[],
): (string | number)[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (
    !Array.isArray(key) ||
    key.length !== kinds.length ||
    key.some((v, i) => {
      const kind = kinds[i];
      if (kind === 'number') return typeof v !== 'number' || !Number.isSafeInteger(v);
      if (typeof v !== 'string' || v.length > 300 || v.includes('\u0000')) return true;
      if (kind === 'uuid') return !isUuid(v);
      if (kind === 'digits') return !/^\d{1,19}$/.test(v);
      return false;
    })
  ) {
    throw new ProblemError('validation_failed', 'Invalid field(s): cursor.', [
      {
        field: 'cursor',
        code: 'invalid_cursor',
        message: 'must be a next_cursor value from a previous page of the same list',
      },
    ]);
  }
  return key as (string | number)[];
}

/** `limit + 1` rows were read: the page, and the cursor of its last row when more follow. */
export function pageOf<R, T>(
  rows: R[],
  limit: number,
  keyOf: (row: R) => (string | number)[],
  present: (row: R) => T,
) {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(present),
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}
