/**
 * Merchant platform: bulk create over HTTP (one server instance, a child process) and
 * label rendering per format in process.
 *
 *   pnpm --filter @locker/server bench
 */
import { createOrganization, createStation } from '../src/admin/commands';
import { renderLabel } from '../src/merchant/label';
import { renderZplLabel } from '../src/merchant/labelZpl';
import { shipmentView } from '../src/shipments/view';
import { bearer, benchDatabase, benchServer } from './harness';

const CALLS = Number(process.env.BENCH_BULK_CALLS ?? 20);

function items(stationId: string, call: number, keyed: boolean) {
  return Array.from({ length: 100 }, (_, n) => ({
    ...(keyed ? { idempotency_key: `bulk-${call}-${n}-${Math.random()}` } : {}),
    destination_station_id: stationId,
    parcel_size: ['S', 'M', 'L', 'XL'][n % 4],
    recipient_name: 'Drita Gashi',
    recipient_phone: '+38344123456',
    recipient_language: ['sq', 'sr', 'tr', 'en'][n % 4],
    merchant_order_reference: `ORD-${call}-${n}`,
  }));
}

async function bulkRate(url: string, apiKey: string, stationId: string, keyed: boolean) {
  const started = performance.now();
  let created = 0;
  for (let call = 0; call < CALLS; call++) {
    const answer = await fetch(`${url}/api/v1/shipments/bulk`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ shipments: items(stationId, call, keyed) }),
    });
    created += ((await answer.json()) as { created: number }).created;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    run: `bulk create, ${CALLS} calls of 100${keyed ? ', each item keyed' : ''}`,
    'items/s': Math.round(created / seconds),
    'ms per call of 100': Math.round((seconds * 1000) / CALLS),
  };
}

async function main() {
  const db = await benchDatabase('locker_bench_platform');
  const { sql } = db;
  const shop = await createOrganization(sql, 'Bulk Shop');
  const station = await createStation(sql, { code: 'B1', name: 'Bench Station', doors: '1:S' });
  const server = await benchServer(db.url, { MERCHANT_REQUESTS_PER_MINUTE: '100000' });
  const rows: object[] = [];
  try {
    await bulkRate(server.url, shop.apiKey, station.id, false); // warm-up
    rows.push(await bulkRate(server.url, shop.apiKey, station.id, false));
    rows.push(await bulkRate(server.url, shop.apiKey, station.id, true));

    const [one] = await sql<{ id: string }[]>`select id from shipments limit 1`;
    const view = (await shipmentView(sql, one!.id))!;
    const facts = { shipment: view, senderName: 'Bulk Shop' };
    const formats: [string, () => unknown][] = [
      ['pdf (100x150)', () => renderLabel(facts, 'pdf')],
      ['pdf-a6', () => renderLabel(facts, 'pdf-a6')],
      ['zpl 203 dpi', () => renderZplLabel(facts, 203)],
      ['zpl 300 dpi', () => renderZplLabel(facts, 300)],
    ];
    for (const [name, render] of formats) {
      for (let i = 0; i < 20; i++) await render();
      const rounds = 300;
      const started = performance.now();
      for (let i = 0; i < rounds; i++) await render();
      const ms = (performance.now() - started) / rounds;
      rows.push({ run: `label render in process: ${name}`, 'ms per label': Number(ms.toFixed(3)) });
    }
  } finally {
    await server.stop();
    await db.stop();
  }
  console.log('\nMerchant platform, one server instance');
  console.table(rows);
}

await main();
process.exit(0);
