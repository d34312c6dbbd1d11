import type { Sql } from '../../src/db/connect';
import { pickupCodeHash } from '../../src/domain/secrets';
import type { Pools } from './plan';

export const DOORS = 48;
export const ORGANIZATIONS = 1000;
export const COURIERS = 2000;
const SIZES = ['S', 'M', 'L', 'XL'] as const;

/** What the generator knows of the seeded network; all of it derived from indexes. */
export interface Network {
  stations: number;
  pools: Pools;
  /** Station code → its current cabinet ETag, as a polling kiosk holds it. */
  etags: Map<string, string>;
  /** Each kiosk's last ETag of its offline pickup set (the warm-up reads them). */
  pickupSetEtags: Map<string, string>;
  /** The same of its offline deposit set, read every minute (the warm-up reads them). */
  depositSetEtags: Map<string, string>;
  /** Organization index → API key. */
  apiKeys: string[];
  /** Ordinary station ids, for merchant creates. */
  stationIds: string[];
}

export const stationCode = (i: number) => `P${i + 1}`;
export const hotStationCode = (i: number) => `H${i + 1}`;
export const tokenOf = (code: string) => `tdev_peak_${code}`;
export const courierNo = (i: number) => `K${(i % COURIERS) + 1}`;
export const apiKeyOf = (i: number) => `sk_peak_${i}`;
/** Organization 0 is the dominant marketplace: a quarter of all parcels. */
export const randomOrganization = () =>
  Math.random() < 0.25 ? 0 : Math.floor(Math.random() * ORGANIZATIONS);

/** Ordinary parcel j awaiting deposit: station j mod stations, tracking 8…j. */
export const bookedParcel = (j: number, stations: number) => ({
  station: stationCode(j % stations),
  trackingNumber: `8${String(j).padStart(12, '0')}`,
});
/** Hot parcel j: four consecutive ones share a station, as four couriers arriving at once. */
export const hotParcel = (j: number, hotStations: number) => ({
  station: hotStationCode(Math.floor(j / 4) % hotStations),
  trackingNumber: `6${String(j).padStart(12, '0')}`,
});
/** Pickup j: a parcel seeded in door 1 + 4k of station j mod stations, code j. */
export const pickupOf = (j: number, stations: number) => ({
  station: stationCode(j % stations),
  door: 1 + 4 * Math.floor(j / stations),
  code: String(j).padStart(8, '0'),
});
export const returnableParcel = (j: number, stations: number) => ({
  station: stationCode(j % stations),
  trackingNumber: `7${String(j).padStart(12, '0')}`,
});

/**
 * Seeds the network set-based (generate_series), triggers off (replica role): the run
 * needs the rows, not millions of cabinet-version bumps and tracking events. Ordinary
 * stations have a parcel awaiting pickup in every fourth door; hot stations start empty.
 */
