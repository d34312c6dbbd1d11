import {
  EventListSchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookEventSchema,
} from '@locker/shared';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Services } from '../services';
import { client, useTestServer, waitFor } from '../../test/harness';
import { useWebhookReceiver } from '../../test/receiver';
import { listEvents, REDELIVERY_LIMITS } from './events';

const stack = useTestServer();
const hook = useWebhookReceiver();

/** A terminal scene whose organization talks to the merchant API with its key. */
async function merchantScene() {
  const scene = await stack.scene('1:S,2:S,3:S,4:S');
  return { ...scene, api: client(stack.url, scene.org.apiKey) };
}

async function subscribe(api: ReturnType<typeof client>, url = hook.url) {
  const answer = await api.post('/api/v1/webhooks', { url, description: 'orders' });
  expect(answer.status).toBe(201);
  return WebhookEndpointCreatedSchema.parse(answer.body);
}

/** Every event after `after`, page by page, the way docs/merchant-api.md shows. */
async function catchUp(api: ReturnType<typeof client>, after?: string, limit = 2) {
  const events = [];
  let cursor = after;
  for (;;) {
    const answer = await api.get(
      `/api/v1/events?limit=${limit}${cursor ? `&after=${cursor}` : ''}`,
    );
    expect(answer.status).toBe(200);
    const page = EventListSchema.parse(answer.body);
    events.push(...page.data);
    cursor = page.next_after ?? undefined;
    if (!page.has_more) return { events, cursor };
  }
}

/**
 * `catchUp` until `count` events are listed, as a receiver polling would: an event is
 * listed once every write that began before it (in any database of the cluster, other
 * test files' included) has ended.
 */
function caughtUp(api: ReturnType<typeof client>, count: number, after?: string) {
  return waitFor(async () => {
    const caught = await catchUp(api, after);
    return caught.events.length >= count ? caught : undefined;
  });
}

/**
 * Due now, once every attempt in flight has ended: an attempt's lease made due while it is
 * still being sent would be claimed again and sent twice.
 */
const skipBackoff = async () => {
  await stack.server.deliverNow();
  await stack.sql`update outbox set next_attempt_at = now() where channel = 'webhook' and delivered_at is null and failed_at is null`;
};

