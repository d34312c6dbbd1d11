/**
 * The kiosk's three speed figures, measured end to end on this machine:
 *   1. keypad submit in Chromium → the unlock frame on the simulator's wire (a socat pty
 *      pair at 19200 baud: the driver's serial code path);
 *   2. 10,000 queued confirms replayed to the real server;
 *   3. renderer ready from a cold Chromium start;
 *   4. touch on the speaker button → first audio of the spoken instruction scheduled: the
 *      first touch once the kiosk has warmed its engine and four voices (as it is before
 *      its first customer), a second touch, and a touch the moment the home screen shows
 *      (the warm-up still running, so that touch waits for it).
 *
 *   pnpm --filter @locker/kiosk bench
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { chromium, type Page } from 'playwright-core';
import { SimulatedCabinet, servePty } from '@locker/lock-driver';
import {
  benchDatabase,
  createCourier,
  createOrganization,
  createStation,
  createTerminal,
  pickupCodeHash,
  REPO_ROOT,
  startServer,
} from '@locker/server/testing';
import { loadKioskConfig, writeKioskConfig } from '../src/core/config';
import { KioskCore } from '../src/core/kiosk';
import { RENDERER_DIR } from '../src/hosts/browser';
import { startBrowserHost } from '../src/hosts/browserHost';

const SECRET = 'kiosk-bench-secret';
const PICKUPS = 40; // one door each, on a 48-door (3-board) cabinet
const CONFIRMS = 10_000;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];
// Kiosk logs to its rotating file only: the bench prints its figures to stdout.
const quiet = { stdout: false };
const pct = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;

/** The kiosk on the simulated cabinet's serial line: the driver's real serial code path. */
function kioskConfig(serverUrl: string, token: string, devicePath: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'kiosk-bench-')), 'kiosk.json');
  writeKioskConfig(file, {
    serverUrl,
    deviceToken: token,
    lock: { kind: 'serial', path: devicePath, baudRate: 19200, boards: 3 },
    dataDir: './data',
  });
  return file;
}

/** Shipments awaiting pickup at a station, with known codes, inserted set-based. */
async function seedParcels(
  sql: Awaited<ReturnType<typeof benchDatabase>>['sql'],
  orgId: string,
  stationId: string,
  count: number,
) {
  const codes = Array.from({ length: count }, (_, i) => String(20_000_000 + i));
  const hashes = codes.map((c) => pickupCodeHash(SECRET, c).toString('hex'));
  const rows = await sql<{ id: string }[]>`
    insert into shipments (organization_id, tracking_number, destination_station_id, parcel_size, recipient_name,
                           recipient_phone, recipient_language, status, pickup_code_hash, deposited_at, slot_no)
    select ${orgId}, 'K' || lpad(i::text, 12, '0') || substr(${stationId}::text, 1, 4), ${stationId}, 'S', 'Ana', '+38344123456', 'sq',
           'ready_for_pickup', decode(h, 'hex'), now(), 1
      from unnest(${hashes}::text[]) with ordinality as t(h, i)
    returning id`;
  return { codes, ids: rows.map((r) => r.id) };
}

/**
 * Touches the speaker button and answers the time, in the page's clock, from the touch
 * to the first audio of the spoken instruction being scheduled.
 */
async function touchToFirstWord(page: Page): Promise<number> {
  type Waiting = Window & { firstWord?: Promise<number> };
  // Listening first, then the touch: the promise waits on the page.
  await page.evaluate(() => {
    (window as Waiting).firstWord = new Promise<number>((resolve) => {
      let touched = 0;
      window.addEventListener('pointerdown', () => (touched = performance.now()), {
        capture: true,
        once: true,
      });
      window.addEventListener(
        'kiosk-speaking',
        (event) =>
          resolve((event as CustomEvent<{ startedAt: number }>).detail.startedAt - touched),
        { once: true },
      );
    });
  });
  await page.locator('.option-speech').click();
  return page.evaluate(() => (window as Waiting).firstWord!);
}

type Warming = Window & { speechReady?: Promise<unknown> };

/** Put in the page before its scripts: resolves when the speech warm-up is done. */
function watchWarmUp() {
  (window as Warming).speechReady = new Promise((resolve) =>
    window.addEventListener('kiosk-speech-ready', resolve, { once: true }),
  );
}

