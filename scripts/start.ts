/**
 * `pnpm start`: the whole stack for a newcomer. The server on the embedded PostgreSQL, a
 * demo organization, station, terminal and courier seeded on an empty database, and
 * everything needed to walk a parcel through printed once it is up.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as admin from '../server/src/admin/commands';
import { REPO_ROOT } from '../server/src/config';
import type { Sql } from '../server/src/db/connect';
import { startServer } from '../server/src/server';
import { execFileSync } from 'node:child_process';
import { loadKioskConfig, writeKioskConfig } from '../kiosk/src/core/config';
import { KioskCore } from '../kiosk/src/core/kiosk';
import { RENDERER_DIR, launchChromium } from '../kiosk/src/hosts/browser';
import { startBrowserHost } from '../kiosk/src/hosts/browserHost';

const DEMO_FILE = path.join(REPO_ROOT, '.data/demo.json');

interface Demo {
  apiKey: string;
  stationId: string;
  stationCode: string;
  terminalToken: string;
  courierNumber: string;
}

/** Seeds once, on an empty database; the secrets are kept beside it to print again. */
async function demoScene(sql: Sql): Promise<Demo | undefined> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from organizations`;
  if ((row?.count ?? 0) > 0)
    return existsSync(DEMO_FILE)
      ? (JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as Demo)
      : undefined;
  const org = await admin.createOrganization(sql, 'Demo Shop');
  const station = await admin.createStation(sql, {
    code: 'DEMO-01',
    name: 'Prishtina Mother Teresa Square',
    cabinetSn: 'KR-CU16-DEMO',
    doors: Array.from(
      { length: 16 },
      (_, i) => `${i + 1}:${['S', 'S', 'M', 'M', 'L', 'XL'][i % 6]}:A${i + 1}`,
    ).join(','),
    supportPhone: '+383 38 000 000',
    idleTimeoutSeconds: 60,
  });
  const terminal = await admin.createTerminal(sql, station.code);
  const courier = await admin.createCourier(sql, '1001', 'Arben Krasniqi');
  const demo: Demo = {
    apiKey: org.apiKey,
    stationId: station.id,
    stationCode: station.code,
    terminalToken: terminal.token,
    courierNumber: courier.number,
  };
  mkdirSync(path.dirname(DEMO_FILE), { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/**
 * The demo terminal's kiosk on a simulated cabinet whose doors shut by themselves 6 s
 * after opening, gaining a parcel after a deposit and losing it after a pickup.
 */
async function startKiosk(serverUrl: string, demo: Demo) {
  execFileSync('pnpm', ['--filter', '@locker/kiosk', 'build'], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const file = path.join(REPO_ROOT, '.data/kiosk/kiosk.json');
  writeKioskConfig(file, {
    serverUrl,
    deviceToken: demo.terminalToken,
    lock: { kind: 'simulator', boards: 1, autoCloseMs: 6000, demo: true },
    dataDir: './data',
  });
  const core = await KioskCore.start(loadKioskConfig(file));
  const host = await startBrowserHost(core, RENDERER_DIR, Number(process.env.KIOSK_PORT ?? 8081));
  return { core, host };
}

function banner(url: string, kioskUrl: string | undefined, demo: Demo | undefined): string {
  if (!demo)
    return `Server: ${url} (database not empty and no .data/demo.json: no demo credentials to show)`;
  const m = `curl -s -H "Authorization: Bearer ${demo.apiKey}"`;
  return `
Parcel locker stack is up.

  Kiosk (touchscreen)  ${kioskUrl}?lang=en   (Shqip, Srpski, Türkçe, English on screen)
  Server               ${url}   (OpenAPI: ${url}/openapi.json)
  Demo station         ${demo.stationCode} (id ${demo.stationId}), 16 doors, simulated cabinet
  Courier number       ${demo.courierNumber}
  Merchant API key     ${demo.apiKey}
  Terminal token       ${demo.terminalToken}

A whole parcel journey in five minutes:
  1. A shop registers a shipment (note its tracking_number and id):
       ${m} -X POST ${url}/api/v1/shipments -H 'Content-Type: application/json' \\
         -d '{"destination_station_id":"${demo.stationId}","parcel_size":"S","recipient_name":"Drita Gashi","recipient_phone":"+38344123456","recipient_language":"sq"}'
     Its label: ${m} ${url}/api/v1/shipments/<id>/label -o label.pdf
  2. On the kiosk: Courier → ${demo.courierNumber} → OK → type the tracking number → OK.
     The door opens; the simulated courier shuts it 6 s later with the parcel inside.
  3. The SMS with the pickup code is printed below (in Albanian: "Kodi juaj për tërheqje").
  4. On the kiosk: Pick up a parcel → the code → OK. The door opens and is shut, empty, 6 s later.
  5. The shop sees it collected: ${m} ${url}/api/v1/track/<tracking_number>
  Technicians: ${kioskUrl}#maintenance · pnpm admin --help · pnpm lockctl --help
`;
}

const server = await startServer();
const demo = await demoScene(server.sql);
const kiosk = demo ? await startKiosk(`http://127.0.0.1:${server.port}`, demo) : undefined;
process.stdout.write(banner(`http://localhost:${server.port}`, kiosk?.host.url, demo) + '\n');
if (kiosk && process.argv.includes('--kiosk-window')) launchChromium(kiosk.host.url);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    const stopping = kiosk ? [kiosk.host.close(), kiosk.core.stop()] : [];
    Promise.all(stopping)
      .then(() => server.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}
