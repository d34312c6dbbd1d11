/**
 * The live link at scale: how many kiosks one server instance holds, and what each costs.
 *
 *   LINK_KIOSKS (19,500; a process here may hold 20,000 descriptors, the server needs a few
 *   for itself) stations of 4 doors, a terminal each; the real server in a child process
 *   (its RSS read from /proc); WebSocket clients in this process, each doing what a kiosk
 *   does on connecting: the upgrade with its device token, the hello, its doors' states.
 *   Printed: connected, failures, connect rate, the server's RSS before and after and per
 *   connection, this process's RSS per client, and whether every link survives the pings.
 *
 *   pnpm --filter @locker/server exec tsx bench/link-connections.ts
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import WebSocket from 'ws';
import { LINK_PROTOCOL } from '@locker/shared';
import { generateLinkKey } from '../src/link/signing';
import { benchDatabase, benchServer } from './harness';

const KIOSKS = Number(process.env.LINK_KIOSKS ?? 19_500);
const BATCH = Number(process.env.LINK_BATCH ?? 250);
const PING_SECONDS = 10;

const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const db = await benchDatabase('locker_bench_link');
await db.sql.begin(async (tx) => {
  await tx`set local session_replication_role = replica`;
  await tx`
    insert into stations (code, name, cabinet_sn)
    select 'L' || i, 'Link station ' || i, 'SN-L' || i from generate_series(1, ${KIOSKS}) i`;
  await tx`
    insert into doors (station_id, position, size)
    select s.id, p, 'M' from stations s cross join generate_series(1, 4) p`;
  await tx`
    insert into terminals (station_id, token_hash, status, last_heartbeat_at)
    select id, sha256(convert_to('tdev_link_bench_' || code, 'UTF8')), 'online', now()
      from stations`;
});
await db.sql`analyze`;
const codes = (await db.sql<{ code: string }[]>`select code from stations order by code`).map(
  (r) => r.code,
);

const key = generateLinkKey();
const server = await benchServer(db.url, {
  LINK_SIGNING_KEY: key.seed,
  LINK_PING_SECONDS: String(PING_SECONDS),
  OFFLINE_AFTER_SECONDS: '86400',
});
await sleep(2000);
const serverBefore = rssOf(server.pid);
const clientBefore = process.memoryUsage().rss;
const url = server.url.replace('http', 'ws') + '/terminal/v1/link';

const sockets: WebSocket[] = [];
let failures = 0;
let closed = 0;
const doors = (i: number) =>
  JSON.stringify({
    type: 'doors',
    full: true,
    doors: [1, 2, 3, 4].map((position) => ({
      position,
      known: true,
      closed: true,
      itemPresent: (i + position) % 3 === 0,
      inSession: false,
    })),
    at: new Date().toISOString(),
  });

function connect(i: number): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, LINK_PROTOCOL, {
      headers: { authorization: `Bearer tdev_link_bench_${codes[i]}` },
      perMessageDeflate: false,
      handshakeTimeout: 60_000,
    });
    ws.once('message', () => {
      ws.send(doors(i));
      sockets.push(ws);
      resolve();
    });
    ws.once('error', () => {
      failures++;
      resolve();
    });
    ws.once('close', () => closed++);
  });
}

const started = performance.now();
for (let i = 0; i < KIOSKS; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, KIOSKS - i) }, (_, j) => connect(i + j)));
}
const connectSeconds = (performance.now() - started) / 1000;
// The door states written, the server settled.
await sleep(5000);
const [states] = await db.sql<{ n: number }[]>`select count(*)::int as n from door_sensor_states`;
const [links] = await db.sql<{ n: number }[]>`
  select count(*)::int as n from terminal_links where disconnected_at is null`;
const serverAfter = rssOf(server.pid);
const clientAfter = process.memoryUsage().rss;
// Two ping rounds: a link that answers pings is never dropped.
const closedBefore = closed;
await sleep(2 * PING_SECONDS * 1000 + 2000);
const droppedByPings = closed - closedBefore;
const serverIdle = rssOf(server.pid);

const connected = sockets.length;
console.log('\nThe live link: kiosks held by one server instance\n');
console.table([
  {
    kiosks: KIOSKS,
    connected,
    failures,
    'connect s': Math.round(connectSeconds * 10) / 10,
    'connects/s': Math.round(connected / connectSeconds),
    'links recorded': links!.n,
    'door states': states!.n,
  },
]);
console.table([
  {
    'server RSS before MB': mb(serverBefore),
    'server RSS after MB': mb(serverAfter),
    'server RSS after 2 pings MB': mb(serverIdle),
    'server KB per link': Math.round((serverAfter - serverBefore) / connected / 1024),
    'client KB per link': Math.round((clientAfter - clientBefore) / connected / 1024),
    'dropped by pings': droppedByPings,
  },
]);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${'2'} cores; pings every ${PING_SECONDS} s`,
);

for (const ws of sockets) ws.terminate();
await server.stop();
await db.stop();
