import type { Parcel } from '@locker/shared';
import type { Sql } from '../db/connect';
import { ProblemError } from '../http/problem';
import type { Actor } from '../operators/audit';
import { decodeCursor, pageOf } from './cursor';
import { scopeOf, stationByCode } from './fleet';

/** Support sees a phone number masked to its last 3 digits: `+*********456`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const kept = digits.slice(-3);
  return `${phone.startsWith('+') ? '+' : ''}${'*'.repeat(Math.max(0, digits.length - 3))}${kept}`;
}

interface ParcelRow {
  id: string;
  tracking_number: string;
  merchant_order_reference: string | null;
  organization_id: string;
  organization_name: string;
  status: Parcel['status'];
  status_at: Date;
  station_id: string;
  station_code: string;
  station_name: string;
  slot_no: number | null;
  parcel_size: Parcel['parcel_size'];
  recipient_name: string;
  recipient_phone: string;
  deposited_at: Date | null;
  overdue_since: Date | null;
  expires_at: Date | null;
  expired_at: Date | null;
  k: string;
}

/** The columns of ParcelRow: never the pickup-code hash, nor anything derived from it. */
const parcelColumns = (sql: Sql) => sql`
  sh.id, sh.tracking_number, sh.merchant_order_reference, o.id as organization_id,
  o.name as organization_name, sh.status, sh.status_at, s.id as station_id, s.code as station_code,
  s.name as station_name, sh.slot_no, sh.parcel_size, sh.recipient_name, sh.recipient_phone,
  sh.deposited_at, sh.expired_at,
  case when sh.status = 'ready_for_pickup'
            and sh.deposited_at + make_interval(hours => s.free_storage_hours) <= now()
       then sh.deposited_at + make_interval(hours => s.free_storage_hours) end as overdue_since,
  case when sh.status = 'ready_for_pickup'
       then coalesce(sh.expired_at, sh.deposited_at + make_interval(hours => s.max_storage_hours)) end as expires_at,
  (extract(epoch from sh.created_at) * 1000000)::bigint::text as k`;

const parcelJoins = (sql: Sql) => sql`
  shipments sh join stations s on s.id = sh.destination_station_id
  join organizations o on o.id = sh.organization_id`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function presenter(actor: Actor) {
  const masked = actor.role === 'support';
  return (r: ParcelRow): Omit<Parcel, 'history'> => ({
    id: r.id,
    tracking_number: r.tracking_number,
    merchant_order_reference: r.merchant_order_reference,
    organization: { id: r.organization_id, name: r.organization_name },
    status: r.status,
    status_at: r.status_at.toISOString(),
    station: { id: r.station_id, code: r.station_code, name: r.station_name },
    door: r.slot_no,
    parcel_size: r.parcel_size,
    recipient_name: r.recipient_name,
    recipient_phone: masked ? maskPhone(r.recipient_phone) : r.recipient_phone,
    deposited_at: iso(r.deposited_at),
    overdue_since: iso(r.overdue_since),
    expires_at: iso(r.expires_at),
  });
}

async function historyOf(sql: Sql, ids: string[]) {
  if (ids.length === 0) return new Map<string, Parcel['history']>();
  const rows = await sql<
    { shipment_id: string; status: string; occurred_at: Date; station_code: string | null }[]
  >`
    select e.shipment_id, e.status, e.occurred_at, s.code as station_code
      from tracking_events e left join stations s on s.id = e.station_id
     where e.shipment_id = any(${ids}::uuid[])
     order by e.shipment_id, e.id`;
  const map = new Map<string, Parcel['history']>();
  for (const r of rows) {
    const list = map.get(r.shipment_id) ?? [];
    list.push({
      status: r.status,
      occurred_at: r.occurred_at.toISOString(),
      station_code: r.station_code,
    });
    map.set(r.shipment_id, list);
  }
  return map;
}

type Matched = 'tracking_number' | 'merchant_reference' | 'phone' | 'door' | 'station';

/**
 * One search field: a tracking number, a merchant's order reference, a station code (what
 * its doors hold now), or the last digits of a phone (4 or more); or `station` + `door`
 * (what that door holds and held). Says which it matched. Newest parcels first.
 */
