import { ShipmentListSchema, ShipmentSchema, TrackingSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { rotateOrganizationKey } from '../admin/commands';
import { isValidTrackingNumber } from '../domain/trackingNumber';
import { client, startTestServer, useTestServer } from '../../test/harness';

const stack = useTestServer();

async function merchant() {
  const org = await stack.org();
  const station = await stack.station('1:S,2:M,3:L', {
    cabinetSn: `KR-${Math.random().toString(36).slice(2, 8)}`,
  });
  const api = client(stack.url, org.apiKey);
  const body = (extra: Record<string, unknown> = {}) => ({
    destination_station_id: station.id,
    parcel_size: 'M',
    recipient_name: 'Đorđe Čolić',
    recipient_phone: '+381641234567',
    recipient_language: 'sr',
    merchant_order_reference: 'ORDER-1',
    ...extra,
  });
  return { org, station, api, body };
}

describe('POST /api/v1/shipments', () => {
  it('registers a booked shipment: 201, Location, tracking number with check digit, no door yet', async () => {
    const { api, body, station } = await merchant();
    const answer = await api.post('/api/v1/shipments', body());
    expect(answer.status).toBe(201);
    const shipment = ShipmentSchema.parse(answer.body);
    expect(answer.headers.get('location')).toBe(`/api/v1/shipments/${shipment.id}`);
    expect(shipment).toMatchObject({
      status: 'booked',
      destination: { cabinet_sn: station.cabinetSn, slot_no: null },
      parcel_size: 'M',
      recipient_name: 'Đorđe Čolić',
      recipient_language: 'sr',
      merchant_order_reference: 'ORDER-1',
    });
    expect(isValidTrackingNumber(shipment.tracking_number)).toBe(true);
    expect(answer.text).not.toMatch(/pickup|code_hash/i);
  });

  it('answers 422 listing every failing field with its own code', async () => {
    const { api, body } = await merchant();
    const answer = await api.post('/api/v1/shipments', {
      parcel_size: 'XXL',
      recipient_name: '',
      recipient_phone: '044 123 456',
      recipient_language: 'de',
      merchant_order_reference: 'x'.repeat(101),
      gift_wrap: true,
    });
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body.code).toBe('validation_failed');
    const byField = Object.fromEntries(answer.body.errors.map((e: any) => [e.field, e.code]));
    expect(byField).toEqual({
      destination_station_id: 'required',
      parcel_size: 'invalid_value',
      recipient_name: 'too_small',
      recipient_phone: 'invalid_phone',
      recipient_language: 'invalid_value',
      merchant_order_reference: 'too_big',
      gift_wrap: 'unrecognized_key',
    });
    for (const e of answer.body.errors) expect(e.message.length).toBeGreaterThan(5);
    const [n] =
      await stack.sql`select count(*)::int as n from shipments where recipient_phone = '044 123 456'`;
    expect(n?.n).toBe(0);
    expect(
      (await api.post('/api/v1/shipments', body({ recipient_phone: '+38164123' }))).body.errors[0]
        .code,
    ).toBe('invalid_phone');
  });

  it('answers 422 not_found for a destination station that does not exist, and 400 for a body that is not JSON', async () => {
    const { api, body } = await merchant();
    const missing = await api.post(
      '/api/v1/shipments',
      body({ destination_station_id: '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d' }),
    );
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ field: 'destination_station_id', code: 'not_found' }),
    ]);
    const broken = await api.post('/api/v1/shipments', '{"parcel_size":');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('invalid_json');
  });

  it('refuses a missing or unknown key and a rotated one at once, with the one 401 body', async () => {
    const { api, body, org } = await merchant();
    expect((await api.post('/api/v1/shipments', body())).status).toBe(201);
    const same = { 'X-Correlation-ID': 'merchant-401-check' };
    const none = await client(stack.url).get('/api/v1/shipments', same);
    const unknown = await client(stack.url, 'sk_unknown').get('/api/v1/shipments', same);
    await rotateOrganizationKey(stack.sql, org.id);
    const rotated = await api.get('/api/v1/shipments', same);
    expect(none.status).toBe(401);
    expect(unknown.text).toBe(none.text);
    expect(rotated.text).toBe(none.text);
  });

  it('replays the first answer for the same Idempotency-Key and body, and 409s another body', async () => {
    const { api, body } = await merchant();
    const headers = { 'Idempotency-Key': 'order-1-attempt' };
    const first = await api.post('/api/v1/shipments', body(), headers);
    const again = await api.post(
      '/api/v1/shipments',
      JSON.stringify({ ...body() }, Object.keys(body()).reverse()),
      headers,
    );
    expect(again.status).toBe(201);
    // Byte for byte, as the docs promise: not merely the same JSON.
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const other = await api.post('/api/v1/shipments', body({ parcel_size: 'L' }), headers);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_conflict');
  });

  it('creates one shipment for many concurrent requests with one Idempotency-Key', async () => {
    const { api, body, org } = await merchant();
    const headers = { 'Idempotency-Key': 'checkout-7781' };
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api.post('/api/v1/shipments', body(), headers)),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [n] =
      await stack.sql`select count(*)::int as n from shipments where organization_id = ${org.id}`;
    expect(n?.n).toBe(1);
    // Keys are per organization: another shop's same key is its own.
    const other = await merchant();
    const theirs = await other.api.post('/api/v1/shipments', other.body(), headers);
    expect(theirs.body.id).not.toBe(answers[0]!.body.id);
  });
});

