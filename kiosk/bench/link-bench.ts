/**
 * The live link's speed and what it saves, end to end on this machine: the real server
 * (in process) and PostgreSQL, real kiosk cores on simulated cabinets (TCP gateway).
 *   1. command → door-open outcome back at the service: a remote open issued (signed,
 *      stored, announced), delivered, checked and run by the kiosk's door session, the
 *      simulated door seen open, the outcome recorded and the waiting request woken;
 *   2. a door's state → the operations stream: a door opened or shut on the simulator,
 *      until its `event: door` reaches an operator's `/ops/v1/alerts/stream`;
 *   3. heartbeat and poll traffic per kiosk, without the link and with it, over the same
 *      window and the same grid changes (LINK_TRAFFIC_SECONDS, 180; a grid change at both
 *      stations every LINK_GRID_CHANGE_SECONDS, 30).
 *
 *   pnpm --filter @locker/kiosk exec tsx bench/link-bench.ts
 */
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import {
  benchDatabase,
  createStation,
  createTerminal,
  generateLinkKey,
  signedInOperator,
  startServer,
  testClock,
} from '@locker/server/testing';
import { loadKioskConfig, writeKioskConfig } from '../src/core/config';
import { KioskCore } from '../src/core/kiosk';

const SAMPLES = Number(process.env.LINK_SAMPLES ?? 40);
const TRAFFIC_SECONDS = Number(process.env.LINK_TRAFFIC_SECONDS ?? 180);
const GRID_CHANGE_SECONDS = Number(process.env.LINK_GRID_CHANGE_SECONDS ?? 30);
const pct = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;
const round = (ms: number) => Math.round(ms);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(5);
  }
}

/** Counts the kiosk's requests on their way to the service (the link's upgrade passes). */
async function countingProxy(target: string) {
  const to = new URL(target);
  const counts: Record<string, number> = {};
  const note = (what: string) => (counts[what] = (counts[what] ?? 0) + 1);
  const server = http.createServer((req, res) => {
    note(`${req.method} ${new URL(req.url ?? '/', target).pathname}`);
    const upstream = http.request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    note('upgrade');
    const up = net.connect(Number(to.port), to.hostname, () => {
      let raw = `${req.method} ${req.url} HTTP/1.1\r\n`;
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        raw += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
      up.write(raw + '\r\n');
      up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const db = await benchDatabase('locker_bench_link_kiosk');
const key = generateLinkKey();
const server = await startServer({
  port: 0,
  host: '127.0.0.1',
  databaseUrl: db.url,
  logLevel: 'warn',
  smsTransport: 'file:/dev/null',
  development: true,
  linkSigningKey: key.seed,
});

async function kiosk(code: string, serverUrl: string, extra: object = {}) {
  await createStation(db.sql, {
    code,
    name: `Link bench ${code}`,
    doors: '1:S,2:S,3:S,4:S,5:M,6:M,7:L,8:XL',
  });
  const terminal = await createTerminal(db.sql, code);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'link-bench-')), 'kiosk.json');
  writeKioskConfig(file, {
    serverUrl,
    deviceToken: terminal.token,
    lock: { kind: 'simulator', boards: 1 },
    dataDir: './data',
    linkPublicKey: key.publicKey,
    ...extra,
  });
  const core = await KioskCore.start(loadKioskConfig(file), { stdout: false });
  return { core, cabinet: core.hardware.simulator!.cabinet, code };
}
const ready = (k: Awaited<ReturnType<typeof kiosk>>, link = true) =>
  until(async () => {
    const s = await k.core.getState();
    return s.config?.station_code && (!link || s.link === 'connected');
  });

// 3 first, in the background: two kiosks with the spec's default intervals, one without
// the link and one with it, each behind a proxy that counts its requests.
const plain = await countingProxy(server.url);
const linked = await countingProxy(server.url);
const without = await kiosk('LBOFF', plain.url, { link: false });
const withLink = await kiosk('LBON', linked.url);
await ready(without, false);
await ready(withLink);
const trafficStart = Date.now();
for (const c of [plain.counts, linked.counts]) for (const k of Object.keys(c)) delete c[k];
const gridChanges = setInterval(() => {
  // A grid change at both stations (a door in and out of service, as a technician would).
  // postgres.js runs a query once it is awaited (or caught): never a bare `void`.
  db.sql`
    update doors set out_of_service = not out_of_service
     where position = 8 and station_id in (select id from stations where code in ('LBOFF', 'LBON'))`.catch(
    (error: unknown) => console.error('grid change failed', error),
  );
}, GRID_CHANGE_SECONDS * 1000);

// 1. Command → outcome.
const k = await kiosk('LB01', server.url);
await ready(k);
const opens: number[] = [];
const outcomes = new Map<string, number>();
for (let i = 0; i < SAMPLES; i++) {
  const door = 1 + (i % 8);
  const t0 = performance.now();
  const command = await server.link.commands.issue({
    stationCode: k.code,
    door,
    kind: 'open_door',
    args: { by: 'operator' },
    issuedBy: 'bench',
  });
  const done = await server.link.commands.waitForOutcome(command.id, 15_000);
  opens.push(performance.now() - t0);
  outcomes.set(done?.outcome ?? 'none', (outcomes.get(done?.outcome ?? 'none') ?? 0) + 1);
  k.cabinet.closeDoor(door, false);
  await until(async () => (await k.core.getState()).remoteOpen?.session.active === false);
}

// 2. Door state → the operations stream.
const operator = await signedInOperator(
  { sql: db.sql, url: server.url },
  testClock(),
  'operations',
);
const controller = new AbortController();
const response = await fetch(`${server.url}/ops/v1/alerts/stream`, {
  headers: { cookie: operator.client.cookie()! },
  signal: controller.signal,
});
const doorEvents: { at: number; doors: { position: number; state: string }[] }[] = [];
let connected = false;
void (async () => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.includes(': connected')) connected = true;
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (block.includes('event: door') && data) {
          const event = JSON.parse(data) as {
            station_code: string;
            doors: { position: number; state: string }[];
          };
          if (event.station_code === k.code)
            doorEvents.push({ at: performance.now(), doors: event.doors });
        }
      }
    }
  } catch {
    // aborted
  }
})();
await until(() => connected);
const states: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const door = 1 + (i % 8);
  const opening = k.cabinet.door(door).closed;
  // Between the kiosk's sensor reads, wherever the change falls.
  await sleep(Math.random() * 500);
  const t0 = performance.now();
  if (opening) k.cabinet.openDoor(door);
  else k.cabinet.closeDoor(door, false);
  const want = opening ? 'open' : 'closed';
  const seen = await until(() =>
    doorEvents.find(
      (e) => e.at >= t0 && e.doors.some((d) => d.position === door && d.state === want),
    ),
  );
  states.push(seen.at - t0);
}
controller.abort();