async function main() {
  const loadAtStart = loadavg();
  execFileSync('pnpm', ['--filter', '@locker/kiosk', 'build'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const db = await benchDatabase('locker_bench_kiosk');
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: db.url,
    logLevel: 'silent',
    smsTransport: 'file:/dev/null',
    pickupCodeSecret: SECRET,
  });
  const cabinet = new SimulatedCabinet({ boards: 3 });
  // Behind a socat pseudo-terminal pair, at the board's 19200 baud, as on a kiosk's USB adapter.
  const gateway = await servePty(cabinet, { baudRate: 19200 });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  try {
    const org = await createOrganization(db.sql, 'Bench Shop');
    await createCourier(db.sql, '1001', 'Bench Courier');
    // 1. Keypad submit → unlock frame on the wire.
    await createStation(db.sql, {
      code: 'KB1',
      name: 'Kiosk bench',
      doors: Array.from({ length: PICKUPS }, (_, i) => `${i + 1}:S`).join(','),
    });
    const [kb1] = await db.sql<{ id: string }[]>`select id from stations where code = 'KB1'`;
    const pickups = await seedParcels(db.sql, org.id, kb1!.id, PICKUPS);
    // Parcel i lies in door i: the service names the door from what is in it.
    await db.sql`
      insert into door_occupancy (door_id, station_id, kind, shipment_id)
      select d.id, d.station_id, 'delivery', p.id
        from unnest(${pickups.ids}::uuid[]) with ordinality as p(id, n)
        join doors d on d.station_id = ${kb1!.id} and d.position = p.n`;
    const terminal = await createTerminal(db.sql, 'KB1');
    const core = await KioskCore.start(
      loadKioskConfig(kioskConfig(server.url, terminal.token, gateway.path)),
      quiet,
    );
    const host = await startBrowserHost(core, RENDERER_DIR);
    const page = await browser.newPage({ viewport: { width: 1080, height: 1600 } });
    await page.goto(`${host.url}?lang=en`);
    const submitToUnlock: number[] = [];
    // Where the time goes: the service's /pickup round trip, timed around the core's call.
    const serviceAnswer: number[] = [];
    const pickupCall = core.client.pickup.bind(core.client);
    // ...and the door driver: from the core's open() to the frame on the wire.
    const driverToWire: number[] = [];
    let openCalledAt = 0;
    const board = core.hardware.board;
    const open = board.open.bind(board);
    board.open = (...args: Parameters<typeof open>) => {
      openCalledAt = performance.now();
      return open(...args);
    };
    core.client.pickup = async (code) => {
      const t0 = performance.now();
      try {
        return await pickupCall(code);
      } finally {
        serviceAnswer.push(performance.now() - t0);
      }
    };
    for (const [index, code] of pickups.codes.entries()) {
      const door = index + 1;
      await db.sql`delete from rate_limit_windows`; // measuring latency, not the limit
      cabinet.closeDoor(door, true);
      await page.getByRole('button', { name: 'Pick up a parcel' }).click();
      for (const digit of code)
        await page
          .locator('.keypad-keys')
          .getByRole('button', { name: digit, exact: true })
          .click();
      const unlocked = new Promise<number>((resolve) =>
        cabinet.once('unlock', () => resolve(performance.now())),
      );
      const submitted = performance.now();
      await page.getByRole('button', { name: 'OK' }).click();
      const unlockedAt = await unlocked;
      submitToUnlock.push(unlockedAt - submitted);
      driverToWire.push(unlockedAt - openCalledAt);
      await page.getByRole('heading', { name: `Door ${door} is open` }).waitFor();
      cabinet.closeDoor(door, false);
      await page.getByText('Thank you! Enjoy your parcel.').waitFor();
      await page.goto(`${host.url}?lang=en`);
    }
    await page.close();
    await host.close();
    await core.stop();
    // 2. 10,000 confirms queued offline, replayed in order.
    await createStation(db.sql, { code: 'KB2', name: 'Replay bench', doors: '1:S' });
    const [kb2] = await db.sql<{ id: string }[]>`select id from stations where code = 'KB2'`;
    const queued = await seedParcels(db.sql, org.id, kb2!.id, CONFIRMS);
    const replayTerminal = await createTerminal(db.sql, 'KB2');
    const replayCore = await KioskCore.start(
      loadKioskConfig(kioskConfig(server.url, replayTerminal.token, gateway.path)),
      quiet,
    );
    const closedAt = new Date(Date.now() - 60_000);
    const fill = (replayCore as unknown as { db: Database.Database }).db;
    fill.transaction(() => {
      for (const id of queued.ids)
        replayCore.queue.add('door', { shipmentId: id, collected: true }, closedAt);
    })();
    const started = performance.now();
    await replayCore.queue.retryNow();
    const replaySeconds = (performance.now() - started) / 1000;
    const left = replayCore.queue.pending();
    await replayCore.stop();
    const [collected] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from shipments where destination_station_id = ${kb2!.id} and status = 'collected'`;
    // 3. Renderer ready from a cold start: a new Chromium each time.
    const readyCore = await KioskCore.start(
      loadKioskConfig(kioskConfig(server.url, terminal.token, gateway.path)),
      quiet,
    );
    const readyHost = await startBrowserHost(readyCore, RENDERER_DIR);
    const cold: number[] = [];
    const firstWord: number[] = [];
    const warmWord: number[] = [];
    const duringWarmUp: number[] = [];
    /** A cold Chromium on the home screen, and how long it took to show. */
    const coldStart = async () => {
      const t0 = performance.now();
      const fresh = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: CHROMIUM_ARGS,
      });
      const p = await fresh.newPage();
      await p.addInitScript(watchWarmUp);
      await p.goto(`${readyHost.url}?lang=en`);
      await p.getByRole('button', { name: 'Pick up a parcel' }).waitFor();
      return { fresh, p, ready: performance.now() - t0 };
    };
    for (let i = 0; i < 5; i++) {
      // a. Started and left to warm, as a kiosk is before its first customer.
      {
        const { fresh, p, ready } = await coldStart();
        cold.push(ready);
        await p.evaluate(() => (window as Warming).speechReady);
        firstWord.push(await touchToFirstWord(p));
        await p.locator('.option-speech').click(); // off again
        warmWord.push(await touchToFirstWord(p));
        await fresh.close();
      }
      // b. A touch the moment the home screen shows: it waits for the warm-up.
      {
        const { fresh, p } = await coldStart();
        duringWarmUp.push(await touchToFirstWord(p));
        await fresh.close();
      }
    }
    await readyHost.close();
    await readyCore.stop();

    console.log(
      `\nKiosk, this machine (2 cores, load average ${loadAtStart[0]!.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end), real server and PostgreSQL, simulator on a pty at 19200 baud`,
    );
    console.table([
      {
        measure: `keypad OK → unlock frame on the wire (${PICKUPS} pickups), ms`,
        p50: +pct(submitToUnlock, 50).toFixed(1),
        p95: +pct(submitToUnlock, 95).toFixed(1),
        max: +Math.max(...submitToUnlock).toFixed(1),
      },
      {
        measure: '  of which the service answering /pickup (HTTP + PostgreSQL), ms',
        p50: +pct(serviceAnswer, 50).toFixed(1),
        p95: +pct(serviceAnswer, 95).toFixed(1),
        max: +Math.max(...serviceAnswer).toFixed(1),
      },
      {
        measure: '  of which the driver: open() → frame on the pty, ms',
        p50: +pct(driverToWire, 50).toFixed(1),
        p95: +pct(driverToWire, 95).toFixed(1),
        max: +Math.max(...driverToWire).toFixed(1),
      },
      {
        measure: 'renderer ready from cold Chromium start (5 starts), ms',
        p50: +pct(cold, 50).toFixed(0),
        p95: +pct(cold, 95).toFixed(0),
        max: +Math.max(...cold).toFixed(0),
      },
      {
        measure: 'touch → first spoken word, first touch after start, warmed (5), ms',
        p50: +pct(firstWord, 50).toFixed(0),
        p95: +pct(firstWord, 95).toFixed(0),
        max: +Math.max(...firstWord).toFixed(0),
      },
      {
        measure: 'touch → first spoken word, second touch (5), ms',
        p50: +pct(warmWord, 50).toFixed(0),
        p95: +pct(warmWord, 95).toFixed(0),
        max: +Math.max(...warmWord).toFixed(0),
      },
      {
        measure: 'touch → first spoken word, touch as the screen shows, warming (5), ms',
        p50: +pct(duringWarmUp, 50).toFixed(0),
        p95: +pct(duringWarmUp, 95).toFixed(0),
        max: +Math.max(...duringWarmUp).toFixed(0),
      },
    ]);
    console.log(
      `replay: ${CONFIRMS} queued confirms in ${replaySeconds.toFixed(2)} s = ${Math.round(CONFIRMS / replaySeconds)} confirms/s (${left} left, ${collected?.n} shipments collected)`,
    );
  } finally {
    await browser.close();
    await gateway.close();
    cabinet.stop();
    await server.close();
    await db.stop();
  }
}

await main();
process.exit(0);
