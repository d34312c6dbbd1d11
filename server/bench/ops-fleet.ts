/**
 * The operations interface's fleet list on a network of 28,000 stations (16 doors each,
 * a terminal each, parcels in a third of the doors, some overdue, 2 % of terminals
 * offline with their alerts): each list page, filter and sort an operator uses, timed
 * over HTTP against one server instance (a child process), sequentially, as one console.
 *
 *   pnpm --filter @locker/server exec tsx bench/ops-fleet.ts
 */
import { createOperator } from '../src/operators/accounts';
import { cliActor } from '../src/operators/audit';
import { benchDatabase, benchServer } from './harness';

const STATIONS = Number(process.env.BENCH_OPS_STATIONS ?? 28_000);
const DOORS = 16;
const ROUNDS = Number(process.env.BENCH_OPS_ROUNDS ?? 30);

async function seed(sql: Awaited<ReturnType<typeof benchDatabase>>['sql']) {
  await sql.begin(async (tx) => {
    // Fixtures in bulk: the per-row triggers (cabinet versions, tracking events) would only
    // slow the seeding; what is measured reads the tables, not the triggers.
    await tx`set local session_replication_role = replica`;
    const [org] = await tx<
      { id: string }[]
    >`insert into organizations (name) values ('Bench Shop') returning id`;
    await tx`
      insert into stations (code, name, cabinet_sn)
      select 'ST' || lpad(n::text, 6, '0'), 'Station ' || n, 'SN' || n from generate_series(1, ${STATIONS}) n`;
    await tx`
      insert into doors (station_id, position, size)
      select s.id, p, (array['S','M','L','XL'])[1 + p % 4] from stations s, generate_series(1, ${DOORS}) p`;
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

async function signIn(url: string, sql: Awaited<ReturnType<typeof benchDatabase>>['sql']) {
  const issued = await createOperator(
    sql,
    cliActor(),
    { email: 'bench@ops.example', role: 'support' },
    url,
  );
  const headers = { 'content-type': 'application/json', origin: url };
  await fetch(`${url}/ops/v1/setup`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ token: issued.setup_token, password: 'bench password 1234' }),
  });
  const login = await fetch(`${url}/ops/v1/session`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: 'bench@ops.example', password: 'bench password 1234' }),
  });
  return login.headers.getSetCookie()[0]!.split(';')[0]!;
}

async function timed(url: string, cookie: string, path: string) {
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < ROUNDS + 3; i++) {
    const started = performance.now();
    const answer = await fetch(url + path, { headers: { cookie } });
    const body = (await answer.json()) as { items?: unknown[] };
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    if (i >= 3) times.push(performance.now() - started);
    items = body.items?.length ?? 1;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1));
  return { request: path, items, 'p50 ms': at(0.5), 'p95 ms': at(0.95), 'max ms': at(1) };
}

async function main() {
  const db = await benchDatabase('locker_bench_ops');
  const started = performance.now();
  await seed(db.sql);
  console.log(
    `seeded ${STATIONS} stations in ${Math.round((performance.now() - started) / 1000)} s`,
  );
  const server = await benchServer(db.url);
  const rows: object[] = [];
  try {
    const cookie = await signIn(server.url, db.sql);
    const middle = (await (
      await fetch(`${server.url}/ops/v1/stations?limit=200`, { headers: { cookie } })
    ).json()) as { next_cursor: string };
    for (const path of [
      '/ops/v1/stations?limit=50',
      '/ops/v1/stations?limit=200',
      `/ops/v1/stations?limit=50&cursor=${middle.next_cursor}`,
      '/ops/v1/stations?limit=50&sort=name',
      '/ops/v1/stations?limit=50&sort=offline_first',
      '/ops/v1/stations?limit=50&sort=alerts_first',
      '/ops/v1/stations?limit=50&offline=true',
      '/ops/v1/stations?limit=50&has_alerts=true',
      '/ops/v1/stations?limit=50&q=ST0140',
      '/ops/v1/stations?limit=50&q=Station%2027',
      '/ops/v1/stations/ST014000',
      '/ops/v1/overview',
      '/ops/v1/alerts?limit=100',
      '/ops/v1/parcels?q=4412',
    ]) {
      rows.push(await timed(server.url, cookie, path));
    }
  } finally {
    await server.stop();
    await db.stop();
  }
  console.log(
    `\nOperations interface, ${STATIONS} stations × ${DOORS} doors, one server instance, one client`,
  );
  console.table(rows);
}

await main();
process.exit(0);
