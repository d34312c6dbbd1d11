/**
 * Capacity (issue 27) on one server instance (a child process), generator in this process:
 * the locker finder over a national-sized network, and bookings that reserve a door.
 *
 *   pnpm --filter @locker/server bench        (or: pnpm exec tsx server/bench/capacity.ts)
 *
 * 28,000 stations with places spread over ~600 x 800 km, 24 doors each (sizes and handle
 * heights mixed), a quarter of the doors holding a parcel. Open-loop at 500 requests per
 * second (latency from each request's scheduled time), then the query plan of one finder
 * call: it must walk the GiST index outward from the point (KNN), reading a page's worth.
 */
import { createOrganization } from '../src/admin/commands';
import { bearer, benchDatabase, benchServer, paced, pick, SECONDS, type Figures } from './harness';

const STATIONS = Number(process.env.BENCH_STATIONS ?? 28_000);
const DOORS = 24;
const SHOPS = 40;
const RATE = Number(process.env.BENCH_RATE ?? 500);
// The box the stations lie in: roughly the western Balkans.
const BOX = { south: 39.5, north: 46, west: 18.5, east: 24 };

const randomPoint = () =>
  `${(BOX.south + Math.random() * (BOX.north - BOX.south)).toFixed(5)},${(BOX.west + Math.random() * (BOX.east - BOX.west)).toFixed(5)}`;

async function main() {
  const db = await benchDatabase('locker_bench_capacity');
  const { sql } = db;
  const seedStarted = performance.now();
  const shops: Awaited<ReturnType<typeof createOrganization>>[] = [];
  for (let i = 0; i < SHOPS; i++) shops.push(await createOrganization(sql, `Shop ${i}`));
  // Bulk seed without row triggers (cabinet versions, tracking events): they would update
  // a station row per door inserted.
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`
    insert into stations (code, name, cabinet_sn, address, latitude, longitude, opening_hours, step_free)
    select 'C' || n, 'Station ' || n, 'SN-C' || n, 'Street ' || n,
           ${BOX.south} + random() * ${BOX.north - BOX.south}, ${BOX.west} + random() * ${BOX.east - BOX.west},
           '[{"days":["mo","tu","we","th","fr","sa","su"],"opens":"00:00","closes":"24:00"}]'::jsonb,
           n % 3 <> 0
      from generate_series(1, ${STATIONS}) n`;
    await tx`
    insert into doors (station_id, position, size, handle_height_mm)
    select s.id, p, (array['S','S','M','M','L','XL'])[1 + (p - 1) % 6], 300 + ((p - 1) % 8) * 220
      from stations s, generate_series(1, ${DOORS}) p`;
    // A quarter of the doors hold a delivery awaiting pickup.
    await tx`
    with picked as (
      select d.id as door_id, d.station_id, d.size, row_number() over () as n
        from doors d where d.position % 4 = 0),
    parcels as (
      insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size,
                             recipient_name, recipient_phone, recipient_language, status,
                             pickup_code_hash, deposited_at, slot_no)
      select ${shops[0]!.id}, 'B' || lpad(picked.n::text, 12, '0'), picked.station_id, picked.size,
             'Drita Gashi', '+38344123456', 'sq', 'ready_for_pickup',
             decode(md5(picked.n::text), 'hex'), now(), null
        from picked
      returning id, tracking_number)
    insert into door_occupancy (door_id, station_id, kind, shipment_id)
    select picked.door_id, picked.station_id, 'delivery', parcels.id
      from picked join parcels on parcels.tracking_number = 'B' || lpad(picked.n::text, 12, '0')`;
  });
  await sql`analyze`;
  const stations = await sql<{ id: string }[]>`select id from stations`;
  console.log(
    `seeded ${STATIONS} stations, ${STATIONS * DOORS} doors in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
  );

  const figures: Figures[] = [];
  const server = await benchServer(db.url, { MERCHANT_REQUESTS_PER_MINUTE: '1000000' });
  const finder = (query: string) => () => ({
    method: 'GET' as const,
    path: `/api/v1/stations?near=${randomPoint()}${query}`,
    headers: bearer(pick(shops).apiKey),
  });
  const booking = (reserve: boolean) => () => ({
    method: 'POST' as const,
    path: '/api/v1/shipments',
    headers: bearer(pick(shops).apiKey),
    body: JSON.stringify({
      destination_station_id: pick(stations).id,
      parcel_size: pick(['S', 'M', 'L', 'XL']),
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      ...(reserve ? { reserve_door: true } : {}),
    }),
  });
  // Each run's figures as soon as it ends, so a run cut short still leaves the others.
  const measure = async (figure: Promise<Figures>) => {
    const done = await figure;
    console.log(JSON.stringify(done));
    figures.push(done);
  };
  try {
    await paced('warm-up', server.url, 100, finder(''));
    await measure(
      paced(`GET /stations?near= (10 a page), ${RATE}/s`, server.url, RATE, finder('')),
    );
    await measure(
      paced(
        `GET /stations?near=&size=XL&accessible=true, ${RATE}/s`,
        server.url,
        RATE,
        finder('&size=XL&accessible=true'),
      ),
    );
    await measure(
      paced(`POST /shipments reserve_door, ${RATE}/s`, server.url, RATE, booking(true)),
    );
    await measure(
      paced(`POST /shipments (no reservation), ${RATE}/s`, server.url, RATE, booking(false)),
    );
  } finally {
    await server.stop();
  }

  // The finder's plan at one point: the KNN index scan, and what one call reads.
  const explain = await sql.unsafe(
    `explain (analyze, buffers, costs off)
     select s.id from stations s
      where s.latitude is not null and s.sandbox_organization_id is null
      order by station_point(s.latitude, s.longitude) <-> ll_to_earth(42.66, 21.16), s.id
      limit 11`,
  );
  const lines = explain.map((r) => (r as Record<string, string>)['QUERY PLAN']!);
  const reserved = await sql`select count(*)::int as n from door_reservations`;
  await db.stop();

  console.log(
    `\nCapacity, one server instance, ${STATIONS} stations x ${DOORS} doors, ${SECONDS} s per run, open loop`,
  );
  console.table(figures);
  console.log(`reservations held after the runs: ${reserved[0]!.n}`);
  console.log('finder query plan (page of 10 + 1):\n  ' + lines.join('\n  '));
}

await main();
process.exit(0);
