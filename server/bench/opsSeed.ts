import type { Sql } from '../src/db/connect';

/**
 * A fleet in bulk for the operations benchmarks (this one and the console's): `stations`
 * of `doors` doors, a terminal each (2 % offline, with their alerts), parcels in a third of
 * the doors deposited up to 200 hours ago (some overdue, some expired).
 */
export async function seedOpsFleet(sql: Sql, stations: number, doors: number) {
  await sql.begin(async (tx) => {
    // Fixtures in bulk: the per-row triggers (cabinet versions, tracking events) would only
    // slow the seeding; what is measured reads the tables, not the triggers.
    await tx`set local session_replication_role = replica`;
    const [org] = await tx<
      { id: string }[]
    >`insert into organizations (name) values ('Bench Shop') returning id`;
    await tx`
      insert into stations (code, name, cabinet_sn)
      select 'ST' || lpad(n::text, 6, '0'), 'Station ' || n, 'SN' || n from generate_series(1, ${stations}) n`;
    await tx`
      insert into doors (station_id, position, size)
      select s.id, p, (array['S','M','L','XL'])[1 + p % 4] from stations s, generate_series(1, ${doors}) p`;
    await tx`
      insert into terminals (station_id, token_hash, status, last_heartbeat_at)
      select s.id, sha256(s.id::text::bytea), case when random() < 0.02 then 'offline' else 'online' end, now()
        from stations s`;
    await tx`
      insert into alerts (kind, terminal_id, station_id, message, condition_key, severity, last_seen_at)
      select 'terminal_offline', t.id, t.station_id, 'silent', 'terminal_offline:' || t.id, 'critical', now()
        from terminals t where t.status = 'offline'`;
    await tx`
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language, status, slot_no,
                             pickup_code_hash, deposited_at)
      select ${org!.id}, lpad((row_number() over ())::text, 13, '0'), d.station_id, d.size,
             'Drita Gashi', '+38344' || lpad((floor(random() * 1e6))::text, 6, '0'), 'sq',
             'ready_for_pickup', d.position, sha256(d.id::text::bytea),
             now() - make_interval(hours => floor(random() * 200)::int)
        from doors d where d.position % 3 = 0`;
    await tx`
      insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
      select d.id, d.station_id, 'delivery', sh.id, sh.deposited_at
        from shipments sh join doors d on d.station_id = sh.destination_station_id and d.position = sh.slot_no`;
  });
  await sql`analyze`;
}
