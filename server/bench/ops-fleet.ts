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
import { seedOpsFleet } from './opsSeed';

const STATIONS = Number(process.env.BENCH_OPS_STATIONS ?? 28_000);
const DOORS = 16;
const ROUNDS = Number(process.env.BENCH_OPS_ROUNDS ?? 30);

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
  await seedOpsFleet(db.sql, STATIONS, DOORS);
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
      '/ops/v1/stations?limit=50&sort=fullest_first',
      '/ops/v1/stations?limit=50&sort=overdue_first',
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