describe('events API and webhook catch-up', () => {
  it('a receiver down for a while gets every event once: by the events API at once, by retries when back, each verified', async () => {
    const scene = await merchantScene();
    const { secret } = await subscribe(scene.api);
    hook.state.answer = { status: 503 };
    const parcels = [];
    for (let i = 0; i < 3; i++) parcels.push(await scene.deposit());
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code: parcels[0]!.code });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const ids = parcels.map((p) => p.shipment.id);

    // Pulled while the endpoint is still down: all four, oldest first, across pages.
    const { events, cursor } = await caughtUp(scene.api, 4);
    expect(events.map((e) => `${e.type}:${e.data.shipment.id}`)).toEqual([
      `shipment.ready_for_pickup:${ids[0]}`,
      `shipment.ready_for_pickup:${ids[1]}`,
      `shipment.ready_for_pickup:${ids[2]}`,
      `shipment.collected:${ids[0]}`,
    ]);
    expect(cursor).toBe(events[3]!.id);
    // Nothing new after the last one seen.
    expect((await scene.api.get(`/api/v1/events?after=${cursor}`)).body).toEqual({
      data: [],
      has_more: false,
      next_after: cursor,
    });

    // Back up: the retries bring each of the four, once, signed, with the same ids.
    hook.state.answer = { status: 204 };
    await skipBackoff();
    const delivered = await waitFor(() => {
      const mine = ids.flatMap((id) => hook.eventsOf(id));
      return mine.length >= 4 ? mine : undefined;
    });
    await waitFor(async () => {
      const [n] = await stack.sql`
        select count(*)::int as n from outbox
         where channel = 'webhook' and organization_id = ${scene.org.id} and delivered_at is null`;
      return n?.n === 0 ? true : undefined;
    });
    expect(ids.flatMap((id) => hook.eventsOf(id))).toHaveLength(4);
    const verifier = new Webhook(secret);
    const received = delivered.map((d) =>
      WebhookEventSchema.parse(verifier.verify(d.raw, d.headers)),
    );
    expect(new Set(received.map((e) => e.id))).toEqual(new Set(events.map((e) => e.id)));
    for (const event of received) {
      expect(event).toEqual(events.find((e) => e.id === event.id));
    }
  });

  it('never lists an event before an earlier-started write of the organization has committed, and never skips that one', async () => {
    const scene = await merchantScene();
    const { shipment: first } = await scene.deposit();
    const start = (await caughtUp(scene.api, 1)).cursor;
    // A write that began before the next deposit and is still running: its event is
    // ordered first, so the deposit's own event must wait for it.
    const slow = await stack.sql.reserve();
    const slowId = randomUUID();
    try {
      const [model] = await stack.sql<{ body: string }[]>`
        select body from events where shipment_id = ${first.id}`;
      const body = JSON.stringify({ ...JSON.parse(model!.body), id: slowId });
      await slow`begin`;
      await slow`
        insert into events (id, organization_id, shipment_id, type, body)
        values (${slowId}, ${scene.org.id}, ${first.id}, 'shipment.ready_for_pickup', ${body})`;
      const { shipment: second } = await scene.deposit();
      const whileOpen = await scene.api.get(`/api/v1/events?after=${start}`);
      expect(whileOpen.body).toEqual({ data: [], has_more: false, next_after: start });
      await slow`commit`;
      const { events } = await caughtUp(scene.api, 2, start);
      expect(events.map((e) => e.id)).toEqual([slowId, expect.any(String)]);
      expect(events[1]!.data.shipment.id).toBe(second.id);
    } finally {
      await slow`rollback`.catch(() => {});
      slow.release();
    }
  });

  it('answers what is settled with one read while another write stays open, without polling for it', async () => {
    const scene = await merchantScene();
    const { shipment: first } = await scene.deposit();
    await caughtUp(scene.api, 1);
    // Anybody's write, left open by the test: every event after it waits for its end.
    const open = await stack.sql.reserve();
    try {
      await open`begin`;
      await open`select pg_current_xact_id()`;
      const { shipment: second } = await scene.deposit();
      // The handler on the server's database, counting its reads of the events table.
      let reads = 0;
      const counting = new Proxy(stack.sql, {
        apply(target, self, args: unknown[]) {
          const strings = args[0];
          if (Array.isArray(strings) && strings.join('$').includes('from events')) reads++;
          return Reflect.apply(target, self, args) as unknown;
        },
      });
      const ctx = {
        query: {},
        state: { organization: { id: scene.org.id } },
        body: undefined as unknown,
      };
      await listEvents({ sql: counting } as unknown as Services)(ctx as never, () =>
        Promise.resolve(),
      );
      const page = EventListSchema.parse(ctx.body);
      expect(page.data.map((e) => e.data.shipment.id)).toEqual([first.id]);
      expect(page.has_more).toBe(false);
      // Once: the old handler re-read every 5 ms for up to a second.
      expect(reads).toBe(1);
      // The same over HTTP, while the write is still open.
      const whileOpen = await scene.api.get('/api/v1/events');
      expect(whileOpen.body).toEqual(ctx.body);
      await open`commit`;
      const { events } = await caughtUp(scene.api, 1, page.next_after!);
      expect(events.map((e) => `${e.type}:${e.data.shipment.id}`)).toEqual([
        `shipment.ready_for_pickup:${second.id}`,
      ]);
    } finally {
      await open`rollback`.catch(() => {});
      open.release();
    }
  });

  it('filters by type, bounds limit, refuses an unknown or another organization’s cursor', async () => {
    const mine = await merchantScene();
    const theirs = await merchantScene();
    await mine.collected();
    await theirs.deposit();
    await caughtUp(mine.api, 2);
    const collected = await mine.api.get('/api/v1/events?type=shipment.collected');
    expect(collected.body.data.map((e: { type: string }) => e.type)).toEqual([
      'shipment.collected',
    ]);
    const theirEvent = (await caughtUp(theirs.api, 1)).events[0]!;
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['after=nope', 'after'],
      [`after=${theirEvent.id}`, 'after'],
      ['type=shipment.lost', 'type'],
      ['cursor=x', 'cursor'],
    ]) {
      const answer = await mine.api.get(`/api/v1/events?${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body.errors[0].field, query).toBe(field);
    }
    const all = await mine.api.get('/api/v1/events');
    expect(
      all.body.data.every((e: any) => e.data.shipment.id !== theirEvent.data.shipment.id),
    ).toBe(true);
    expect((await client(stack.url).get('/api/v1/events')).status).toBe(401);
  });

  it('redelivers one event to each enabled endpoint with the same webhook-id and body', async () => {
    const scene = await merchantScene();
    const { secret } = await subscribe(scene.api);
    const { shipment } = await scene.deposit();
    const [first] = await waitFor(() => {
      const mine = hook.eventsOf(shipment.id);
      return mine.length === 1 ? mine : undefined;
    });
    const eventId = first!.headers['webhook-id']!;
    const answer = await scene.api.post(`/api/v1/events/${eventId}/redeliver`);
    expect(answer.status).toBe(202);
    expect(answer.body.event_id).toBe(eventId);
    expect(answer.body.endpoint_ids).toHaveLength(1);
    const [, again] = await waitFor(() => {
      const mine = hook.eventsOf(shipment.id);
      return mine.length === 2 ? mine : undefined;
    });
    expect(again!.headers['webhook-id']).toBe(eventId);
    expect(again!.raw).toBe(first!.raw);
    expect(new Webhook(secret).verify(again!.raw, again!.headers)).toBeTruthy();
    const other = await merchantScene();
    expect((await other.api.post(`/api/v1/events/${eventId}/redeliver`)).status).toBe(404);
    expect((await other.api.post('/api/v1/events/nope/redeliver')).status).toBe(404);
  });
});

it('caps redeliveries per event (5 a day) and per organization (20 a minute): 429 problem with Retry-After, nothing queued', async () => {
  const scene = await merchantScene();
  await subscribe(scene.api);
  const { shipment } = await scene.deposit();
  const [model] = await stack.sql<{ body: string }[]>`
      select body from events where shipment_id = ${shipment.id}`;
  const queued = async () => {
    const [n] = await stack.sql<{ n: number }[]>`
        select count(*)::int as n from outbox
         where channel = 'webhook' and organization_id = ${scene.org.id}`;
    return n!.n;
  };
  const eventId = JSON.parse(model!.body).id as string;
  for (let i = 0; i < REDELIVERY_LIMITS.perEvent; i++)
    expect((await scene.api.post(`/api/v1/events/${eventId}/redeliver`)).status).toBe(202);
  const before = await queued();
  const refused = await scene.api.post(`/api/v1/events/${eventId}/redeliver`);
  expect(refused.status).toBe(429);
  expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(refused.body).toMatchObject({
    type: 'https://parcel-locker.dev/problems/rate_limited',
    status: 429,
    code: 'rate_limited',
    detail: expect.stringMatching(
      /^At most 5 redeliveries of one event a day: try again in \d+ s\.$/,
    ),
  });
  const wait = Number(refused.headers.get('retry-after'));
  expect(wait).toBeGreaterThan(86_000);
  expect(wait).toBeLessThanOrEqual(86_400);
  expect(await queued()).toBe(before);

  // Other events of the organization: 20 in a minute, counting the 5 above.
  const others = [];
  for (let i = 0; i < REDELIVERY_LIMITS.perMinute; i++) {
    const id = randomUUID();
    await stack.sql`
        insert into events (id, organization_id, shipment_id, type, body)
        values (${id}, ${scene.org.id}, ${shipment.id}, 'shipment.ready_for_pickup',
                ${JSON.stringify({ ...JSON.parse(model!.body), id })})`;
    others.push(id);
  }
  const statuses = [];
  for (const id of others)
    statuses.push((await scene.api.post(`/api/v1/events/${id}/redeliver`)).status);
  const allowed = REDELIVERY_LIMITS.perMinute - REDELIVERY_LIMITS.perEvent;
  expect(statuses).toEqual([
    ...Array(allowed).fill(202),
    ...Array(REDELIVERY_LIMITS.perMinute - allowed).fill(429),
  ]);
  const minute = await scene.api.post(`/api/v1/events/${others.at(-1)}/redeliver`);
  expect(minute.body.detail).toMatch(/^At most 20 redeliveries a minute: try again in \d+ s\.$/);
  expect(Number(minute.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  // Another organization is not held by this one's caps.
  const other = await merchantScene();
  const { shipment: theirs } = await other.deposit();
  const [their] = await stack.sql<{ id: string }[]>`
      select id from events where shipment_id = ${theirs.id}`;
  expect((await other.api.post(`/api/v1/events/${their!.id}/redeliver`)).status).toBe(202);
});

describe('webhook endpoints API', () => {
  it('refuses U+0000 and unpaired surrogates in url and description as a field error, storing nothing', async () => {
    const scene = await merchantScene();
    for (const [field, body] of [
      ['url', { url: 'https://shop.example/hooks\u0000x' }],
      ['url', { url: 'https://shop.example/h\ud800ooks' }],
      ['description', { url: 'https://shop.example/hooks', description: 'orders\u0000' }],
      ['description', { url: 'https://shop.example/hooks', description: 'a\udfffb' }],
    ] as const) {
      // Sent as JSON text with the escapes, as a client would.
      const answer = await scene.api.post('/api/v1/webhooks', JSON.stringify(body));
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body.errors).toContainEqual(
        expect.objectContaining({ field, code: 'invalid_characters' }),
      );
    }
    expect((await scene.api.get('/api/v1/webhooks')).body.data).toEqual([]);
  });

  it('creates, lists without secrets, rotates, re-enables after 410 and deletes, only the organization’s own', async () => {
    const scene = await merchantScene();
    const created = await subscribe(scene.api);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ url: hook.url, status: 'enabled', description: 'orders' });
    const listed = WebhookEndpointListSchema.parse((await scene.api.get('/api/v1/webhooks')).body);
    expect(listed.data).toEqual([
      expect.objectContaining({ id: created.id, url: hook.url, status: 'enabled' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    const bad = await scene.api.post('/api/v1/webhooks', { url: 'ftp://shop.example/x', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => `${e.field}:${e.code}`).sort()).toEqual([
      'extra:unrecognized_key',
      'url:invalid_url',
    ]);

    const rotated = await scene.api.post(`/api/v1/webhooks/${created.id}/rotate-secret`, {
      rollover_hours: 0,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previous_secret_valid_until).toBeNull();
    expect(rotated.body.secret).not.toBe(created.secret);
    const { shipment } = await scene.deposit();
    const [delivery] = await waitFor(() => {
      const mine = hook.eventsOf(shipment.id);
      return mine.length ? mine : undefined;
    });
    expect(new Webhook(rotated.body.secret).verify(delivery!.raw, delivery!.headers)).toBeTruthy();
    const defaults = await scene.api.post(`/api/v1/webhooks/${created.id}/rotate-secret`);
    expect(Date.parse(defaults.body.previous_secret_valid_until) - Date.now()).toBeGreaterThan(
      23 * 3600_000,
    );

    hook.state.answer = { status: 410 };
    try {
      const gone = (await scene.deposit()).shipment;
      await waitFor(async () => {
        const [row] =
          await stack.sql`select failed_at from outbox where shipment_id = ${gone.id} and channel = 'webhook'`;
        return row?.failed_at ? true : undefined;
      });
    } finally {
      hook.state.answer = { status: 204 };
    }
    expect((await scene.api.get('/api/v1/webhooks')).body.data[0]).toMatchObject({
      status: 'disabled',
      disabled_reason: 'endpoint answered 410',
    });
    const enabled = await scene.api.post(`/api/v1/webhooks/${created.id}/enable`);
    expect(enabled.body.status).toBe('enabled');
    const resumed = (await scene.deposit()).shipment;
    await waitFor(() => (hook.eventsOf(resumed.id).length === 1 ? true : undefined));

    const other = await merchantScene();
    for (const [method, path] of [
      ['POST', `/api/v1/webhooks/${created.id}/rotate-secret`],
      ['POST', `/api/v1/webhooks/${created.id}/enable`],
      ['DELETE', `/api/v1/webhooks/${created.id}`],
    ] as const) {
      expect((await other.api.raw(method, path)).status, path).toBe(404);
    }
    expect((await scene.api.raw('DELETE', `/api/v1/webhooks/${created.id}`)).status).toBe(204);
    expect((await scene.api.raw('DELETE', `/api/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await scene.api.get('/api/v1/webhooks')).body.data).toEqual([]);
    const after = (await scene.deposit()).shipment;
    const [n] =
      await stack.sql`select count(*)::int as n from outbox where shipment_id = ${after.id} and channel = 'webhook'`;
    expect(n?.n).toBe(0);
    expect(await stack.webhookTypesOf(after.id)).toEqual(['shipment.ready_for_pickup']);
  });
});
