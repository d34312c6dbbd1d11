import { WebhookEventSchema } from '@locker/shared';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrganizationWebhook } from '../admin/commands';
import { startServer } from '../server';
import { startTestServer, waitFor, type TestStack } from '../../test/harness';
import { verify } from './signature';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  raw: string;
}

/** A merchant's endpoint on loopback; `failing` answers 500 while true. */
async function receiver() {
  const deliveries: Delivery[] = [];
  let seen = 0;
  const state = { failing: false, hang: false };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      seen++;
      if (state.hang) return;
      if (state.failing) return void res.writeHead(500).end();
      deliveries.push({ headers: req.headers, raw });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    deliveries,
    state,
    attempts: () => seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

let stack: TestStack;
let hook: Awaited<ReturnType<typeof receiver>>;
beforeAll(async () => {
  stack = await startTestServer();
  hook = await receiver();
});
afterAll(async () => {
  await stack.close();
  await hook.close();
});

const skipBackoff = () =>
  stack.sql`update outbox set next_attempt_at = now() where channel = 'webhook' and delivered_at is null`;

describe('webhooks', () => {
  it('signs each event over timestamp and raw body and retries a failing endpoint with the same event id', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { webhookSecret } = await setOrganizationWebhook(stack.sql, scene.org.id, hook.url);
    hook.state.failing = true;
    const before = hook.attempts();
    const { shipment } = await scene.deposit();
    await waitFor(() => (hook.attempts() >= before + 1 ? true : undefined));
    await skipBackoff();
    await waitFor(() => (hook.attempts() >= before + 2 ? true : undefined));
    const [queued] =
      await stack.sql`select attempts, last_error, delivered_at from outbox where channel = 'webhook' and shipment_id = ${shipment.id}`;
    expect(queued).toMatchObject({
      attempts: 2,
      last_error: 'endpoint answered 500',
      delivered_at: null,
    });

    hook.state.failing = false;
    await skipBackoff();
    const delivery = await waitFor(() =>
      hook.deliveries.find((d) => JSON.parse(d.raw).data.shipment.id === shipment.id),
    );
    const event = WebhookEventSchema.parse(JSON.parse(delivery.raw));
    expect(event.type).toBe('shipment.ready_for_pickup');
    expect(event.data.shipment).toMatchObject({
      id: shipment.id,
      status: 'ready_for_pickup',
      destination: { slot_no: 1 },
    });
    expect(delivery.headers['x-locker-event-id']).toBe(event.id);
    expect(delivery.headers['x-locker-event-type']).toBe('shipment.ready_for_pickup');

    // Verified the way docs/webhooks.md tells a merchant to, independently of our helper.
    const signature = String(delivery.headers['x-locker-signature']);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
    expect(createHmac('sha256', webhookSecret).update(`${t}.${delivery.raw}`).digest('hex')).toBe(
      v1,
    );
    expect(verify(webhookSecret, signature, delivery.raw)).toBe(true);
    expect(verify(webhookSecret, signature, delivery.raw.replace('ready', 'reddy'))).toBe(false);
    expect(verify('whsec_other', signature, delivery.raw)).toBe(false);
    expect(verify(webhookSecret, signature, delivery.raw, 300, Date.now() + 10 * 60_000)).toBe(
      false,
    );
    // The receiver answered; the server records the delivery right after.
    const done = await waitFor(async () => {
      const [row] =
        await stack.sql`select attempts, delivered_at from outbox where channel = 'webhook' and shipment_id = ${shipment.id}`;
      return row?.delivered_at ? row : undefined;
    });
    expect(done.attempts).toBe(3);
    expect(done.delivered_at).toBeInstanceOf(Date);
  });

  it('notifies collection and a deposited return (the spec’s “merchant notified”)', async () => {
    const scene = await stack.scene('1:S,2:S');
    await setOrganizationWebhook(stack.sql, scene.org.id, hook.url);
    const shipment = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: shipment.tracking_number,
    });
    await scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: true,
    });
    const types = await waitFor(() => {
      const mine = hook.deliveries
        .map((d) => JSON.parse(d.raw))
        .filter((e) => e.data.shipment.id === shipment.id);
      return mine.length === 3 ? mine.map((e) => `${e.type}:${e.data.shipment.status}`) : undefined;
    });
    expect(types).toEqual([
      'shipment.ready_for_pickup:ready_for_pickup',
      'shipment.collected:collected',
      'return.deposited:returned_to_locker',
    ]);
  });

  it('never holds up the terminal call while the endpoint hangs', async () => {
    const scene = await stack.scene('1:S');
    await setOrganizationWebhook(stack.sql, scene.org.id, hook.url);
    hook.state.hang = true;
    try {
      const parcel = await stack.shipment(scene.org.id, scene.station.id);
      const started = Date.now();
      const answer = await scene.terminal.api.post('/terminal/v1/deposit', {
        courierNo: scene.courier.number,
        trackingNumber: parcel.tracking_number,
      });
      expect(answer.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      hook.state.hang = false;
    }
  });

  it('survives a restart: events queued while down are delivered by the next server, once each across two instances', async () => {
    const scene = await stack.scene('1:S,2:S,3:S,4:S');
    await setOrganizationWebhook(stack.sql, scene.org.id, hook.url);
    hook.state.failing = true;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await scene.deposit()).shipment.id);
    await stack.close();
    hook.state.failing = false;
    const a = await startServer({
      port: 0,
      databaseUrl: stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
    });
    const b = await startServer({
      port: 0,
      databaseUrl: stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
    });
    try {
      await a.sql`update outbox set next_attempt_at = now() where channel = 'webhook' and delivered_at is null`;
      const delivered = await waitFor(() => {
        const mine = hook.deliveries
          .map((d) => JSON.parse(d.raw))
          .filter((e) => ids.includes(e.data.shipment.id));
        return mine.length >= 4 ? mine : undefined;
      }, 15_000);
      // Whatever either instance still had in hand is done once each has run once more: a
      // duplicate would have been sent by then.
      await Promise.all([a.deliverNow(), b.deliverNow()]);
      const again = hook.deliveries
        .map((d) => JSON.parse(d.raw))
        .filter((e) => ids.includes(e.data.shipment.id));
      expect(again).toHaveLength(4);
      expect(new Set(delivered.map((e) => e.data.shipment.id))).toEqual(new Set(ids));
    } finally {
      await a.close();
      await b.close();
      stack = await startTestServer();
    }
  });
});
