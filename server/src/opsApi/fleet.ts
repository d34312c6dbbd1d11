import type { Alert, StationSummary, TerminalView } from '@locker/shared';
import type { z } from 'zod';
import type { StationListQuerySchema } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { ProblemError } from '../http/problem';
import type { Actor } from '../operators/audit';
import { authorizeStation } from '../operators/authorize';
import { decodeCursor, pageOf } from './cursor';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The station ids an actor may see, as a SQL array (null: all). */
export const scopeOf = (actor: Actor) => actor.stations;

type StationQuery = z.infer<typeof StationListQuerySchema>;

interface SummaryRow {
  id: string;
  code: string;
  name: string;
  k: number;
  t: string;
  counts: Record<string, number>;
  parcels_overdue: number;
  parcels_expired: number;
  online: number;
  offline: number;
  disabled: number;
  open_alerts: number;
}

const SIZES = ['S', 'M', 'L', 'XL', 'unknown'] as const;
const STATES = ['free', 'occupied', 'out_of_service'] as const;

function summary(row: SummaryRow): StationSummary {
  const doors = Object.fromEntries(
    STATES.map((state) => [
      state,
      Object.fromEntries(SIZES.map((size) => [size, row.counts[`${state} ${size}`] ?? 0])),
    ]),
  ) as StationSummary['doors'];
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    doors,
    parcels_overdue: row.parcels_overdue,
    parcels_expired: row.parcels_expired,
    terminals: { online: row.online, offline: row.offline, disabled: row.disabled },
    open_alerts: row.open_alerts,
  };
}

/**
 * The fleet list: one statement per page, whatever the fleet's size. The page of stations
 * is chosen first (filters, sort, cursor), and only its rows are counted, each by its
 * own indexes (doors, occupancy, deliveries awaiting pickup, terminals, open alerts).
 * The sort is always (k, t, id): k is 0, or minus the offline / alert flag for the
 * "first" sorts; t the code or the name.
 */
export async function listStations(sql: Sql, actor: Actor, query: StationQuery) {
  const limit = query.limit ?? 50;
  const sort = query.sort ?? 'code';
  const scope = scopeOf(actor);
  const after = query.cursor ? decodeCursor(query.cursor, ['number', 'string', 'uuid']) : null;
  const offlineFlag = sql`(case when exists (select 1 from terminals t where t.station_id = s.id
                              and t.status = 'offline' and t.revoked_at is null) then 1 else 0 end)`;
  const alertsFlag = sql`(case when exists (select 1 from alerts a where a.station_id = s.id
                              and a.status <> 'resolved') then 1 else 0 end)`;
  // Percent of the station's doors holding something, and its overdue deliveries.
  const fullness = sql`(select (100 * count(*) / greatest(1, (select count(*) from doors d
                                  where d.station_id = s.id)))::int
                          from door_occupancy o where o.station_id = s.id)`;
  const overdue = sql`(select count(*)::int from shipments sh
                        where sh.destination_station_id = s.id and sh.status = 'ready_for_pickup'
                          and sh.deposited_at <= now() - make_interval(hours => s.free_storage_hours))`;
  const k =
    sort === 'offline_first'
      ? sql`-${offlineFlag}`
      : sort === 'alerts_first'
        ? sql`-${alertsFlag}`
        : sort === 'fullest_first'
          ? sql`-${fullness}`
          : sort === 'overdue_first'
            ? sql`-${overdue}`
            : sql`0`;
  const t = sort === 'name' ? sql`s.name` : sql`s.code`;
  const like = query.q ? query.q.replace(/[\\%_]/g, (c) => `\\${c}`) : null;
  const rows = await sql<SummaryRow[]>`
    with chosen as (
      select s.id, s.code, s.name, s.free_storage_hours, s.max_storage_hours, ${k} as k, ${t} as t
        from stations s
       where s.sandbox_organization_id is null
         and ${scope === null ? sql`true` : sql`s.id = any(${scope}::uuid[])`}
         and ${like === null ? sql`true` : sql`(s.code ilike ${like + '%'} or s.name ilike ${'%' + like + '%'})`}
         and ${query.offline === 'true' ? sql`${offlineFlag} = 1` : sql`true`}
         and ${query.has_alerts === 'true' ? sql`${alertsFlag} = 1` : sql`true`}
    ), page as (
      select * from chosen
       where ${after === null ? sql`true` : sql`(k, t, id) > (${after[0]!}::int, ${after[1]!}::text, ${after[2]!}::uuid)`}
       order by k, t, id
       limit ${limit + 1}
    )
    select p.id, p.code, p.name, p.k, p.t,
           d.counts, x.parcels_overdue, x.parcels_expired,
           tm.online, tm.offline, tm.disabled, al.open_alerts
      from page p
      cross join lateral (
        select coalesce(jsonb_object_agg(state || ' ' || size, n), '{}'::jsonb) as counts
          from (select case when o.door_id is not null then 'occupied'
                            when d.out_of_service or d.size is null then 'out_of_service'
                            else 'free' end as state,
                       coalesce(d.size, 'unknown') as size, count(*)::int as n
                  from doors d left join door_occupancy o on o.door_id = d.id
                 where d.station_id = p.id
                 group by 1, 2) g
      ) d
      cross join lateral (
        select count(*) filter (where sh.deposited_at <= now() - make_interval(hours => p.free_storage_hours))::int as parcels_overdue,
               count(*) filter (where sh.expired_at is not null
                                   or sh.deposited_at <= now() - make_interval(hours => p.max_storage_hours))::int as parcels_expired
          from shipments sh
         where sh.destination_station_id = p.id and sh.status = 'ready_for_pickup'
           and sh.deposited_at <= now() - make_interval(hours => p.free_storage_hours)
      ) x
      cross join lateral (
        select count(*) filter (where t.status = 'online')::int as online,
               count(*) filter (where t.status = 'offline')::int as offline,
               count(*) filter (where t.status = 'disabled')::int as disabled
          from terminals t where t.station_id = p.id and t.revoked_at is null
      ) tm
      cross join lateral (
        select count(*)::int as open_alerts from alerts a
         where a.station_id = p.id and a.status <> 'resolved'
      ) al
     order by p.k, p.t, p.id`;
  return pageOf(rows, limit, (r) => [r.k, r.t, r.id], summary);
}

