import type { Alert } from '@locker/shared';
import type { Sql } from '../db/connect';
import { ProblemError } from '../http/problem';
import { audit, type Actor } from '../operators/audit';
import { authorize, authorizeStation } from '../operators/authorize';
import { decodeCursor, pageOf } from '../opsApi/cursor';

// Alerts are raised by whatever notices a condition (terminal paths, the liveness sweep,
// the outbox) with a plain insert; migration 010's triggers fold a repeat into the open
// alert of its condition, resolve an alert whose condition clears, and announce every
// change (NOTIFY locker_alert, and the operations webhook through the outbox). What is
// left for code: listing, acknowledging and resolving, the same for the API and the CLI.

export interface AlertQuery {
  status?: 'active' | 'open' | 'acknowledged' | 'resolved' | 'all' | undefined;
  station?: string | undefined;
  kind?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

/**
 * Active alerts (the inbox): most severe first, then oldest. Resolved ones (history):
 * newest first. Technicians see only their stations'.
 */
export async function listAlerts(sql: Sql, actor: Actor, query: AlertQuery) {
  const limit = query.limit ?? 100;
  const status = query.status ?? 'active';
  const inbox = status === 'active' || status === 'open' || status === 'acknowledged';
  const after = query.cursor ? decodeCursor(query.cursor, ['number', 'digits', 'digits']) : null;
  const rank = sql`(case a.severity when 'critical' then 0 when 'warning' then 1 else 2 end)`;
  const micros = sql`(extract(epoch from a.created_at) * 1000000)::bigint`;
  const scope = actor.stations;
  const rows = await sql<{ doc: Alert; k: string; id: string }[]>`
    select alert_document(a) as doc, ${micros}::text as k, a.id::text as id
      from alerts a left join stations s on s.id = a.station_id
     where ${
       status === 'all'
         ? sql`true`
         : status === 'active'
           ? sql`a.status <> 'resolved'`
           : sql`a.status = ${status}`
     }
       and ${scope === null ? sql`true` : sql`a.station_id = any(${scope}::uuid[])`}
       and ${query.station ? sql`s.code = ${query.station}` : sql`true`}
       and ${query.kind ? sql`a.kind = ${query.kind}` : sql`true`}
       and ${
         after === null
           ? sql`true`
           : inbox
             ? sql`(${rank}, ${micros}, a.id) > (${after[0]!}::int, ${after[1]!}::bigint, ${after[2]!}::bigint)`
             : sql`(${micros}, a.id) < (${after[1]!}::bigint, ${after[2]!}::bigint)`
       }
     order by ${inbox ? sql`${rank}, ${micros}, a.id` : sql`${micros} desc, a.id desc`}
     limit ${limit + 1}`;
  return pageOf(
    rows,
    limit,
    (r) => [inbox ? SEVERITY_RANK[r.doc.severity] : 0, r.k, r.id],
    (r) => r.doc,
  );
}

export async function alertById(sql: Sql, id: string): Promise<Alert | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const [row] = await sql<
    { doc: Alert }[]
  >`select alert_document(a) as doc from alerts a where a.id = ${id}`;
  return row?.doc;
}

async function alertInScope(sql: Sql, actor: Actor, id: string, action: string) {
  const alert = await alertById(sql, id);
  if (!alert) throw new ProblemError('not_found', `Alert ${id} not found.`);
  await authorizeStation(sql, actor, alert.station_id, { action, targetType: 'alert', target: id });
  return alert;
}

/** Someone is on it: who, when, and their note. An acknowledged alert still counts repeats. */
export async function acknowledgeAlert(sql: Sql, actor: Actor, id: string, note?: string) {
  const attempt = {
    action: 'alert.acknowledge',
    targetType: 'alert',
    target: id,
    reason: note ?? null,
  };
  await authorize(sql, actor, 'alerts.manage', attempt);
  await alertInScope(sql, actor, id, attempt.action);
  return sql.begin(async (tx) => {
    const [row] = await tx<{ doc: Alert }[]>`
      update alerts a set status = 'acknowledged', acknowledged_at = now(),
                          acknowledged_by = ${actor.name}, acknowledge_note = ${note ?? null}
       where id = ${id} and status = 'open'
      returning alert_document(a) as doc`;
    if (!row) {
      const [current] = await tx<{ status: string }[]>`select status from alerts where id = ${id}`;
      throw new ProblemError(
        'conflict',
        `This alert is ${current?.status ?? 'gone'}; only an open alert can be acknowledged.`,
      );
    }
    await audit(tx, actor, { ...attempt, outcome: 'ok' });
    return row.doc;
  });
}

/** Done with: by an operator, with a note. (Conditions that clear resolve themselves.) */
export async function resolveAlert(sql: Sql, actor: Actor, id: string, note?: string) {
  const attempt = {
    action: 'alert.resolve',
    targetType: 'alert',
    target: id,
    reason: note ?? null,
  };
  await authorize(sql, actor, 'alerts.manage', attempt);
  await alertInScope(sql, actor, id, attempt.action);
  return sql.begin(async (tx) => {
    const [row] = await tx<{ doc: Alert }[]>`
      update alerts a set status = 'resolved', resolved_at = now(), resolved_by = ${actor.name},
                          resolve_note = ${note ?? null}, resolution = 'operator'
       where id = ${id} and status <> 'resolved'
      returning alert_document(a) as doc`;
    if (!row) throw new ProblemError('conflict', 'This alert is already resolved.');
    await audit(tx, actor, { ...attempt, outcome: 'ok' });
    return row.doc;
  });
}
