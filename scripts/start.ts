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

function banner(url: string, demo: Demo | undefined): string {
  if (!demo)
    return `Server: ${url} (database not empty and no .data/demo.json: no demo credentials to show)`;
  const t = `curl -s -H "Authorization: Bearer ${demo.terminalToken}"`;
  const m = `curl -s -H "Authorization: Bearer ${demo.apiKey}"`;
  return `
Parcel locker stack is up.

  Server               ${url}   (OpenAPI: ${url}/openapi.json)
  Demo station         ${demo.stationCode} (id ${demo.stationId})
  Terminal token       ${demo.terminalToken}
  Courier number       ${demo.courierNumber}
  Merchant API key     ${demo.apiKey}

Walk a parcel through (each SMS, with its pickup code, is printed below as it is sent):
  1. a shop registers a shipment (note its tracking_number and id):
       ${m} -X POST ${url}/api/v1/shipments -H 'Content-Type: application/json' \\
         -d '{"destination_station_id":"${demo.stationId}","parcel_size":"S","recipient_name":"Drita Gashi","recipient_phone":"+38344123456","recipient_language":"sq"}'
  2. its label:          ${m} ${url}/api/v1/shipments/<id>/label -o label.pdf
  3. the door grid:      ${t} ${url}/terminal/v1/cabinet
  4. courier deposits:   ${t} -X POST ${url}/terminal/v1/deposit -d '{"courierNo":"${demo.courierNumber}","trackingNumber":"<tracking_number>"}'
  5. customer picks up:  ${t} -X POST ${url}/terminal/v1/pickup -d '{"code":"<code from the SMS>"}'
  6. door closed:        ${t} -X POST ${url}/terminal/v1/door/confirm -d '{"shipmentId":"<id>","collected":true}'
  7. the shop tracks it: ${m} ${url}/api/v1/track/<tracking_number>
`;
}

const server = await startServer();
const demo = await demoScene(server.sql);
process.stdout.write(banner(`http://localhost:${server.port}`, demo) + '\n');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
