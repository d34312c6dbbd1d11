/**
 * The operator CLI's read-only commands: lists and single records, as plain JSON-ready
 * objects (camelCase keys, ISO times). Secrets never appear: only whether they are set.
 */
import type { Sql } from '../db/connect';
import { AdminError } from './commands';

function one<T>(row: T | undefined, what: string): T {
  if (!row) throw new AdminError(`${what} not found`);
  return row;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function listOrganizations(sql: Sql) {
  const rows = await sql<
    { id: string; name: string; webhook_url: string | null; keys: number; created_at: Date }[]
  >`
    select o.id, o.name, o.webhook_url, o.created_at,
           (select count(*)::int from api_keys k where k.organization_id = o.id and k.revoked_at is null) as keys
      from organizations o order by o.created_at, o.name`;
  return {
    organizations: rows.map((o) => ({
      id: o.id,
      name: o.name,
      webhookUrl: o.webhook_url,
      activeApiKeys: o.keys,
      createdAt: iso(o.created_at),
    })),
  };
}

export async function showOrganization(sql: Sql, id: string) {
  const [org] = await sql<
    {
      id: string;
      name: string;
      webhook_url: string | null;
      return_window_days: number;
      keys: number;
      shipments: number;
      created_at: Date;
    }[]
  >`
    select o.id, o.name, o.webhook_url, o.return_window_days, o.created_at,
           (select count(*)::int from api_keys k where k.organization_id = o.id and k.revoked_at is null) as keys,
           (select count(*)::int from shipments s where s.organization_id = o.id) as shipments
      from organizations o where o.id = ${id}`;
  const o = one(org, `organization ${id}`);
  return {
    id: o.id,
    name: o.name,
    webhookUrl: o.webhook_url,
    returnWindowDays: o.return_window_days,
    activeApiKeys: o.keys,
    shipments: o.shipments,
    createdAt: iso(o.created_at),
  };
}

export async function listStations(sql: Sql) {
  const rows = await sql<
    { id: string; code: string; name: string; doors: number; occupied: number; terminals: number }[]
  >`
    select s.id, s.code, s.name,
           (select count(*)::int from doors d where d.station_id = s.id) as doors,
           (select count(*)::int from door_occupancy o where o.station_id = s.id) as occupied,
           (select count(*)::int from terminals t where t.station_id = s.id and t.revoked_at is null) as terminals
      from stations s order by s.code`;
  return { stations: rows };
}

export async function showStation(sql: Sql, code: string) {
  const [station] = await sql<
    {
      id: string;
      code: string;
      name: string;
      cabinet_sn: string;
      support_phone: string;
      idle_timeout_seconds: number;
      free_storage_hours: number;
      max_storage_hours: number;
    }[]
  >`select * from stations where code = ${code}`;
  const s = one(station, `station ${code}`);
  const doors = await sql<
    {
      position: number;
      code: string | null;
      size: string | null;
      out_of_service: boolean;
      kind: string | null;
      tracking_number: string | null;
      since: Date | null;
    }[]
  >`
    select d.position, d.code, d.size, d.out_of_service, o.kind, sh.tracking_number, o.since
      from doors d
      left join door_occupancy o on o.door_id = d.id
      left join shipments sh on sh.id = o.shipment_id
     where d.station_id = ${s.id} order by d.position`;
  const { terminals } = await listTerminals(sql, code);
  return {
    id: s.id,
    code: s.code,
    name: s.name,
    cabinetSn: s.cabinet_sn,
    supportPhone: s.support_phone,
    idleTimeoutSeconds: s.idle_timeout_seconds,
    freeStorageHours: s.free_storage_hours,
    maxStorageHours: s.max_storage_hours,
    doors: doors.map((d) => ({
      position: d.position,
      code: d.code,
      size: d.size,
      status: d.out_of_service ? 'out_of_service' : 'in_service',
      // What the door holds by the database: a delivery, a return, or nothing.
      holds: d.kind,
      trackingNumber: d.tracking_number,
      since: iso(d.since),
    })),
    terminals,
  };
}

interface TerminalRow {
  id: string;
  station_code: string | null;
  status: string;
  revoked_at: Date | null;
  last_heartbeat_at: Date | null;
  app_version: string | null;
  created_at: Date;
}

function terminalView(t: TerminalRow) {
  return {
    id: t.id,
    stationCode: t.station_code,
    status: t.status,
    revoked: t.revoked_at !== null,
    lastHeartbeatAt: iso(t.last_heartbeat_at),
    appVersion: t.app_version,
    createdAt: iso(t.created_at),
  };
}

export async function listTerminals(sql: Sql, stationCode?: string) {
  if (stationCode !== undefined) {
    const [station] = await sql`select 1 from stations where code = ${stationCode}`;
    one(station, `station ${stationCode}`);
  }
  const rows = await sql<TerminalRow[]>`
    select t.id, s.code as station_code, t.status, t.revoked_at, t.last_heartbeat_at,
           t.app_version, t.created_at
      from terminals t left join stations s on s.id = t.station_id
     where ${stationCode === undefined ? sql`true` : sql`s.code = ${stationCode}`}
     order by s.code nulls last, t.created_at`;
  return { terminals: rows.map(terminalView) };
}

export async function showTerminal(sql: Sql, id: string) {
  const [row] = await sql<TerminalRow[]>`
    select t.id, s.code as station_code, t.status, t.revoked_at, t.last_heartbeat_at,
           t.app_version, t.created_at
      from terminals t left join stations s on s.id = t.station_id
     where t.id = ${id}`;
  return terminalView(one(row, `terminal ${id}`));
}

interface CourierRow {
  id: string;
  number: string;
  name: string;
  active: boolean;
  created_at: Date;
}

const courierView = (c: CourierRow) => ({
  id: c.id,
  number: c.number,
  name: c.name,
  active: c.active,
  createdAt: iso(c.created_at),
});

export async function listCouriers(sql: Sql) {
  const rows = await sql<CourierRow[]>`
    select id, number, name, active, created_at from couriers order by number`;
  return { couriers: rows.map(courierView) };
}

export async function showCourier(sql: Sql, number: string) {
  const [row] = await sql<CourierRow[]>`
    select id, number, name, active, created_at from couriers where number = ${number}`;
  return courierView(one(row, `courier ${number}`));
}

/** A shipment by its tracking number: where it is, its door, and its history. */
export async function showShipment(sql: Sql, trackingNumber: string) {
  const [row] = await sql<
    {
      id: string;
      tracking_number: string;
      organization: string;
      station_code: string;
      parcel_size: string;
      status: string;
      status_at: Date;
      slot_no: number | null;
      recipient_name: string;
      recipient_phone: string;
      deposited_at: Date | null;
      collected_at: Date | null;
      created_at: Date;
    }[]
  >`
    select sh.id, sh.tracking_number, o.name as organization, st.code as station_code,
           sh.parcel_size, sh.status, sh.status_at, sh.slot_no, sh.recipient_name,
           sh.recipient_phone, sh.deposited_at, sh.collected_at, sh.created_at
      from shipments sh
      join organizations o on o.id = sh.organization_id
      join stations st on st.id = sh.destination_station_id
     where sh.tracking_number = ${trackingNumber}`;
  const s = one(row, `shipment ${trackingNumber}`);
  const events = await sql<{ status: string; occurred_at: Date }[]>`
    select status, occurred_at from tracking_events where shipment_id = ${s.id} order by occurred_at, id`;
  return {
    id: s.id,
    trackingNumber: s.tracking_number,
    organization: s.organization,
    stationCode: s.station_code,
    parcelSize: s.parcel_size,
    status: s.status,
    statusAt: iso(s.status_at),
    door: s.slot_no,
    recipientName: s.recipient_name,
    recipientPhone: s.recipient_phone,
    depositedAt: iso(s.deposited_at),
    collectedAt: iso(s.collected_at),
    createdAt: iso(s.created_at),
    events: events.map((e) => ({ status: e.status, occurredAt: iso(e.occurred_at) })),
  };
}
