import type { Sql, TransactionSql } from '../db/connect';

/** The courier with that staff number, if active; deactivated ones count as unknown. */
export async function activeCourier(db: Sql | TransactionSql, number: string) {
  const [courier] = await db<{ id: string; name: string }[]>`
    select id, name from couriers where number = ${number} and active`;
  return courier;
}
