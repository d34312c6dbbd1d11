/**
 * The demo scene of `pnpm start`: seeded once on an empty database, its secrets kept in
 * `.data/demo.json` to print again, and the banner that walks a newcomer through a parcel.
 */
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { admin, REPO_ROOT, type Sql } from '@locker/server';

export const DEMO_FILE = path.join(REPO_ROOT, '.data/demo.json');

export interface Demo {
  apiKey: string;
  stationId: string;
  stationCode: string;
  terminalToken: string;
  courierNumber: string;
  /** The demo kiosk's technician PIN (its configuration holds only the hash). */
  technicianPin: string;
}

/** Six digits, new for each demo: never a PIN anybody could guess from the README. */
const newPin = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

function save(demo: Demo): Demo {
  mkdirSync(path.dirname(DEMO_FILE), { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

export async function demoScene(sql: Sql): Promise<Demo | undefined> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from organizations`;
  if ((row?.count ?? 0) > 0) {
    if (!existsSync(DEMO_FILE)) return undefined;
    const kept = JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as Partial<Demo> &
      Omit<Demo, 'technicianPin'>;
    // A demo from before technician PINs gets one now, kept for next time.
    return kept.technicianPin ? (kept as Demo) : save({ ...kept, technicianPin: newPin() });
  }
  const org = await admin.createOrganization(sql, 'Demo Shop');
  const station = await admin.createStation(sql, {
    code: 'DEMO-01',
    name: 'Prishtina Mother Teresa Square',
    cabinetSn: 'KR-CU16-DEMO',
    doors: Array.from(
      { length: 16 },
      (_, i) => `${i + 1}:${['S', 'S', 'M', 'M', 'L', 'XL'][i % 6]}:A${i + 1}`,
    ).join(','),
    supportPhone: '+383 38 200 200',
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
    technicianPin: newPin(),
  };
  return save(demo);
}

export interface BannerPlaces {
  /** The server as a person's browser or curl reaches it. */
  url: string;
  port: number;
  kioskUrl: string | undefined;
  kioskPort: number | undefined;
}

const BOLD = process.stdout.isTTY ? '\u001b[1m' : '';
const RESET = process.stdout.isTTY ? '\u001b[0m' : '';

export function banner(places: BannerPlaces, demo: Demo | undefined): string {
  const { url, port, kioskUrl, kioskPort } = places;
  if (!demo)
    return `\n${BOLD}Parcel locker server is up${RESET} on ${url} (port ${port}). The database is not empty and .data/demo.json is missing: no demo credentials or kiosk to show (remove .data to start afresh).\n`;
  const m = `curl -s -H "Authorization: Bearer ${demo.apiKey}"`;
  return `
${BOLD}Parcel locker stack is up.${RESET}

  Kiosk (touchscreen)  ${kioskUrl}/?lang=en   (port ${kioskPort}, KIOSK_PORT; Shqip, Srpski, Türkçe, English on screen)
  Server               ${url}   (port ${port}, PORT; OpenAPI: ${url}/openapi.json)
  Demo station         ${demo.stationCode} (id ${demo.stationId}), 16 doors, simulated cabinet
  Courier number       ${demo.courierNumber}
  Technician PIN       ${demo.technicianPin}   (service menu: hold the screen's top-left corner 3 s, or Ctrl+Alt+S)
  Merchant API key     ${demo.apiKey}
  Terminal token       ${demo.terminalToken}

A whole parcel journey in five minutes:
  1. A shop registers a shipment (note its tracking_number and id):
       ${m} -X POST ${url}/api/v1/shipments -H 'Content-Type: application/json' \\
         -d '{"destination_station_id":"${demo.stationId}","parcel_size":"S","recipient_name":"Drita Gashi","recipient_phone":"+38344123456","recipient_language":"sq"}'
     Its label: ${m} ${url}/api/v1/shipments/<id>/label -o label.pdf
  2. On the kiosk: Courier → ${demo.courierNumber} → OK → type the tracking number → OK.
     The door opens; the simulated courier shuts it 6 s later with the parcel inside.
  3. The SMS with the pickup code appears below, highlighted (in Albanian: "Kodi juaj për tërheqje").
  4. On the kiosk: Pick up a parcel → the code → OK. The door opens and is shut, empty, 6 s later.
  5. The shop sees it collected: ${m} ${url}/api/v1/track/<tracking_number>
  Operators: pnpm admin station show --station ${demo.stationCode} --table · pnpm admin --help
  Technicians: the service menu on the kiosk (PIN above) · pnpm lockctl --help
  Stop with Ctrl+C; the database and the cabinet's contents are kept in .data for next time.
`;
}
