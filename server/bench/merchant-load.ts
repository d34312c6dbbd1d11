/**
 * Merchant interface on one server instance (a child process), generator in this process.
 *
 *   pnpm --filter @locker/server bench
 *
 * Creation rate and latency with many shops creating at once (each within its rate
 * limit), label rendering in process and over HTTP.
 */
import { createOrganization, createStation } from '../src/admin/commands';
import { renderLabel, renderWithPdfkit } from '../src/merchant/label';
import { shipmentView } from '../src/shipments/view';
import {
  bearer,
  benchDatabase,
  benchServer,
  load,
  paced,
  pick,
  SECONDS,
  type Figures,
} from './harness';

const SHOPS = 60;
const STATIONS = 50;

async function main() {
  const db = await benchDatabase('locker_bench_merchant');
  const { sql } = db;
  const shops: Awaited<ReturnType<typeof createOrganization>>[] = [];
  for (let i = 0; i < SHOPS; i++) shops.push(await createOrganization(sql, `Shop ${i}`));
  const stations: Awaited<ReturnType<typeof createStation>>[] = [];
  for (let i = 0; i < STATIONS; i++) {
    const doors = Array.from(
      { length: 48 },
      (_, d) => `${d + 1}:${['S', 'M', 'L', 'XL'][d % 4]}`,
    ).join(',');
    stations.push(await createStation(sql, { code: `M${i}`, name: `Station ${i}`, doors }));
  }
  const body = () =>
    JSON.stringify({
      destination_station_id: pick(stations).id,
      parcel_size: pick(['S', 'M', 'L', 'XL']),
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: pick(['sq', 'sr', 'tr', 'en']),
      merchant_order_reference: `ORD-${Math.floor(Math.random() * 1e9)}`,
    });
  const create = {
    method: 'POST' as const,
    path: '/api/v1/shipments',
    setupRequest: (req: object) => ({ ...req, headers: bearer(pick(shops).apiKey), body: body() }),
  };
  const figures: Figures[] = [];
  const server = await benchServer(db.url, { MERCHANT_REQUESTS_PER_MINUTE: '100000' });
  try {
    await load('warm-up', server.url, { duration: 3, connections: 8 }, [create]);
    // Label rendering alone, in this process, before the load runs (and its webhooks'
    // deliveries): the figure the 20 ms aim is about. The template (labelTemplate.ts)
    // draws this label; pdfkit alone beside it, for comparison.
    const [first] = await sql<{ id: string }[]>`select id from shipments limit 1`;
    const view = (await shipmentView(sql, first!.id))!;
    const facts = { shipment: view, senderName: 'Shop' };
    const rounds = 300;
    for (const [name, render] of [
      ['label render in process (template)', renderLabel],
      ['label render in process (pdfkit alone)', renderWithPdfkit],
    ] as const) {
      for (let i = 0; i < 20; i++) await render(facts);
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (let i = 0; i < rounds; i++) await render(facts);
      const perLabel = (performance.now() - started) / rounds;
      const { user, system } = process.cpuUsage(cpu);
      console.log(
        `${name}: ${perLabel.toFixed(2)} ms average over ${rounds} labels, ` +
          `${((user + system) / 1000 / rounds).toFixed(2)} ms of CPU each`,
      );
    }
    figures.push(
      await paced('POST /shipments, paced 500/s', server.url, 500, () => ({
        method: 'POST',
        path: '/api/v1/shipments',
        headers: bearer(pick(shops).apiKey),
        body: body(),
      })),
    );
    figures.push(await load('POST /shipments (max)', server.url, { connections: 32 }, [create]));
    figures.push(
      await load('POST /shipments with Idempotency-Key (max)', server.url, { connections: 32 }, [
        {
          ...create,
          setupRequest: (req: object) => ({
            ...create.setupRequest(req),
            headers: { ...bearer(pick(shops).apiKey), 'idempotency-key': `k-${Math.random()}` },
          }),
        },
      ]),
    );
    const owned = await sql<{ id: string; name: string }[]>`
      select sh.id, o.name from shipments sh join organizations o on o.id = sh.organization_id limit 2000`;
    const keyOf = new Map(shops.map((s) => [s.name, s.apiKey]));
    const labels = owned.map((o) => ({ id: o.id, key: keyOf.get(o.name)! }));
    figures.push(
      await load('GET /shipments/{id}/label (max)', server.url, { connections: 16 }, [
        {
          method: 'GET',
          setupRequest: (req) => {
            const l = pick(labels);
            return { ...req, path: `/api/v1/shipments/${l.id}/label`, headers: bearer(l.key) };
          },
        },
      ]),
    );
  } finally {
    await server.stop();
    await db.stop();
  }
  console.log(`\nMerchant interface, one server instance, ${SHOPS} shops, ${SECONDS} s per run`);
  console.table(figures);
}

await main();
process.exit(0);
