import type { z } from 'zod';
import type { TerminalListQuerySchema } from '@locker/shared';
import type { Sql } from '../db/connect';
import { hashSecret, newSecret } from '../domain/secrets';
import { isUuid } from '../domain/ids';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from '../operators/audit';
import { authorize, authorizeStation } from '../operators/authorize';
import { issueEnrolmentCode } from '../terminal/enrolment';
import { decodeCursor, pageOf } from './cursor';
import {
  presentTerminal,
  scopeOf,
  stationByCode,
  terminalColumns,
  type TerminalRow,
} from './fleet';

type Query = z.infer<typeof TerminalListQuerySchema>;

/** Terminals by station code then age, filtered by status (`revoked` is its own filter). */
export async function listTerminals(sql: Sql, actor: Actor, query: Query) {
  const limit = query.limit ?? 100;
  const scope = scopeOf(actor);
  const after = query.cursor ? decodeCursor(query.cursor, ['string', 'string', 'uuid']) : null;
  const status = query.status;
  if (query.station) await stationByCode(sql, actor, query.station, 'terminal.list');
  const rows = await sql<(TerminalRow & { k_code: string; k_created: string })[]>`
    select ${terminalColumns(sql)}, coalesce(s.code, '') as k_code,
           (extract(epoch from t.created_at) * 1000000)::bigint::text as k_created
      from terminals t left join stations s on s.id = t.station_id
     where ${scope === null ? sql`true` : sql`t.station_id = any(${scope}::uuid[])`}
       and ${query.station ? sql`s.code = ${query.station}` : sql`true`}
       and ${
         status === undefined
           ? sql`true`
           : status === 'revoked'
             ? sql`t.revoked_at is not null`
             : sql`t.status = ${status} and t.revoked_at is null`
       }
       and ${
         after === null
           ? sql`true`
           : sql`(coalesce(s.code, ''), (extract(epoch from t.created_at) * 1000000)::bigint, t.id)
                 > (${after[0]!}::text, ${after[1]!}::bigint, ${after[2]!}::uuid)`
       }
     order by coalesce(s.code, ''), (extract(epoch from t.created_at) * 1000000)::bigint, t.id
     limit ${limit + 1}`;
  return pageOf(rows, limit, (r) => [r.k_code, r.k_created, r.id], presentTerminal);
}

async function terminalRow(
  sql: Sql,
  id: string,
): Promise<TerminalRow & { station_id: string | null }> {
  if (!isUuid(id)) throw new ProblemError('not_found', 'Terminal not found.');
  const [row] = await sql<(TerminalRow & { station_id: string | null })[]>`
    select ${terminalColumns(sql)}, t.station_id
      from terminals t left join stations s on s.id = t.station_id where t.id = ${id}`;
  if (!row) throw new ProblemError('not_found', 'Terminal not found.');
  return row;
}

/**
 * A new terminal of the station, its one-time enrolment code (24 h; the kiosk exchanges
 * it for a token of its own, which replaces this one) and a device token for a kiosk
 * configured by hand, each answered once.
 */
export async function createTerminal(
  sql: Sql,
  actor: Actor,
  stationCode: string,
  codeSecret: string,
) {
  const attempt = { action: 'terminal.create', targetType: 'station', target: stationCode };
  await authorize(sql, actor, 'terminals.manage', attempt);
  const station = await stationByCode(sql, actor, stationCode, attempt.action);
  const token = newSecret('tdev');
  return sql.begin(async (tx) => {
    const [created] = await tx<{ id: string }[]>`
      insert into terminals (station_id, token_hash) values (${station.id}, ${hashSecret(token)})
      returning id`;
    await audit(tx, actor, {
      ...attempt,
      targetType: 'terminal',
      target: created!.id,
      outcome: 'ok',
      detail: { station: station.code },
    });
    const [row] = await tx<TerminalRow[]>`
      select ${terminalColumns(tx)} from terminals t join stations s on s.id = t.station_id
       where t.id = ${created!.id}`;
    const enrolment = await issueEnrolmentCode(tx, codeSecret, created!.id, actor.name);
    return { terminal: presentTerminal(row!), token, enrolment };
  });
}

/**
 * A new enrolment code for an existing terminal (a kiosk replaced or reinstalled, a code
 * that expired); the terminal's earlier codes stop working. Its token is untouched until
 * the kiosk enrols with the code.
 */
export async function newEnrolmentCode(sql: Sql, actor: Actor, id: string, codeSecret: string) {
  const attempt = { action: 'terminal.enrolment_code', targetType: 'terminal', target: id };
  await authorize(sql, actor, 'terminals.manage', attempt);
  const terminal = await terminalRow(sql, id);
  await authorizeStation(sql, actor, terminal.station_id, attempt);
  if (terminal.revoked_at)
    throw new ProblemError('conflict', 'This terminal is revoked; create a new one.');
  return sql.begin(async (tx) => {
    const enrolment = await issueEnrolmentCode(tx, codeSecret, id, actor.name);
    await audit(tx, actor, { ...attempt, outcome: 'ok' });
    return { terminal: presentTerminal(terminal), enrolment };
  });
}

export type TerminalChange = 'disable' | 'enable' | 'revoke';

/**
 * Disable (refused at once, kept), enable (back online), revoke (its token never works
 * again). The auth cache of every instance hears of it from the change notification.
 */
export async function changeTerminal(
  sql: Sql,
  actor: Actor,
  id: string,
  change: TerminalChange,
  reason?: string,
) {
  const attempt = {
    action: `terminal.${change}`,
    targetType: 'terminal',
    target: id,
    reason: reason ?? null,
  };
  await authorize(sql, actor, 'terminals.manage', attempt);
  const terminal = await terminalRow(sql, id);
  await authorizeStation(sql, actor, terminal.station_id, attempt);
  if (change !== 'revoke' && terminal.revoked_at) {
    throw new ProblemError('conflict', 'This terminal is revoked; its token can never work again.');
  }
  return sql.begin(async (tx) => {
    if (change === 'revoke') {
      await tx`update terminals set revoked_at = coalesce(revoked_at, now()) where id = ${id}`;
    } else if (change === 'disable') {
      await tx`update terminals set status = 'disabled' where id = ${id}`;
    } else {
      await tx`
        update terminals set status = 'online', last_heartbeat_at = now()
         where id = ${id} and status = 'disabled'`;
    }
    await audit(tx, actor, { ...attempt, outcome: 'ok' });
    const [row] = await tx<TerminalRow[]>`
      select ${terminalColumns(tx)} from terminals t left join stations s on s.id = t.station_id
       where t.id = ${id}`;
    return presentTerminal(row!);
  });
}
