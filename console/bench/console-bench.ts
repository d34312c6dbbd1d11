/**
 * The operator console in Debian's Chromium against one server process on a fleet of
 * 28,000 stations (16 doors each, parcels in a third, 2 % of terminals offline with their
 * alerts): first load (time, bundle size), the fleet screen's time to interactive and
 * filter response, and how long a new alert takes to show on the first screen.
 *
 *   pnpm --filter @locker/console bench        (BENCH_CONSOLE_STATIONS, BENCH_CONSOLE_ROUNDS)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  benchDatabase,
  benchServer,
  cliActor,
  createOperator,
  seedOpsFleet,
} from '@locker/server/testing';
import { CONSOLE_DIST, ensureConsoleBuilt } from '../scripts/build';

const STATIONS = Number(process.env.BENCH_CONSOLE_STATIONS ?? 28_000);
const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 10);

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0));
};
const figures = (what: string, values: number[]) => ({
  what,
  runs: values.length,
  'p50 ms': quantile(values, 0.5),
  'p95 ms': quantile(values, 0.95),
  'max ms': quantile(values, 1),
});

async function signIn(url: string, sql: Parameters<typeof createOperator>[0]) {
  const email = `bench.${Date.now()}@ops.example`;
  const issued = await createOperator(sql, cliActor(), { email, role: 'support' }, url);
  const headers = { 'content-type': 'application/json', origin: url };
  const password = 'bench password 1234';
  await fetch(`${url}/ops/v1/setup`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ token: issued.setup_token, password }),
  });
  const login = await fetch(`${url}/ops/v1/session`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, password }),
  });
  return login.headers.getSetCookie()[0]!.split(';')[0]!;
}

function bundle() {
  const dir = path.join(CONSOLE_DIST, 'assets');
  const files = readdirSync(dir).map((f) => path.join(dir, f));
  const sum = (pick: (f: string) => number) => files.reduce((a, f) => a + pick(f), 0);
  // What the first screen loads: index.html's script and style (the QR code's chunk is
  // loaded only at a TOTP set-up).
  const html = readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
  const first = files.filter((f) => html.includes(path.basename(f)));
  const kb = (n: number) => `${(n / 1024).toFixed(0)} kB`;
  return {
    'first load, raw': kb(first.reduce((a, f) => a + statSync(f).size, 0)),
    'first load, gzip': kb(first.reduce((a, f) => a + gzipSync(readFileSync(f)).length, 0)),
    'all assets, raw': kb(sum((f) => statSync(f).size)),
  };
}

async function page(browser: Browser, url: string, cookie: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const [name, value] = cookie.split('=');
  await context.addCookies([{ name: name!, value: value!, url, sameSite: 'Strict' }]);
  return context.newPage();
}

async function main() {
  ensureConsoleBuilt();
  const db = await benchDatabase('locker_bench_console');
  const seeded = performance.now();
  await seedOpsFleet(db.sql, STATIONS, 16);
  await db.sql`analyze`;
  console.log(
    `seeded ${STATIONS} stations in ${Math.round((performance.now() - seeded) / 1000)} s`,
  );
  const server = await benchServer(db.url);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const rows: object[] = [];
  try {
    const cookie = await signIn(server.url, db.sql);

    // First load: a fresh browser context (empty cache) to the first screen's counts and inbox.
    const loads: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const p = await page(browser, server.url, cookie);
      const started = performance.now();
      await p.goto(`${server.url}/ops/`);
      await p.locator('.count-value').first().filter({ hasNotText: '…' }).waitFor();
      await p.locator('.inbox tbody tr').first().waitFor();
      loads.push(performance.now() - started);
      await p.context().close();
    }
    rows.push(figures('first load: address → counts and inbox shown (cold cache)', loads));

    // The fleet: its first page of 100 stations drawn and the search field ready.
    const fleet: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const p = await page(browser, server.url, cookie);
      await p.goto(`${server.url}/ops/`);
      await p.locator('.count-value').first().waitFor();
      const started = performance.now();
      await p.getByRole('link', { name: 'Fleet', exact: true }).click();
      await p.locator('table.fleet tbody tr').nth(99).waitFor();
      await p.getByRole('searchbox').waitFor();
      fleet.push(performance.now() - started);
      await p.context().close();
    }
    rows.push(figures(`fleet of ${STATIONS}: click → 100 stations drawn, search ready`, fleet));

    // Filter response: typed in the search field → the table shows the matches.
    const p = await page(browser, server.url, cookie);
    await p.goto(`${server.url}/ops/fleet`);
    await p.locator('table.fleet tbody tr').nth(99).waitFor();
    const search = p.getByRole('searchbox');
    const filters: number[] = [];
    const sorts: number[] = [];
    for (let i = 0; i < ROUNDS * 2; i++) {
      const n = 1 + ((i * 7919) % STATIONS);
      const code = `ST${String(n).padStart(6, '0')}`;
      const started = performance.now();
      await search.fill(code);
      await p.locator('table.fleet tbody tr').first().filter({ hasText: code }).waitFor();
      await p.locator('table.fleet tbody tr').nth(1).waitFor({ state: 'detached' });
      filters.push(performance.now() - started);
    }
    rows.push(figures('fleet filter: code typed → only its station shown', filters));
    await search.fill('');
    await p.locator('table.fleet tbody tr').nth(99).waitFor();
    for (const sort of ['offline_first', 'fullest_first', 'overdue_first', 'code']) {
      const started = performance.now();
      await p.getByLabel('Order').selectOption(sort);
      await p.waitForURL(sort === 'code' ? /\/fleet$/ : new RegExp(`sort=${sort}`));
      await p.locator('table[aria-busy="false"] tbody tr').nth(99).waitFor();
      sorts.push(performance.now() - started);
    }
    rows.push(figures('fleet sort changed (offline, fullest, overdue, code) → redrawn', sorts));
    await p.context().close();

    // Live: an alert raised in the database → its "new" bar on the first screen.
    const home = await page(browser, server.url, cookie);
    await home.goto(`${server.url}/ops/`);
    await home.locator('.live-ok').waitFor();
    const stations = await db.sql<{ id: string; terminal: string }[]>`
      select s.id, t.id as terminal from stations s join terminals t on t.station_id = s.id
       where t.status = 'online' limit ${ROUNDS}`;
    const live: number[] = [];
    for (const [i, s] of stations.entries()) {
      const started = performance.now();
      await db.sql`insert into alerts (kind, terminal_id, station_id, message)
                   values ('pickup_brute_force', ${s.terminal}, ${s.id}, 'bench')`;
      await home.getByRole('button', { name: new RegExp(`^${i + 1} new alert`) }).waitFor();
      live.push(performance.now() - started);
    }
    rows.push(figures('live: alert inserted → shown on the first screen', live));
    await home.context().close();
  } finally {
    await browser.close();
    await server.stop();
    await db.stop();
  }
  console.log(`\nOperator console, ${STATIONS} stations, one server process, Chromium, 1280×720`);
  console.table(bundle());
  console.table(rows);
}

await main();
process.exit(0);
