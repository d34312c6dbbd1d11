/**
 * Terminal-interface load on one server instance (a child process, as in production),
 * with the load generator in this process on the same 2-core machine.
 *
 *   pnpm --filter @locker/server bench          (BENCH_KIOSKS=50000 by default)
 *
 * Steady state of 50,000 kiosks: a heartbeat every 60 s and /cabinet every 15 s,
 * 833 + 3,333 ≈ 4,200 requests/s, 48-door stations with a quarter of doors occupied.
 */
import type { Request } from 'autocannon';
import {
  BENCH_SECRET,
  bearer as auth,
  benchDatabase,
  benchServer,
  load,
  paced,
  pick,
  SECONDS,
  type Figures,
  type PacedRequest,
} from './harness';
import { seed, type Seeded } from './seed';

const KIOSKS = Number(process.env.BENCH_KIOSKS ?? 50_000);
const STEADY_RATE = Math.round(KIOSKS / 60 + KIOSKS / 15);

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
  const db = await benchDatabase('locker_bench');
  const { sql } = db;
  const started = Date.now();
  const s = await seed(sql, KIOSKS, BENCH_SECRET, Math.min(KIOSKS, 20_000));
  console.log(
    `seeded ${KIOSKS} kiosks (48 doors each, 12 occupied) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const server = await benchServer(db.url);
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

    // Steady state: per kiosk a heartbeat every 60 s and a poll every 15 s (4 polls per
    // heartbeat), paced at the fleet's rate. Polling kiosks hold their last ETag.
    const mix = (changedShare: number) => (): PacedRequest => {
      const i = Math.floor(Math.random() * s.tokens.length);
      if (Math.random() < 0.2) {
        return {
          method: 'POST',
          path: '/terminal/v1/heartbeat',
          headers: auth(s.tokens[i]!),
          body: '{"appVersion":"bench-1.0.0"}',
        };
      }
      const headers: Record<string, string> = auth(s.tokens[i]!);
      // A poll whose grid changed since the last one carries no matching ETag.
      if (Math.random() >= changedShare) headers['if-none-match'] = s.etags[i]!;
      return { method: 'GET', path: '/terminal/v1/cabinet', headers };
    };
    figures.push(
      await paced(`steady mix, paced ${STEADY_RATE}/s`, server.url, STEADY_RATE, mix(0)),
    );
    // Busy hours: one poll in ten finds its grid changed and gets the full body.
    figures.push(
      await paced(
        `busy mix (10% grids changed), paced ${STEADY_RATE}/s`,
        server.url,
        STEADY_RATE,
        mix(0.1),
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
    await server.stop();
    await db.stop();
  }
  console.log(`\nTerminal interface, one server instance, ${KIOSKS} kiosks, ${SECONDS} s per run`);
  console.table(figures);
}

await main();
process.exit(0);
