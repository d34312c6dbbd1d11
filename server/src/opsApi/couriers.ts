import type { Sql } from '../db/connect';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from '../operators/audit';
import { authorize } from '../operators/authorize';
import { decodeCursor, pageOf } from './cursor';

interface CourierRow {
  id: string;
  number: string;
  name: string;
  active: boolean;
  created_at: Date;
}

const present = (c: CourierRow) => ({
  id: c.id,
  number: c.number,
  name: c.name,
  active: c.active,
  created_at: c.created_at.toISOString(),
});

export async function listCouriers(
  sql: Sql,
  query: {
    cursor?: string | undefined;
    limit?: number | undefined;
    q?: string | undefined;
    active?: string | undefined;
  },
) {
  const limit = query.limit ?? 100;
  const after = query.cursor ? decodeCursor(query.cursor, ['string']) : null;
  const like = query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await sql<CourierRow[]>`
    select id, number, name, active, created_at from couriers
     where ${after === null ? sql`true` : sql`number > ${after[0]!}`}
       and ${like === null ? sql`true` : sql`(number ilike ${like} or name ilike ${like})`}
       and ${query.active === undefined ? sql`true` : sql`active = ${query.active === 'true'}`}
     order by number limit ${limit + 1}`;
  return pageOf(rows, limit, (r) => [r.number], present);
}

export async function createCourier(
  sql: Sql,
  actor: Actor,
  input: { number: string; name: string },
) {
  const attempt = { action: 'courier.create', targetType: 'courier', target: input.number };
  await authorize(sql, actor, 'couriers.manage', attempt);
  return sql.begin(async (tx) => {
    const [row] = await tx<CourierRow[]>`
      insert into couriers (number, name) values (${input.number}, ${input.name})
      on conflict (number) do nothing
      returning id, number, name, active, created_at`;
    if (!row) throw new ProblemError('conflict', `Courier ${input.number} already exists.`);
    await audit(tx, actor, { ...attempt, outcome: 'ok', detail: { name: input.name } });
    return present(row);
  });
}

/** The courier can no longer sign in at a kiosk; kept for the parcels they handled. */
export async function deactivateCourier(sql: Sql, actor: Actor, number: string, reason?: string) {
  const attempt = {
    action: 'courier.deactivate',
    targetType: 'courier',
    target: number,
    reason: reason ?? null,
  };
  await authorize(sql, actor, 'couriers.manage', attempt);
  return sql.begin(async (tx) => {
    const [row] = await tx<CourierRow[]>`
      update couriers set active = false where number = ${number}
      returning id, number, name, active, created_at`;
    if (!row) throw new ProblemError('not_found', `Courier ${number} not found.`);
    await audit(tx, actor, { ...attempt, outcome: 'ok' });
    return present(row);
  });
}
