import type { Sql, TransactionSql } from '../db/connect';
import { ProblemError } from '../http/problem';

/** The courier with that staff number, if active; deactivated ones count as unknown. */
export async function activeCourier(db: Sql | TransactionSql, number: string) {
  const [courier] = await db<{ id: string; name: string }[]>`
    select id, name from couriers where number = ${number} and active`;
  return courier;
}

/** The spec's 403 `courier_not_verified`: the courier is unknown or deactivated. */
export function courierNotVerified(): ProblemError {
  return new ProblemError('courier_not_verified', 'Unknown or deactivated courier.');
}
