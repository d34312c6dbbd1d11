/**
 * The demo scene of `pnpm start`: seeded once on an empty database, its secrets kept in
 * `.data/demo.json` to print again, and the banner that walks a newcomer through a parcel.
 */
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { admin, cliActor, createOperator, REPO_ROOT, type Sql } from '@locker/server';

export const DEMO_FILE = path.join(REPO_ROOT, '.data/demo.json');

export interface Demo {
  apiKey: string;
  stationId: string;
  stationCode: string;
  terminalToken: string;
  courierNumber: string;
  /** The demo kiosk's technician PIN (its configuration holds only the hash). */
  technicianPin: string;
  /** The operator console's demo admin, set up and enrolled (demo only: kept in clear here). */
  operator?: DemoOperator;
}

export interface DemoOperator {
  email: string;
  password: string;
  /** The TOTP secret (base32): an authenticator app takes it, `pnpm demo-code` reads it. */
  totpSecret: string;
  recoveryCodes: string[];
}

/** The authenticator's code of a base32 secret, now. */
export function totpNow(secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
}

/** Six digits, new for each demo: never a PIN anybody could guess from the README. */
const newPin = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

function save(demo: Demo): Demo {
  mkdirSync(path.dirname(DEMO_FILE), { recursive: true });
  writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/**
 * The console's demo admin, made the way a newcomer would be: `operator create`'s set-up
 * link, a password chosen through /ops/v1/setup, the first sign-in enrolling TOTP. Once;
 * kept in .data/demo.json beside the rest of the demo.
 */
export async function demoOperator(sql: Sql, url: string, demo: Demo): Promise<Demo> {
  if (demo.operator) return demo;
  const email = 'admin@demo.example';
  const password = `demo-${randomInt(1e9, 1e10 - 1)}`;
  const issued = await createOperator(sql, cliActor(), { email, role: 'admin' }, url);
  const headers = { 'content-type': 'application/json', origin: url };
  const post = async (path: string, body: object, cookie?: string) => {
    const response = await fetch(`${url}/ops/v1${path}`, {
      method: 'POST',
      headers: { ...headers, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`demo operator: ${path} answered ${response.status}`);
    return response;
  };
  await post('/setup', { token: issued.setup_token, password });
  const login = await post('/session', { email, password });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const { otpauth_uri } = (await login.json()) as { otpauth_uri: string };
  const totpSecret = new URL(otpauth_uri).searchParams.get('secret')!;
  const done = await post('/session/second-factor', { code: totpNow(totpSecret) }, cookie);
  const { recovery_codes } = (await done.json()) as { recovery_codes: string[] };
  // Signed out again: the newcomer signs in in their own browser.
  await fetch(`${url}/ops/v1/session`, { method: 'DELETE', headers: { origin: url, cookie } });
  return save({
    ...demo,
    operator: { email, password, totpSecret, recoveryCodes: recovery_codes },
  });
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

function consoleLines(url: string, demo: Demo): string {
  const o = demo.operator;
  if (!o) return `  Operator console: ${url}/ops/`;
  return `
${BOLD}Operator console${RESET}   ${url}/ops/   (English, Shqip)
  Demo admin         ${o.email}   password ${o.password}
  Second factor      TOTP secret ${o.totpSecret} (add it to an authenticator app),
                     or \`pnpm demo-code\` prints the current code,
                     or a recovery code (each works once): ${o.recoveryCodes.slice(0, 2).join(', ')}
  (demo only: these are kept in clear in .data/demo.json)`;
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
${consoleLines(url, demo)}
  Stop with Ctrl+C; the database and the cabinet's contents are kept in .data for next time.
`;
}
