import type { Sql } from '../src/db/connect';
import { pickupCodeHash } from '../src/domain/secrets';

export const DOORS_PER_STATION = 48;
const SIZES = ['S', 'M', 'L', 'XL'];

export interface Seeded {
  /** Device token of kiosk i (one kiosk per station). */
  tokens: string[];
  /** Each kiosk's current cabinet ETag, as a polling kiosk would hold it. */
  etags: string[];
  pickups: { token: string; code: string }[];
  contention: { token: string; courierNo: string; trackingNumbers: string[] };
}

/**
 * Seeds `kiosks` stations of 48 doors, a quarter of them holding a parcel, one online
 * terminal each, set-based in SQL. Triggers are off while seeding (replica role): the
 * bench needs the rows, not 2.4 million cabinet-version bumps.
 */
export async function seed(
  sql: Sql,
  kiosks: number,
  secret: string,
  pickupSample: number,
): Promise<Seeded> {
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    const [org] = await tx<
      { id: string }[]
    >`insert into organizations (name) values ('Bench Shop') returning id`;
    await tx`
      insert into stations (code, name, cabinet_sn, support_phone)
      select 'B' || i, 'Bench station ' || i, 'SN-B' || i, '+383 38 000 000' from generate_series(1, ${kiosks}) i`;
    await tx`
      insert into doors (station_id, position, size)
      select s.id, p, (${SIZES}::text[])[1 + (p - 1) % 4]
        from stations s cross join generate_series(1, ${DOORS_PER_STATION}) p`;
    await tx`
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language, status,
                             slot_no, pickup_code_hash, deposited_at)
      select ${org!.id}, 'T' || d.id, d.station_id, d.size, 'Drita Gashi', '+38349000000', 'sq',
             'ready_for_pickup', d.position, sha256(convert_to(d.id::text, 'UTF8')), now()
        from doors d where d.position % 4 = 1`;
    await tx`
      insert into door_occupancy (door_id, station_id, kind, shipment_id)
      select d.id, d.station_id, 'delivery', sh.id
        from shipments sh join doors d on d.station_id = sh.destination_station_id and d.position = sh.slot_no`;
    await tx`
      insert into terminals (station_id, token_hash, status, last_heartbeat_at)
      select id, sha256(convert_to('tdev_bench_' || code, 'UTF8')), 'online', now() from stations`;
  });
  await sql`analyze`;

  const stations = await sql<{ code: string; id: string; cabinet_version: string }[]>`
    select code, id, cabinet_version from stations order by substring(code from 2)::int`;
  const tokens = stations.map((s) => `tdev_bench_${s.code}`);
  const etags = stations.map((s) => `"${s.id.slice(0, 8)}-${s.cabinet_version}"`);

  // Known codes for a sample of parcels, one per station, so pickups succeed.
  const sample = stations.slice(0, pickupSample);
  const codes = sample.map((_, i) => String(10_000_000 + i));
  const parcels = await sql<{ id: string; code: string }[]>`
    select distinct on (destination_station_id) sh.id, s.code
      from shipments sh join stations s on s.id = sh.destination_station_id
     where s.code in ${sql(sample.map((s) => s.code))}
     order by destination_station_id, slot_no`;
  const codeOf = new Map(sample.map((s, i) => [s.code, codes[i]!]));
  await sql`
    update shipments sh set pickup_code_hash = v.hash
      from (select unnest(${parcels.map((p) => p.id)}::uuid[]) as id,
                   decode(unnest(${parcels.map((p) => pickupCodeHash(secret, codeOf.get(p.code)!).toString('hex'))}::text[]), 'hex') as hash) v
     where sh.id = v.id`;
  const pickups = parcels.map((p) => ({
    token: `tdev_bench_${p.code}`,
    code: codeOf.get(p.code)!,
  }));

  const [org] = await sql<{ id: string }[]>`select id from organizations where name = 'Bench Shop'`;
  const contention = await seedContentionStation(sql, org!.id);
  return { tokens, etags, pickups, contention };
}

/** One station of 2,000 small doors and 2,000 parcels awaiting deposit, for contention. */
async function seedContentionStation(sql: Sql, orgId: string) {
  const doors = 2000;
  await sql`
    insert into stations (code, name, cabinet_sn) values ('BCONT', 'Contention station', 'SN-BCONT')`;
  await sql`
    insert into doors (station_id, position, size)
    select id, p, 'S' from stations cross join generate_series(1, ${doors}) p where code = 'BCONT'`;
  const parcels = await sql<{ tracking_number: string }[]>`
    insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                           recipient_name, recipient_phone, recipient_language)
    select ${orgId}, 'C' || lpad(i::text, 12, '0'), s.id, 'S', 'Ana Hoxha', '+38349000001', 'en'
      from stations s cross join generate_series(1, ${doors}) i where s.code = 'BCONT'
    returning tracking_number`;
  await sql`
    insert into terminals (station_id, token_hash, status, last_heartbeat_at)
    select id, sha256(convert_to('tdev_bench_BCONT', 'UTF8')), 'online', now() from stations where code = 'BCONT'`;
  await sql`insert into couriers (number, name) values ('BENCH-C', 'Bench Courier')`;
  return {
    token: 'tdev_bench_BCONT',
    courierNo: 'BENCH-C',
    trackingNumbers: parcels.map((p) => p.tracking_number),
  };
}