/** The first screen's counts: what needs someone now. */
export async function fleetOverview(sql: Sql, actor: Actor) {
  const scope = scopeOf(actor);
  const inScope = (column: string) =>
    scope === null ? sql`true` : sql`${sql(column)} = any(${scope}::uuid[])`;
  const [row] = await sql<
    {
      critical: number;
      warning: number;
      info: number;
      stations: number;
      stations_offline: number;
      doors_out_of_service: number;
      parcels_overdue: number;
    }[]
  >`
    select (select count(*) from alerts where status <> 'resolved' and severity = 'critical' and ${inScope('station_id')})::int as critical,
           (select count(*) from alerts where status <> 'resolved' and severity = 'warning' and ${inScope('station_id')})::int as warning,
           (select count(*) from alerts where status <> 'resolved' and severity = 'info' and ${inScope('station_id')})::int as info,
           (select count(*) from stations where sandbox_organization_id is null and ${inScope('id')})::int as stations,
           (select count(distinct station_id) from terminals
             where status = 'offline' and revoked_at is null and ${inScope('station_id')})::int as stations_offline,
           (select count(*) from doors where out_of_service and ${inScope('station_id')})::int as doors_out_of_service,
           (select count(*) from shipments sh join stations s on s.id = sh.destination_station_id
             where sh.status = 'ready_for_pickup'
               and sh.deposited_at <= now() - make_interval(hours => s.free_storage_hours)
               and ${inScope('sh.destination_station_id')})::int as parcels_overdue`;
  const r = row!;
  return {
    alerts_open: { critical: r.critical, warning: r.warning, info: r.info },
    stations: r.stations,
    stations_offline: r.stations_offline,
    doors_out_of_service: r.doors_out_of_service,
    parcels_overdue: r.parcels_overdue,
    remote_actions_awaiting_approval: 0,
  };
}

export interface StationRow {
  id: string;
  code: string;
  name: string;
  cabinet_sn: string;
  support_phone: string;
  free_storage_hours: number;
  max_storage_hours: number;
}

/** A station by code that the actor may see; 404 when none, 403 (audited) outside their scope. */
export async function stationByCode(
  db: Sql | TransactionSql,
  actor: Actor,
  code: string,
  action: string,
): Promise<StationRow> {
  const [station] = await db<StationRow[]>`
    select id, code, name, cabinet_sn, support_phone, free_storage_hours, max_storage_hours
      from stations where code = ${code} and sandbox_organization_id is null`;
  if (!station) throw new ProblemError('not_found', `Station ${code} not found.`);
  await authorizeStation(db, actor, station.id, { action, targetType: 'station', target: code });
  return station;
}

interface DoorRow {
  position: number;
  code: string | null;
  size: 'S' | 'M' | 'L' | 'XL' | null;
  out_of_service: boolean;
  out_of_service_reason: string | null;
  out_of_service_since: Date | null;
  out_of_service_by: string | null;
  sensor_known: boolean | null;
  sensor_closed: boolean | null;
  sensor_item_present: boolean | null;
  sensor_in_session: boolean | null;
  sensor_open_since: Date | null;
  sensor_seen_at: Date | null;
  kind: 'delivery' | 'return_hold' | 'return' | null;
  shipment_id: string | null;
  tracking_number: string | null;
  since: Date | null;
  overdue_since: Date | null;
  expires_at: Date | null;
}

