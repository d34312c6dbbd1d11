import type { Sql, TransactionSql } from '../db/connect';
import { ProblemError } from '../http/problem';

/** The courier with that staff number, if active; deactivated ones count as unknown. */
export async function activeCourier(db: Sql | TransactionSql, number: string) {
  const [courier] = await db<{ id: string; name: string }[]>`
    select id, name from couriers where number = ${number} and active`;
  return courier;
}

/** The active courier with that number, or the spec's 403 `courier_not_verified`. */
export async function requireCourier(db: Sql | TransactionSql, number: string) {
  const courier = await activeCourier(db, number);
  if (!courier) throw new ProblemError('courier_not_verified', 'Unknown or deactivated courier.');
  return courier;
}
