import type { LinkDoorState } from '@locker/shared';
import type { Sql } from '../db/connect';
import type { Logger } from '../logger';

/**
 * Records the doors' sensor states a kiosk pushed, in one statement: each door's state,
 * when it was seen, when it last changed, and since when it stands open (kept across
 * reports while it stays open; an unknown reading keeps what was known).
 *
 * `seenAt`: when the kiosk saw it, for a state that comes late (a door event from the
 * report queue, terminal/doorEvents.ts); a door whose state was seen later than that
 * keeps it. Without it, now (the link's states are live).
 */
export async function recordDoorStates(
  sql: Sql,
  station: { id: string; code: string },
  doors: LinkDoorState[],
  seenAt?: Date,
): Promise<void> {
  if (doors.length === 0) return;
  const at = seenAt ?? null;
  const rows = doors.map((d) => ({
    position: d.position,
    known: d.known,
    closed: d.closed,
    item_present: d.itemPresent,
    in_session: d.inSession,
  }));
  // One statement: the states; a "left open" alert of a door now seen shut resolved (the
  // condition cleared); and the doors that changed announced to every instance, for the
  // operations stream (NOTIFY locker_door_state, delivered on commit).
  await sql`
    with up as (
      insert into door_sensor_states as d
             (station_id, position, known, closed, item_present, in_session, open_since,
              seen_at, changed_at)
      select ${station.id}::uuid, u.position, u.known, u.closed, u.item_present, u.in_session,
             case when u.closed = false then t.at end, t.at, t.at
        from jsonb_to_recordset(${sql.json(rows)})
             as u (position int, known bool, closed bool, item_present bool, in_session bool),
             (select least(coalesce(${at}::timestamptz, now()), now()) as at) t
      on conflict (station_id, position) do update
         set known = excluded.known,
             closed = coalesce(excluded.closed, d.closed),
             item_present = case when excluded.known then excluded.item_present
                                 else d.item_present end,
             in_session = excluded.in_session,
             open_since = case when excluded.closed is null then d.open_since
                               when excluded.closed then null
                               else coalesce(d.open_since, excluded.seen_at) end,
             left_open_alerted_at = case when excluded.closed then null
                                         else d.left_open_alerted_at end,
             seen_at = excluded.seen_at,
             changed_at = case when (d.known, d.closed, d.item_present, d.in_session)
                                    is distinct from
                                    (excluded.known, coalesce(excluded.closed, d.closed),
                                     excluded.item_present, excluded.in_session)
                               then excluded.seen_at else d.changed_at end
       where d.seen_at <= excluded.seen_at
      returning d.position, d.known, d.closed, d.item_present, d.in_session, d.open_since,
                d.changed_at = d.seen_at as changed
    ), cleared as (
      update alerts a
         set status = 'resolved', resolved_at = now(), resolved_by = 'system',
             resolution = 'cleared', resolve_note = 'the door was seen shut'
        from up join doors dr on dr.station_id = ${station.id}::uuid and dr.position = up.position
       where up.closed and a.kind = 'door_left_open' and a.door_id = dr.id
         and a.status <> 'resolved'
    )
    select pg_notify('locker_door_state', json_build_object(
             's', ${station.id}::text, 'c', ${station.code}::text,
             't', least(coalesce(${at}::timestamptz, now()), now()),
             'd', json_agg(json_build_array(up.position, up.known, up.closed, up.item_present,
                                            up.in_session, up.open_since)))::text)
      from up where up.changed
    having count(*) > 0`;
}

/**
 * A door standing open longer than `limitSeconds` with no door session at it, at a
 * station whose kiosk is connected now (a stale state raises nothing): one alert per
 * opening (`"alert":"door_left_open"`, an `alerts` row). Answers the doors alerted.
 */
export async function alertDoorsLeftOpen(
  sql: Sql,
  log: Logger,
  limitSeconds: number,
): Promise<{ station_id: string; position: number; open_since: Date }[]> {
  const alerted = await sql<
    { station_id: string; position: number; open_since: Date; code: string }[]
  >`
    with opened as (
      update door_sensor_states d set left_open_alerted_at = now()
       where d.open_since is not null and d.left_open_alerted_at is null
         and not d.in_session
         and d.open_since < now() - make_interval(secs => ${limitSeconds})
         and exists (select 1 from terminal_links l
                       join terminals t on t.id = l.terminal_id
                       join link_instances i on i.id = l.instance_id
                      where t.station_id = d.station_id and l.disconnected_at is null
                        and i.seen_at > now() - interval '30 seconds')
      returning d.station_id, d.position, d.open_since
    ), raised as (
      insert into alerts (kind, station_id, door_id, message)
      select 'door_left_open', o.station_id,
             (select id from doors where station_id = o.station_id and position = o.position),
             format('door %s open for more than %s s with nobody at it', o.position, ${limitSeconds}::int)
        from opened o
    )
    select o.station_id, o.position, o.open_since, s.code
      from opened o join stations s on s.id = o.station_id`;
  for (const door of alerted)
    log.warn(
      {
        alert: 'door_left_open',
        station_code: door.code,
        door: door.position,
        open_since: door.open_since,
      },
      'door left open with nobody at it',
    );
  return alerted;
}
