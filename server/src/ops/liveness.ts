import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

interface Marked {
  terminal_id: string;
  station_code: string | null;
  last_seen: Date;
}

/**
 * Marks offline every online terminal silent for `afterSeconds` and raises one alert each.
 * The update's `where status = 'online'` makes each mark happen once even when several
 * server instances sweep at the same moment. A terminal whose row is locked is passed
 * over: it is being written (a heartbeat, most likely, which would make it not silent),
 * and waiting for it would let the sweep and a batch of heartbeats, which lock rows in
 * another order, deadlock; the next sweep sees it.
 */
export async function markSilentTerminalsOffline(
  sql: Sql,
  log: Logger,
  afterSeconds: number,
): Promise<Marked[]> {
  const marked = await sql<Marked[]>`
    with silent as (
      select id from terminals
       where status = 'online' and revoked_at is null
         and coalesce(last_heartbeat_at, created_at) < now() - make_interval(secs => ${afterSeconds})
         for no key update skip locked
    ), marked as (
      update terminals t
         set status = 'offline'
        from silent
       where t.id = silent.id and t.status = 'online'
      returning t.id, t.station_id, coalesce(t.last_heartbeat_at, t.created_at) as last_seen
    ), alerted as (
      insert into alerts (kind, terminal_id, station_id, message)
      select 'terminal_offline', id, station_id,
             'No heartbeat for ' || ${afterSeconds}::int || ' s; terminal marked offline'
        from marked
    )
    select m.id as terminal_id, s.code as station_code, m.last_seen
      from marked m left join stations s on s.id = m.station_id`;
  for (const m of marked) {
    // Operations' monitoring matches `alert: "terminal_offline"`.
    log.warn({ alert: 'terminal_offline', ...m }, 'terminal offline: no heartbeat');
  }
  return marked;
}