export async function searchParcels(
  sql: Sql,
  actor: Actor,
  query: {
    q?: string | undefined;
    station?: string | undefined;
    door?: number | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  },
) {
  const limit = query.limit ?? 20;
  const after = query.cursor ? decodeCursor(query.cursor, ['digits', 'uuid']) : null;
  const scope = scopeOf(actor);
  const run = (where: ReturnType<Sql>) => sql<ParcelRow[]>`
    select ${parcelColumns(sql)} from ${parcelJoins(sql)}
     where ${where}
       and ${scope === null ? sql`true` : sql`s.id = any(${scope}::uuid[])`}
       and ${after === null ? sql`true` : sql`((extract(epoch from sh.created_at) * 1000000)::bigint, sh.id) < (${after[0]!}::bigint, ${after[1]!}::uuid)`}
     order by (extract(epoch from sh.created_at) * 1000000)::bigint desc, sh.id desc
     limit ${limit + 1}`;
  let matched: Matched | null = null;
  let rows: ParcelRow[] = [];
  if (query.door !== undefined || query.station !== undefined) {
    if (query.door === undefined || query.station === undefined) {
      throw new ProblemError('validation_failed', 'Invalid field(s): station, door.', [
        {
          field: query.door === undefined ? 'door' : 'station',
          code: 'required',
          message: 'station and door go together',
        },
      ]);
    }
    const station = await stationByCode(sql, actor, query.station, 'parcel.search');
    matched = 'door';
    rows = await run(sql`sh.destination_station_id = ${station.id} and sh.slot_no = ${query.door}`);
  } else if (query.q) {
    const q = query.q.trim();
    const digits = q.replace(/[\s+\-()]/g, '');
    const attempts: [Matched, () => Promise<ParcelRow[]>][] = [
      ['tracking_number', () => run(sql`sh.tracking_number = ${q}`)],
      ['merchant_reference', () => run(sql`sh.merchant_order_reference = ${q}`)],
      [
        'station',
        () =>
          run(
            sql`s.code = ${q} and sh.id in (select shipment_id from door_occupancy oc where oc.station_id = s.id)`,
          ),
      ],
      ...(/^\d{4,15}$/.test(digits)
        ? ([
            [
              'phone',
              () =>
                run(sql`reverse(sh.recipient_phone) like ${[...digits].reverse().join('') + '%'}`),
            ],
          ] as [Matched, () => Promise<ParcelRow[]>][])
        : []),
    ];
    for (const [kind, attempt] of attempts) {
      rows = await attempt();
      if (rows.length > 0 || (kind === 'station' && (await stationExists(sql, q)))) {
        matched = kind;
        break;
      }
    }
  } else {
    throw new ProblemError('validation_failed', 'Invalid field(s): q.', [
      { field: 'q', code: 'required', message: 'search with q, or with station and door' },
    ]);
  }
  const page = pageOf(rows, limit, (r) => [r.k, r.id], presenter(actor));
  const history = await historyOf(
    sql,
    page.items.map((p) => p.id),
  );
  return {
    matched,
    items: page.items.map((p) => ({ ...p, history: history.get(p.id) ?? [] })),
    next_cursor: page.next_cursor,
  };
}

async function stationExists(sql: Sql, code: string): Promise<boolean> {
  const [row] = await sql`select 1 from stations where code = ${code}`;
  return row !== undefined;
}

const AGE_LIMITS: [number, 'under_1_day' | '1_to_3_days' | '3_to_7_days'][] = [
  [24, 'under_1_day'],
  [72, '1_to_3_days'],
  [168, '3_to_7_days'],
];

/** A station's deliveries past free storage, oldest first, in ageing groups. */
export async function overdueParcels(sql: Sql, actor: Actor, stationCode: string) {
  const station = await stationByCode(sql, actor, stationCode, 'parcel.overdue');
  const rows = await sql<(ParcelRow & { hours_over: number })[]>`
    select ${parcelColumns(sql)},
           extract(epoch from now() - (sh.deposited_at + make_interval(hours => s.free_storage_hours))) / 3600 as hours_over
      from ${parcelJoins(sql)}
     where sh.destination_station_id = ${station.id} and sh.status = 'ready_for_pickup'
       and sh.deposited_at <= now() - make_interval(hours => s.free_storage_hours)
     order by sh.deposited_at, sh.id`;
  const present = presenter(actor);
  const groups = { under_1_day: 0, '1_to_3_days': 0, '3_to_7_days': 0, over_7_days: 0 };
  const items = rows.map((r) => {
    const age_group = AGE_LIMITS.find(([hours]) => r.hours_over < hours)?.[1] ?? 'over_7_days';
    groups[age_group] += 1;
    const expired =
      r.expired_at !== null || (r.expires_at !== null && r.expires_at.getTime() <= Date.now());
    return { ...present(r), age_group, expired };
  });
  return { station_code: station.code, groups, items };
}
