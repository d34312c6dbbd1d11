import { isUuid } from '../domain/ids';
import { ProblemError } from '../http/problem';

/**
 * A page boundary: the last row's creation time in whole microseconds (what PostgreSQL
 * stores, so no row is skipped or repeated) and its id, opaque to the client.
 */
export function encodeCursor(micros: string, id: string): string {
  return Buffer.from(`${micros}.${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { micros: string; id: string } {
  const [micros, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (!micros || !/^\d{1,19}$/.test(micros) || !id || !isUuid(id) || extra !== undefined) {
    throw new ProblemError('validation_failed', 'Invalid field(s): cursor.', [
      {
        field: 'cursor',
        code: 'invalid_cursor',
        message: 'must be a next_cursor value from a previous page',
      },
    ]);
  }
  return { micros, id };
}
