import { WebhookEventSchema } from '@locker/shared';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { setOrganizationWebhook } from '../admin/commands';
import { startServer } from '../server';
import { startTestServer, useTestServer, waitFor } from '../../test/harness';
import { useWebhookReceiver } from '../../test/receiver';
import { rotateEndpointSecret } from './endpoints';

const stack = useTestServer();
/** The receivers here listen on loopback, as WEBHOOK_ALLOW_PRIVATE allows; the server's keys. */
const local = () => ({ allowPrivate: true, keyring: stack.server.config.webhookSecretKeys });
const hook = useWebhookReceiver();

const skipBackoff = () =>
  stack.sql`update outbox set next_attempt_at = now() where channel = 'webhook' and delivered_at is null and failed_at is null`;

const outboxOf = (shipmentId: string) =>
  stack.sql<
    {
      attempts: number;
      last_error: string | null;
      delivered_at: Date | null;
      failed_at: Date | null;
      wait_s: number;
    }[]
  >`
    select attempts, last_error, delivered_at, failed_at,
           extract(epoch from next_attempt_at - now())::float8 as wait_s
      from outbox where channel = 'webhook' and shipment_id = ${shipmentId} order by id`;

describe('webhooks (Standard Webhooks)', () => {
  it('signs each event as Standard Webhooks and retries a failing endpoint with the same webhook-id', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { webhookSecret } = await setOrganizationWebhook(
      stack.sql,
      scene.org.id,
      hook.url,
      local(),
    );
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    hook.state.answer = { status: 500 };
    const before = hook.attempts();
    const { shipment } = await scene.deposit();
    // Each attempt is waited for to its end: a backoff skipped while an attempt is still in
    // flight would be overwritten by that attempt's own.
    await stack.server.deliverNow();
    expect(hook.attempts()).toBe(before + 1);
    // The first retry follows the schedule: about 5 s, not at once.
    const [waiting] = await outboxOf(shipment.id);
    expect(waiting?.last_error).toBe('endpoint answered 500');
    expect(waiting!.wait_s).toBeGreaterThan(3.5);
    expect(waiting!.wait_s).toBeLessThan(6);
    await skipBackoff();
    await stack.server.deliverNow();
    expect(hook.attempts()).toBe(before + 2);
    const [queued] = await outboxOf(shipment.id);
    expect(queued).toMatchObject({
      attempts: 2,
      last_error: 'endpoint answered 500',
      delivered_at: null,
    });

    hook.state.answer = { status: 204 };
    await skipBackoff();
    await stack.server.deliverNow();
    const [delivery] = await waitFor(() => {
      const mine = hook.eventsOf(shipment.id);
      return mine.length ? mine : undefined;
    });
    // Verified by a library nobody here wrote, from the raw body and the three headers.
    const verified = new Webhook(webhookSecret).verify(delivery!.raw, delivery!.headers);
    const event = WebhookEventSchema.parse(verified);
    expect(event.type).toBe('shipment.ready_for_pickup');
    expect(event.api_version).toBe('2026-11-22');
    expect(event.data.shipment).toMatchObject({
      id: shipment.id,
      status: 'ready_for_pickup',
      destination: { slot_no: 1 },
    });
    expect(delivery!.headers['webhook-id']).toBe(event.id);
    expect(delivery!.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(delivery!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const verifier = new Webhook(webhookSecret);
    expect(() =>
      verifier.verify(delivery!.raw.replace('ready', 'reddy'), delivery!.headers),
    ).toThrow(WebhookVerificationError);
    const { webhookSecret: other } = await setOrganizationWebhook(
      stack.sql,
      (await stack.org()).id,
      hook.url,
      local(),
    );
    expect(() => new Webhook(other).verify(delivery!.raw, delivery!.headers)).toThrow(
      WebhookVerificationError,
    );
    const done = await waitFor(async () => {
      const [row] = await outboxOf(shipment.id);
      return row?.delivered_at ? row : undefined;
    });
    expect(done.attempts).toBe(3);
  });

  it('signs with both secrets while a rotated secret rolls over, then with the new one only', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { webhookSecret: old, endpointId } = await setOrganizationWebhook(
      stack.sql,
      scene.org.id,
      hook.url,
      local(),
    );
    const keyring = stack.server.config.webhookSecretKeys;
    const rotated = await rotateEndpointSecret(stack.sql, scene.org.id, endpointId, 24, keyring);
    const first = (await scene.deposit()).shipment;
    const [during] = await waitFor(() => {
      const mine = hook.eventsOf(first.id);
      return mine.length ? mine : undefined;
    });
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    // A receiver still on the old secret and one already on the new both accept it.
    expect(new Webhook(old).verify(during!.raw, during!.headers)).toMatchObject({
      id: during!.headers['webhook-id'],
    });
    expect(new Webhook(rotated!.secret).verify(during!.raw, during!.headers)).toBeTruthy();

    const newest = (await rotateEndpointSecret(stack.sql, scene.org.id, endpointId, 0, keyring))!
      .secret;
    const second = (await scene.deposit()).shipment;
    const [after] = await waitFor(() => {
      const mine = hook.eventsOf(second.id);
      return mine.length ? mine : undefined;
    });
    expect(after!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(newest).verify(after!.raw, after!.headers)).toBeTruthy();
    expect(() => new Webhook(rotated!.secret).verify(after!.raw, after!.headers)).toThrow(
      WebhookVerificationError,
    );
  });

  it('waits what Retry-After says on 429 (seconds) and 503 (HTTP date), the schedule on 500', async () => {
    for (const [answer, low, high] of [
      [{ status: 429, headers: { 'Retry-After': '120' } }, 115, 121],
      [
        { status: 503, headers: { 'Retry-After': new Date(Date.now() + 600_000).toUTCString() } },
        560,
        601,
      ],
      [{ status: 500, headers: { 'Retry-After': '120' } }, 3.5, 6],
    ] as const) {
      const scene = await stack.scene('1:S');
      await setOrganizationWebhook(stack.sql, scene.org.id, hook.url, local());
      hook.state.answer = answer;
      const { shipment } = await scene.deposit();
      const [row] = await waitFor(async () => {
        const rows = await outboxOf(shipment.id);
        return rows[0]?.last_error ? rows : undefined;
      });
      expect(row!.last_error).toBe(`endpoint answered ${answer.status}`);
      expect(row!.wait_s, String(answer.status)).toBeGreaterThan(low);
      expect(row!.wait_s, String(answer.status)).toBeLessThan(high);
      hook.state.answer = { status: 204 };
    }
  });

  it('disables an endpoint that answers 410 Gone: nothing more is queued for it, an alert says so', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const { endpointId } = await setOrganizationWebhook(stack.sql, scene.org.id, hook.url, local());
    hook.state.answer = { status: 410 };
    try {
      const { shipment } = await scene.deposit();
      const [row] = await waitFor(async () => {
        const rows = await outboxOf(shipment.id);
        return rows[0]?.failed_at ? rows : undefined;
      });
      expect(row).toMatchObject({ attempts: 1, last_error: 'endpoint answered 410' });
      const [endpoint] = await stack.sql`
        select disabled_at, disabled_reason from webhook_endpoints where id = ${endpointId}`;
      expect(endpoint?.disabled_at).toBeInstanceOf(Date);
      expect(endpoint?.disabled_reason).toBe('endpoint answered 410');
      const alerts = await stack.sql`
        select message from alerts where kind = 'webhook_endpoint_disabled'
           and message like ${`%${endpointId}%`}`;
      expect(alerts).toHaveLength(1);
      const next = (await scene.deposit()).shipment;
      expect(await outboxOf(next.id)).toEqual([]);
      // The event itself is kept for the events API.
      expect(await stack.webhookTypesOf(next.id)).toEqual(['shipment.ready_for_pickup']);
    } finally {
      hook.state.answer = { status: 204 };
    }
  });

  it('sends an event for every status change: deposit, collection, return started, deposited and collected', async () => {
    const scene = await stack.scene('1:S,2:S');
    await setOrganizationWebhook(stack.sql, scene.org.id, hook.url, local());
    const { shipment } = await scene.returned();
    await scene.takeOut(shipment.tracking_number);
    // Deliveries due together leave together, so arrival order is not guaranteed (as
    // anywhere with Standard Webhooks); the events' own times order them.
    const types = await waitFor(() => {
      const mine = hook.eventsOf(shipment.id).map((d) => d.event);
      return mine.length === 5
        ? mine
            .sort((a, b) => a.created_at.localeCompare(b.created_at))
            .map((e) => `${e.type}:${e.data.shipment.status}`)
        : undefined;
    });
    expect(types).toEqual([
      'shipment.ready_for_pickup:ready_for_pickup',
      'shipment.collected:collected',
      'return.started:return_started',
      'return.deposited:returned_to_locker',
      'shipment.return_collected:return_collected',
    ]);
    const ids = hook.eventsOf(shipment.id).map((d) => d.headers['webhook-id']);
    expect(new Set(ids).size).toBe(5);
  });

  it('never holds up the terminal call while the endpoint hangs', async () => {
    const scene = await stack.scene('1:S');
    await setOrganizationWebhook(stack.sql, scene.org.id, hook.url, local());
    hook.state.answer = 'hang';
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
      hook.state.answer = { status: 204 };
    }
  });

  it('survives a restart: events queued while down are delivered by the next server, once each across two instances', async () => {
    const scene = await stack.scene('1:S,2:S,3:S,4:S');
    await setOrganizationWebhook(stack.sql, scene.org.id, hook.url, local());
    hook.state.answer = { status: 500 };
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await scene.deposit()).shipment.id);
    await stack.close();
    hook.state.answer = { status: 204 };
    const options = {
      port: 0,
      databaseUrl: stack.databaseUrl,
      logLevel: 'silent',
      smsTransport: 'file:/dev/null',
      development: true,
      webhookAllowPrivate: true,
    };
    const a = await startServer(options);
    const b = await startServer(options);
    try {
      await a.sql`update outbox set next_attempt_at = now() where channel = 'webhook' and delivered_at is null`;
      const delivered = await waitFor(() => {
        const mine = ids.flatMap((id) => hook.eventsOf(id));
        return mine.length >= 4 ? mine : undefined;
      }, 15_000);
      await waitFor(async () => {
        const [n] = await a.sql`
          select count(*)::int as n from outbox
           where channel = 'webhook' and shipment_id in ${a.sql(ids)} and delivered_at is null`;
        return n?.n === 0 ? true : undefined;
      });
      // Whatever either instance still had in hand is done once each has run once more: a
      // duplicate would have been sent by then.
      await Promise.all([a.deliverNow(), b.deliverNow()]);
      expect(ids.flatMap((id) => hook.eventsOf(id))).toHaveLength(4);
      expect(new Set(delivered.map((d) => d.event.data.shipment.id))).toEqual(new Set(ids));
    } finally {
      await a.close();
      await b.close();
      Object.assign(stack, await startTestServer());
    }
  });
});
