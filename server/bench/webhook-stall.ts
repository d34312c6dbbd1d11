/**
 * One merchant trying to stall everybody's webhooks (issue 22): ten endpoints that accept
 * the connection and never answer, and 150 redeliver calls in about a second. Meanwhile
 * another organization redelivers five events to a receiver that answers at once: how
 * long each takes to arrive (from its redeliver call to the receiver), and how many of the
 * attacker's calls were taken. The calls the caps refuse are queued anyway (straight into
 * the outbox), so the figure is the delivery's fairness under the whole backlog.
 *
 *   pnpm --filter @locker/server exec tsx bench/webhook-stall.ts
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOrganization, createStation, setOrganizationWebhook } from '../src/admin/commands';
import { registerShipment } from '../src/shipments/register';
import { queueDeliveries } from '../src/webhooks/events';
import { DEVELOPMENT_KEYRING } from '../src/webhooks/secretKeys';
import { bearer, benchDatabase, benchServer } from './harness';

const ATTACK_CALLS = 150;
const VICTIM_EVENTS = 5;
const WAIT_MS = 30_000;

async function listen(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main() {
  const db = await benchDatabase('locker_bench_webhook_stall');
  const { sql } = db;
  let hung = 0;
  // Reads the request and never answers.
  const tarpit = await listen((req) => {
    req.resume();
    hung++;
  });
  const arrived = new Map<string, number>();
  const receiver = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !arrived.has(id)) arrived.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  const station = await createStation(sql, { code: 'STALL', name: 'Stall', doors: '1:S' });
  // Both organizations' events, recorded as a deposit would record them.
  const eventOf = async (organizationId: string) => {
    const shipment = await registerShipment(sql, organizationId, {
      destinationStationId: station.id,
      parcelSize: 'S',
      recipientName: 'Drita Gashi',
      recipientPhone: '+38344123456',
      recipientLanguage: 'en',
    });
    const id = randomUUID();
    const body = JSON.stringify({ id, type: 'shipment.ready_for_pickup', data: { shipment } });
    await sql`insert into events (id, organization_id, shipment_id, type, body)
              values (${id}, ${organizationId}, ${shipment!.id}, 'shipment.ready_for_pickup', ${body})`;
    return id;
  };
  // The bench's server runs with the development key (WEBHOOK_SECRET_KEYS unset).
  const local = { allowPrivate: true, keyring: DEVELOPMENT_KEYRING };
  const attacker = await createOrganization(sql, 'Attacker');
  for (let i = 0; i < 10; i++)
    await setOrganizationWebhook(sql, attacker.id, `${tarpit.url}/hooks/${i}`, local);
  const attackEvent = await eventOf(attacker.id);
  const victim = await createOrganization(sql, 'Victim');
  await setOrganizationWebhook(sql, victim.id, `${receiver.url}/hooks`, local);
  const victimEvents: string[] = [];
  for (let i = 0; i < VICTIM_EVENTS; i++) victimEvents.push(await eventOf(victim.id));

  // Every hanging delivery would log a warning: only errors here.
  const server = await benchServer(db.url, { LOG_LEVEL: 'error' });
  try {
    const redeliver = (apiKey: string, eventId: string) =>
      fetch(`${server.url}/api/v1/events/${eventId}/redeliver`, {
        method: 'POST',
        headers: bearer(apiKey),
      }).then(async (r) => (await r.arrayBuffer(), r.status));
    // Before the attack: what a redelivery costs when nobody stalls (three, the first one
    // warming the server up).
    const quiet: (number | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const quietEvent = await eventOf(victim.id);
      const quietStart = performance.now();
      await redeliver(victim.apiKey, quietEvent);
      while (!arrived.has(quietEvent) && performance.now() - quietStart < WAIT_MS)
        await new Promise((r) => setTimeout(r, 2));
      quiet.push(
        arrived.has(quietEvent) ? Math.round(arrived.get(quietEvent)! - quietStart) : undefined,
      );
    }

    const attackStart = performance.now();
    const statuses = new Map<number, number>();
    for (let i = 0; i < ATTACK_CALLS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, () => redeliver(attacker.apiKey, attackEvent)),
      );
      for (const s of batch) statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    const attackMs = performance.now() - attackStart;
    // Whatever the caps refused is queued anyway, straight into the outbox, as if every
    // call had been taken: what is measured next is the delivery's fairness, not the caps.
    const taken = statuses.get(202) ?? 0;
    for (let i = taken; i < ATTACK_CALLS; i++)
      await queueDeliveries(sql, attacker.id, attackEvent, 'shipment.ready_for_pickup');
    const [backlog] = await sql<{ n: number }[]>`
      select count(*)::int as n from outbox
       where channel = 'webhook' and organization_id = ${attacker.id} and delivered_at is null`;

    const sent = new Map<string, number>();
    for (const id of victimEvents) {
      sent.set(id, performance.now());
      await redeliver(victim.apiKey, id);
      await new Promise((r) => setTimeout(r, 200));
    }
    const deadline = performance.now() + WAIT_MS;
    while (victimEvents.some((id) => !arrived.has(id)) && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    const delays = victimEvents.map((id) =>
      arrived.has(id) ? Math.round(arrived.get(id)! - sent.get(id)!) : undefined,
    );
    const within = delays.filter((d) => d !== undefined);
    console.table([
      {
        run: 'victim redeliveries, nobody stalling (3)',
        'delivered in ms': quiet.map((d) => d ?? `none in ${WAIT_MS / 1000} s`).join(', '),
      },
      {
        run: `victim redeliveries during the stall (${VICTIM_EVENTS})`,
        'delivered in ms':
          `${within.length} of ${VICTIM_EVENTS} within ${WAIT_MS / 1000} s` +
          (within.length ? `; ${delays.map((d) => d ?? '–').join(', ')}` : ''),
      },
    ]);
    console.log(
      `attacker: ${ATTACK_CALLS} redeliver calls in ${Math.round(attackMs)} ms, answered ` +
        [...statuses].map(([s, n]) => `${s}:${n}`).join(' ') +
        `; its deliveries queued (the refused ones too): ${backlog!.n}` +
        `; deliveries that reached its endpoints and hung: ${hung}`,
    );
  } finally {
    await tarpit.close();
    await receiver.close();
    await server.stop();
    await db.stop();
  }
}

await main();