console.log('\nThe live link, end to end on the simulator\n');
console.table([
  {
    measured: 'remote open: issued → outcome back at the service',
    samples: opens.length,
    'p50 ms': round(pct(opens, 50)),
    'p95 ms': round(pct(opens, 95)),
    'max ms': round(Math.max(...opens)),
    outcomes: [...outcomes].map(([o, n]) => `${o}:${n}`).join(' '),
  },
  {
    measured: 'door state (sensor read every 500 ms) → operations stream',
    samples: states.length,
    'p50 ms': round(pct(states, 50)),
    'p95 ms': round(pct(states, 95)),
    'max ms': round(Math.max(...states)),
    outcomes: '',
  },
]);

// 3. The rest of the traffic window.
const left = TRAFFIC_SECONDS * 1000 - (Date.now() - trafficStart);
if (left > 0) await sleep(left);
clearInterval(gridChanges);
const minutes = (Date.now() - trafficStart) / 60_000;
const perMinute = (c: Record<string, number>, what: string) =>
  Math.round(((c[what] ?? 0) / minutes) * 100) / 100;
const row = (name: string, c: Record<string, number>) => ({
  kiosk: name,
  'heartbeats/min': perMinute(c, 'POST /terminal/v1/heartbeat'),
  'cabinet polls/min': perMinute(c, 'GET /terminal/v1/cabinet'),
  'requests/min': Math.round((Object.values(c).reduce((a, b) => a + b, 0) / minutes) * 100) / 100,
  upgrades: c.upgrade ?? 0,
});
console.log(
  `\nHeartbeat and poll traffic per kiosk over ${minutes.toFixed(1)} min, a grid change every ${GRID_CHANGE_SECONDS} s (spec defaults: heartbeat 60 s, poll 15 s; with the link the idle poll is 300 s)\n`,
);
console.table([row('without the link', plain.counts), row('with the link', linked.counts)]);
const grid = async (c: KioskCore) =>
  (await c.getState()).cabinet?.doors.find((d) => d.position === 8)?.status;
console.log(
  `both kiosks show the same grid at the end: ${(await grid(without.core)) === (await grid(withLink.core))}`,
);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on 2 cores`,
);

for (const kk of [k, without, withLink]) await kk.core.stop();
plain.close();
linked.close();
await server.close();
await db.stop();
