/**
 * Terminal-interface load on one server instance (a child process, as in production),
 * with the load generator in this process on the same 2-core machine.
 *
 *   pnpm --filter @locker/server bench          (BENCH_KIOSKS=50000 by default)
 *
 * Steady state of 50,000 kiosks: a heartbeat every 60 s and /cabinet every 15 s,
 * 833 + 3,333 ≈ 4,200 requests/s, 48-door stations with a quarter of doors occupied.
 */
import autocannon, { type Request } from 'autocannon';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { connect } from '../src/db/connect';
import { ensureEmbeddedPostgres } from '../src/db/embedded';
import { migrate } from '../src/db/migrate';
import { seed, type Seeded } from './seed';

const KIOSKS = Number(process.env.BENCH_KIOSKS ?? 50_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SECRET = 'bench-pickup-secret';
const STEADY_RATE = Math.round(KIOSKS / 60 + KIOSKS / 15);

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  const embedded = await ensureEmbeddedPostgres({
    dataDir: path.join(REPO_ROOT, '.data/bench-postgres'),
    port: Number(process.env.BENCH_PG_PORT ?? 54359),
    // 50,000 stations of 48 doors are ~400 MB with indexes: a production-sized buffer
    // cache keeps them in memory, as any real deployment's would.
    settings: ['shared_buffers=1GB', 'max_wal_size=4GB'],
  });
  const admin = connect(embedded.url, { max: 1 });
  await admin`drop database if exists locker_bench with (force)`;
  await admin`create database locker_bench`;
  await admin.end();
  return { url: embedded.url.replace(/\/postgres$/, '/locker_bench'), stop: embedded.stop };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(databaseUrl: string): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PICKUP_CODE_SECRET: SECRET,
      SMS_TRANSPORT: 'file:/dev/null',
      // Real kiosks heartbeat every 60 s; the generator picks kiosks at random, so some go
      // minutes without one. Keep the sweeper from marking them offline mid-run.
      OFFLINE_AFTER_SECONDS: '86400',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return { url, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

interface Figures {
  name: string;
  rate: number;
  p50: number;
  p99: number;
  max: number;
  statuses: string;
}

async function load(
  name: string,
  url: string,
  options: Partial<autocannon.Options>,
  requests: Request[],
): Promise<Figures> {
  // A run is either timed or a fixed number of requests (`amount`).
  const length = options.amount ? {} : { duration: SECONDS };
  const result = await autocannon({ url, connections: 64, ...length, requests, ...options });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, s]) => `${code}:${(s as { count: number }).count}`)
    .join(' ');
  return {
    name,
    rate: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    statuses:
      statuses +
      (result.errors ? ` errors:${result.errors}` : '') +
      (result.timeouts ? ` timeouts:${result.timeouts}` : ''),
  };
}

const auth = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

function cabinetRequest(s: Seeded, withEtag: boolean): Request {
  return {
    method: 'GET',
    path: '/terminal/v1/cabinet',
    setupRequest: (req) => {
      const i = Math.floor(Math.random() * s.tokens.length);
      return {
        ...req,
        headers: { ...auth(s.tokens[i]!), ...(withEtag ? { 'if-none-match': s.etags[i]! } : {}) },
      };
    },
  };
}

function heartbeatRequest(s: Seeded): Request {
  return {
    method: 'POST',
    path: '/terminal/v1/heartbeat',
    setupRequest: (req) => ({
      ...req,
      headers: auth(pick(s.tokens)),
      body: '{"appVersion":"bench-1.0.0"}',
    }),
  };
}

async function main() {
  const db = await database();
  const sql = connect(db.url, { max: 4 });
  await migrate(sql);
  const started = Date.now();
  const s = await seed(sql, KIOSKS, SECRET, Math.min(KIOSKS, 20_000));
  console.log(
    `seeded ${KIOSKS} kiosks (48 doors each, 12 occupied) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const server = await startServer(db.url);
  const figures: Figures[] = [];
  try {
    // Steady state means every kiosk has polled before: one request per kiosk first.
    let kiosk = 0;
    await load('warm-up', server.url, { amount: s.tokens.length, connections: 32 }, [
      {
        method: 'GET',
        path: '/terminal/v1/cabinet',
        setupRequest: (req) => ({ ...req, headers: auth(s.tokens[kiosk++ % s.tokens.length]!) }),
      },
    ]);

    // Steady state: 4 cabinet polls (kiosks hold their ETag) per heartbeat, at the target rate.
    const steady = await load(
      `steady mix @ ${STEADY_RATE}/s target`,
      server.url,
      { overallRate: STEADY_RATE, connections: 128 },
      [
        cabinetRequest(s, true),
        cabinetRequest(s, true),
        cabinetRequest(s, true),
        cabinetRequest(s, true),
        heartbeatRequest(s),
      ],
    );
    figures.push(steady);
    figures.push(
      await load(
        'steady mix, no ETags held',
        server.url,
        { overallRate: STEADY_RATE, connections: 128 },
        [
          cabinetRequest(s, false),
          cabinetRequest(s, false),
          cabinetRequest(s, false),
          cabinetRequest(s, false),
          heartbeatRequest(s),
        ],
      ),
    );
    figures.push(
      await load('/cabinet with If-None-Match (max)', server.url, {}, [cabinetRequest(s, true)]),
    );
    figures.push(
      await load('/cabinet without If-None-Match (max)', server.url, {}, [
        cabinetRequest(s, false),
      ]),
    );
    figures.push(await load('/heartbeat (max)', server.url, {}, [heartbeatRequest(s)]));

    let next = 0;
    figures.push(
      await load('/pickup, valid codes (max)', server.url, { amount: s.pickups.length }, [
        {
          method: 'POST',
          path: '/terminal/v1/pickup',
          setupRequest: (req) => {
            const p = s.pickups[next++ % s.pickups.length]!;
            return { ...req, headers: auth(p.token), body: JSON.stringify({ code: p.code }) };
          },
        },
      ]),
    );

    let parcel = 0;
    const c = s.contention;
    figures.push(
      await load(
        '/deposit, 32 couriers at one station',
        server.url,
        { connections: 32, amount: c.trackingNumbers.length },
        [
          {
            method: 'POST',
            path: '/terminal/v1/deposit',
            setupRequest: (req) => ({
              ...req,
              headers: auth(c.token),
              body: JSON.stringify({
                courierNo: c.courierNo,
                trackingNumber: c.trackingNumbers[parcel++]!,
              }),
            }),
          },
        ],
      ),
    );
    const [doors] = await sql<{ doors: number; rows: number }[]>`
      select count(distinct door_id)::int as doors, count(*)::int as rows from door_occupancy o
        join stations s on s.id = o.station_id where s.code = 'BCONT'`;
    console.log(`contention station: ${doors?.rows} deposits in ${doors?.doors} distinct doors`);
  } finally {
    server.stop();
    await sql.end();
    await db.stop();
  }
  console.log(`\nTerminal interface, one server instance, ${KIOSKS} kiosks, ${SECONDS} s per run`);
  console.table(
    figures.map((f) => ({
      run: f.name,
      'req/s': f.rate,
      'p50 ms': f.p50,
      'p99 ms': f.p99,
      'max ms': f.max,
      statuses: f.statuses,
    })),
  );
}

await main();
process.exit(0);
