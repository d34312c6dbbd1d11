import { isUuid } from '../domain/ids';
import { ProblemError } from '../http/problem';

/**
 * A page boundary: the last row's creation time in whole microseconds (what PostgreSQL
 * stores, so no row is skipped or repeated) and its id, opaque to the client.
 */
export function encodeCursor(micros: string, id: string): string {
  return Buffer.from(`${micros}.${id}`).toString('base64url');
}

// No row was created outside [1970, 10000): a boundary beyond is no page's, and past
// PostgreSQL's timestamp range it would fail in the query rather than here.
const LAST_MICROS = 253_402_300_799_999_999n;

function inRange(micros: string | undefined): micros is string {
  return micros !== undefined && /^\d{1,18}$/.test(micros) && BigInt(micros) <= LAST_MICROS;
}

export function decodeCursor(cursor: string): { micros: string; id: string } {
  const [micros, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (!inRange(micros) || !id || !isUuid(id) || extra !== undefined) {
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