describe('reading shipments', () => {
  it('lists newest first across cursor pages with no gaps or repeats, filters by status', async () => {
    const { api, body } = await merchant();
    const created = [];
    for (let i = 0; i < 7; i++)
      created.push(
        (await api.post('/api/v1/shipments', body({ merchant_order_reference: `R${i}` }))).body.id,
      );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await api.get(`/api/v1/shipments?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      const list = ShipmentListSchema.parse(page.body);
      expect(list.data.length).toBeLessThanOrEqual(3);
      seen.push(...list.data.map((s) => s.id));
      cursor = list.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
    const booked = ShipmentListSchema.parse(
      (await api.get('/api/v1/shipments?status=booked&limit=100')).body,
    );
    expect(booked.data).toHaveLength(7);
    expect((await api.get('/api/v1/shipments?status=collected')).body.data).toEqual([]);
    expect((await api.get('/api/v1/shipments')).body.data).toHaveLength(7);
  });

  it('answers 422 for a bad limit, status, cursor or unknown parameter', async () => {
    const { api } = await merchant();
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['status=lost', 'status'],
      ['cursor=zzz', 'cursor'],
      ['page=2', 'page'],
    ]) {
      const answer = await api.get(`/api/v1/shipments?${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body.errors[0].field).toBe(field);
    }
  });

  it('keeps every endpoint to the key’s organization: another’s shipment is 404, never 403', async () => {
    const mine = await merchant();
    const theirs = await merchant();
    const shipment = (await theirs.api.post('/api/v1/shipments', theirs.body())).body;
    const nonexistent = await mine.api.get(
      '/api/v1/shipments/0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d',
    );
    for (const path of [
      `/api/v1/shipments/${shipment.id}`,
      `/api/v1/shipments/${shipment.id}/label`,
      `/api/v1/track/${shipment.tracking_number}`,
    ]) {
      const answer = await mine.api.get(path, {});
      expect(answer.status, path).toBe(404);
      expect(answer.body.code).toBe('not_found');
      expect(answer.body.title).toBe(nonexistent.body.title);
    }
    expect((await mine.api.get('/api/v1/shipments')).body.data).toEqual([]);
    expect((await mine.api.get('/api/v1/shipments/not-a-uuid')).status).toBe(404);
    expect((await theirs.api.get(`/api/v1/shipments/${shipment.id}`)).body).toEqual(shipment);
  });

  it('tracks a parcel through the lockers, oldest event first, with the kiosk-reported times', async () => {
    const scene = await stack.scene('1:S,2:M');
    const api = client(stack.url, scene.org.apiKey);
    const created = (
      await api.post('/api/v1/shipments', {
        destination_station_id: scene.station.id,
        parcel_size: 'S',
        recipient_name: 'Elif Yılmaz',
        recipient_phone: '+905321234567',
        recipient_language: 'tr',
      })
    ).body;
    // Booked three hours ago; the kiosk was offline and reports both steps late.
    const bookedAt = new Date(Date.now() - 3 * 3_600_000).toISOString();
    await stack.sql`update shipments set created_at = ${bookedAt}, status_at = ${bookedAt} where id = ${created.id}`;
    await stack.sql`update tracking_events set occurred_at = ${bookedAt} where shipment_id = ${created.id}`;
    const depositedAt = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const collectedAt = new Date(Date.now() - 3_600_000).toISOString();
    await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: created.tracking_number,
      occurred_at: depositedAt,
    });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: created.id,
      collected: true,
      occurred_at: collectedAt,
    });
    const tracking = TrackingSchema.parse(
      (await api.get(`/api/v1/track/${created.tracking_number}`)).body,
    );
    expect(tracking.status).toBe('collected');
    expect(tracking.events).toEqual([
      { status: 'booked', occurred_at: bookedAt },
      { status: 'ready_for_pickup', occurred_at: depositedAt, station_code: scene.station.code },
      { status: 'collected', occurred_at: collectedAt, station_code: scene.station.code },
    ]);
    const shipment = (await api.get(`/api/v1/shipments/${created.id}`)).body;
    expect(shipment.destination.slot_no).toBe(1);
    expect(shipment.status).toBe('collected');
  });
});

describe('merchant rate limit', () => {
  it('answers 429 with Retry-After past the per-organization limit, other organizations unaffected', async () => {
    const limited = await startTestServer({ merchantRequestsPerMinute: 5 });
    try {
      const a = await limited.org();
      const b = await limited.org();
      const statuses = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await client(limited.url, a.apiKey).get('/api/v1/shipments')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      const refused = await client(limited.url, a.apiKey).get('/api/v1/shipments');
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await client(limited.url, b.apiKey).get('/api/v1/shipments')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