export async function seedNetwork(
  sql: Sql,
  stations: number,
  pools: Pools,
  secret: string,
  webhookUrl: string,
): Promise<Network> {
  if (pools.pickups > stations * (DOORS / 4))
    throw new Error('more pickups than seeded parcels: raise stations or lower the run');
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`
      insert into organizations (name)
      select 'Peak shop ' || i from generate_series(0, ${ORGANIZATIONS - 1}) i`;
    await tx`
      insert into api_keys (organization_id, key_hash)
      select id, sha256(convert_to('sk_peak_' || substring(name from 11), 'UTF8'))
        from organizations where name like 'Peak shop %'`;
    await tx`create temp table peak_orgs on commit drop as
      select substring(name from 11)::int as i, id from organizations where name like 'Peak shop %'`;
    // Half the shops take webhooks, to a receiver in the generator's process.
    const [legacy] = await tx<{ n: number }[]>`
      select count(*)::int as n from information_schema.columns
       where table_name = 'organizations' and column_name = 'webhook_url'`;
    const secretSql = (column: string) =>
      tx`'whsec_' || encode(sha256(convert_to(${tx.unsafe(column)}::text, 'UTF8')), 'base64')`;
    if (legacy?.n) {
      await tx`update organizations o set webhook_url = ${webhookUrl}, webhook_secret = ${secretSql('o.id')}
                 from peak_orgs p where p.id = o.id and p.i % 2 = 0`;
    } else {
      await tx`insert into webhook_endpoints (organization_id, url, secret)
               select id, ${webhookUrl}, ${secretSql('id')} from peak_orgs where i % 2 = 0`;
    }
    await tx`
      insert into stations (code, name, cabinet_sn, support_phone)
      select 'P' || i, 'Paczkomat ' || i, 'SN-P' || i, '+48 22 000 00 00'
        from generate_series(1, ${stations}) i
      union all
      select 'H' || i, 'Hot station ' || i, 'SN-H' || i, '+48 22 000 00 00'
        from generate_series(1, ${pools.hotStations}) i`;
    // A station's doors are created with it, in one statement (admin/commands.ts), so they
    // lie together in the table; written position by position across the network instead
    // (the plan of a bare cross join), each station's 48 doors lay in 48 pages, and every
    // read of a station's doors touched all of them (issue 28).
    await tx`
      insert into doors (station_id, position, size)
      select s.id, p, (${SIZES}::text[])[1 + (p - 1) % 4]
        from stations s cross join generate_series(1, ${DOORS}) p
       order by s.code, p`;
    await tx`create temp table peak_stations on commit drop as
      select substring(code from 2)::int - 1 as i, id from stations where code like 'P%'`;
    await tx`create temp table peak_hot on commit drop as
      select substring(code from 2)::int - 1 as i, id from stations where code like 'H%'`;
    const orgIds = (await tx<{ id: string }[]>`select id from peak_orgs order by i`).map(
      (o) => o.id,
    );
    // One dominant marketplace sends a quarter of the parcels, as in Poland; its rows are
    // where anything per organization would turn hot.
    const org = (index: string) =>
      tx`(${orgIds}::uuid[])[case when (${tx.unsafe(index)}) % 4 = 0 then 1 else 1 + (${tx.unsafe(index)}) % ${ORGANIZATIONS} end]`;
    await tx`
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language, status,
                             slot_no, pickup_code_hash, deposited_at, status_at)
      select ${org('s.i')}, 'R' || d.id, d.station_id, d.size, 'Zofia Nowak', '+48600000000', 'en',
             'ready_for_pickup', d.position, sha256(convert_to(d.id::text, 'UTF8')),
             now() - interval '1 hour', now() - interval '1 hour'
        from doors d join peak_stations s on s.id = d.station_id where d.position % 4 = 1`;
    await tx`
      insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
      select d.id, d.station_id, 'delivery', sh.id, sh.deposited_at
        from shipments sh join doors d on d.station_id = sh.destination_station_id and d.position = sh.slot_no
       where sh.status = 'ready_for_pickup'`;
    await tx`
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language)
      select ${org('j')}, '8' || lpad(j::text, 12, '0'), s.id,
             (${SIZES}::text[])[1 + j % 4], 'Jan Kowalski', '+48600000001', 'en'
        from generate_series(0, ${pools.booked - 1}) j join peak_stations s on s.i = j % ${stations}`;
    await tx`
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language)
      select ${org('j')}, '6' || lpad(j::text, 12, '0'), h.id,
             (${SIZES}::text[])[1 + j % 4], 'Anna Lewandowska', '+48600000002', 'en'
        from generate_series(0, ${pools.hotBooked - 1}) j
        join peak_hot h on h.i = (j / 4) % ${pools.hotStations}`;
    await tx`
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language, status,
                             status_at, collected_at, slot_no)
      select ${org('j')}, '7' || lpad(j::text, 12, '0'), s.id, 'M', 'Piotr Wiśniewski',
             '+48600000003', 'en', 'collected', now() - interval '1 day', now() - interval '1 day', 2
        from generate_series(0, ${pools.returnable - 1}) j join peak_stations s on s.i = j % ${stations}`;
    await tx`
      insert into terminals (station_id, token_hash, status, last_heartbeat_at)
      select id, sha256(convert_to('tdev_peak_' || code, 'UTF8')), 'online', now() from stations`;
    // Couriers registered long before the hour have had their offline verifier made (the
    // first deposit set that listed them made it, once): the hour's polls only read them.
    // Well-formed, not derived from the number (2,000 scrypts would take two minutes here);
    // the benchmark never checks a courier offline.
    await tx`
      insert into couriers (number, name, offline_verifier)
      select 'K' || i, 'Courier ' || i,
             '$scrypt$ln=14,r=8,p=1$' || encode(substr(sha256(convert_to('salt', 'UTF8')), 1, 16), 'base64')
               || '$' || encode(sha256(convert_to('K' || i, 'UTF8')), 'base64')
        from generate_series(1, ${COURIERS}) i`;
  });

  // Codes the generator knows: HMAC with the server's secret, written in one statement.
  const stationsOf: string[] = [];
  const doors: number[] = [];
  const hashes: string[] = [];
  for (let j = 0; j < pools.pickups; j++) {
    const p = pickupOf(j, stations);
    stationsOf.push(p.station);
    doors.push(p.door);
    hashes.push(pickupCodeHash(secret, p.code).toString('hex'));
  }
  await sql`
    update shipments sh set pickup_code_hash = decode(v.hash, 'hex')
      from unnest(${stationsOf}::text[], ${doors}::int[], ${hashes}::text[]) as v(code, door, hash)
      join stations s on s.code = v.code
     where sh.destination_station_id = s.id and sh.slot_no = v.door
       and sh.status = 'ready_for_pickup'`;
  // A network's rows were written long before its busiest hour: vacuumed (hint bits and
  // visibility set, which a first read would otherwise write) and on disk. Without this
  // the hour measured the seed's write-back: a checkpoint flushing a gigabyte of fresh
  // pages while commits wait on the same disk.
  await sql`vacuum analyze`;
  await sql`checkpoint`;

  const rows = await sql<{ code: string; id: string; cabinet_version: string }[]>`
    select code, id, cabinet_version from stations`;
  const etags = new Map(rows.map((s) => [s.code, `"${s.id.slice(0, 8)}-${s.cabinet_version}"`]));
  const ordinary = rows.filter((r) => r.code.startsWith('P')).map((r) => r.id);
  return {
    stations,
    pools,
    etags,
    pickupSetEtags: new Map(),
    depositSetEtags: new Map(),
    apiKeys: Array.from({ length: ORGANIZATIONS }, (_, i) => apiKeyOf(i)),
    stationIds: ordinary,
  };
}