export function doorColumns(db: Sql | TransactionSql) {
  return db`
    d.position, d.code, d.size, d.out_of_service, d.out_of_service_reason, d.out_of_service_since,
    d.out_of_service_by, ds.known as sensor_known, ds.closed as sensor_closed,
    ds.item_present as sensor_item_present, ds.in_session as sensor_in_session,
    ds.open_since as sensor_open_since, ds.seen_at as sensor_seen_at, o.kind, o.shipment_id,
    sh.tracking_number, o.since,
    case when o.kind = 'delivery' and sh.deposited_at + make_interval(hours => s.free_storage_hours) <= now()
         then sh.deposited_at + make_interval(hours => s.free_storage_hours) end as overdue_since,
    case when o.kind = 'delivery' then sh.deposited_at + make_interval(hours => s.max_storage_hours) end as expires_at`;
}

/** `d` doors, `o` its occupancy, `sh` the parcel, `s` the station. */
export function doorJoins(db: Sql | TransactionSql) {
  return db`
    doors d join stations s on s.id = d.station_id
    left join door_occupancy o on o.door_id = d.id
    left join door_sensor_states ds on ds.station_id = d.station_id and ds.position = d.position
    left join shipments sh on sh.id = o.shipment_id`;
}

export function presentDoor(d: DoorRow) {
  return {
    position: d.position,
    code: d.code,
    size: d.size,
    state:
      d.kind !== null
        ? ('occupied' as const)
        : d.out_of_service || d.size === null
          ? ('out_of_service' as const)
          : ('free' as const),
    holds:
      d.kind && d.shipment_id && d.tracking_number && d.since
        ? {
            kind: d.kind,
            shipment_id: d.shipment_id,
            tracking_number: d.tracking_number,
            since: d.since.toISOString(),
            overdue_since: iso(d.overdue_since),
            expires_at: iso(d.expires_at),
          }
        : null,
    out_of_service:
      d.out_of_service && d.out_of_service_since
        ? {
            reason: d.out_of_service_reason ?? 'not recorded',
            since: d.out_of_service_since.toISOString(),
            by: d.out_of_service_by ?? 'unknown',
          }
        : null,
    sensor: {
      state:
        d.sensor_known === null
          ? null
          : !d.sensor_known
            ? ('unknown' as const)
            : d.sensor_closed
              ? ('closed' as const)
              : ('open' as const),
      item_present: d.sensor_item_present,
      in_session: d.sensor_in_session,
      open_since: iso(d.sensor_open_since),
      seen_at: iso(d.sensor_seen_at),
    },
  };
}

export async function doorsOf(db: Sql | TransactionSql, stationId: string, position?: number) {
  const rows = await db<DoorRow[]>`
    select ${doorColumns(db)} from ${doorJoins(db)}
     where d.station_id = ${stationId}
       and ${position === undefined ? db`true` : db`d.position = ${position}`}
     order by d.position`;
  return rows.map(presentDoor);
}

export interface TerminalRow {
  id: string;
  station_code: string | null;
  status: 'online' | 'offline' | 'disabled';
  revoked_at: Date | null;
  last_heartbeat_at: Date | null;
  app_version: string | null;
  link_connected_at: Date | null;
  created_at: Date;
}

export function presentTerminal(t: TerminalRow): TerminalView {
  return {
    id: t.id,
    station_code: t.station_code,
    status: t.status,
    revoked: t.revoked_at !== null,
    last_heartbeat_at: iso(t.last_heartbeat_at),
    app_version: t.app_version,
    link: { connected: t.link_connected_at !== null, since: iso(t.link_connected_at) },
    created_at: t.created_at.toISOString(),
  };
}

export const terminalColumns = (db: Sql | TransactionSql) => db`
  t.id, s.code as station_code, t.status, t.revoked_at, t.last_heartbeat_at, t.app_version,
  (select l.connected_at from terminal_links l join link_instances i on i.id = l.instance_id
    where l.terminal_id = t.id and l.disconnected_at is null
      and i.seen_at > now() - interval '30 seconds') as link_connected_at,
  t.created_at`;

/** One station as its page shows it: doors, terminals, active alerts. */
export async function stationDetail(sql: Sql, actor: Actor, code: string) {
  const station = await stationByCode(sql, actor, code, 'station.read');
  const [doors, terminals, alerts] = await Promise.all([
    doorsOf(sql, station.id),
    sql<TerminalRow[]>`
      select ${terminalColumns(sql)} from terminals t join stations s on s.id = t.station_id
       where t.station_id = ${station.id} order by t.created_at`,
    sql<{ doc: Alert }[]>`
      select alert_document(a) as doc from alerts a
       where a.station_id = ${station.id} and a.status <> 'resolved'
       order by a.created_at`,
  ]);
  return {
    ...station,
    doors,
    terminals: terminals.map(presentTerminal),
    alerts: alerts.map((a) => a.doc),
  };
}
