import { BulkCreateResultSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

async function merchant() {
  const org = await stack.org();
  const station = await stack.station('1:S,2:M');
  const api = client(stack.url, org.apiKey);
  const item = (n: number, extra: Record<string, unknown> = {}) => ({
    destination_station_id: station.id,
    parcel_size: 'S',
    recipient_name: `Recipient ${n}`,
    recipient_phone: '+38344123456',
    recipient_language: 'sq',
    merchant_order_reference: `BULK-${n}`,
    ...extra,
  });
  const count = async () =>
    (
      await stack.sql<{ n: number }[]>`
        select count(*)::int as n from shipments where organization_id = ${org.id}`
    )[0]!.n;
  return { org, station, api, item, count };
}

describe('POST /api/v1/shipments/bulk', () => {
  it('creates the valid items and answers why each other one was not, in request order', async () => {
    const { api, item, count } = await merchant();
    const answer = await api.post('/api/v1/shipments/bulk', {
      shipments: [
        item(0, { idempotency_key: 'order-0' }),
        item(1, { recipient_phone: '044 123 456', gift_wrap: true }),
        item(2),
        item(3, { destination_station_id: '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d' }),
        'not an object',
        item(5, { parcel_size: 'XL' }),
      ],
    });
    expect(answer.status).toBe(200);
    const body = BulkCreateResultSchema.parse(answer.body);
    expect(body.results.map((r) => `${r.index}:${r.result}`)).toEqual([
      '0:created',
      '1:invalid',
      '2:created',
      '3:invalid',
      '4:invalid',
      '5:created',
    ]);
    expect(body).toMatchObject({ created: 3, failed: 3 });
    expect(body.results[0]).toMatchObject({
      idempotency_key: 'order-0',
      shipment: { status: 'booked', merchant_order_reference: 'BULK-0' },
    });
    expect(body.results[5]!.shipment!.parcel_size).toBe('XL');
    const byField = (i: number) =>
      Object.fromEntries(body.results[i]!.errors!.map((e) => [e.field, e.code]));
    expect(byField(1)).toEqual({ recipient_phone: 'invalid_phone', gift_wrap: 'unrecognized_key' });
    expect(byField(3)).toEqual({ destination_station_id: 'not_found' });
    expect(body.results[4]!.errors![0]!.code).toBe('invalid_type');
    expect(await count()).toBe(3);
    const ids = body.results.flatMap((r) => (r.shipment ? [r.shipment.id] : []));
    expect(new Set(ids).size).toBe(3);
  });

  it('is idempotent per item key: a retried call creates only what was missing, a changed item conflicts', async () => {
    const { api, item, count } = await merchant();
    const items = Array.from({ length: 30 }, (_, n) => item(n, { idempotency_key: `k-${n}` }));
    const first = BulkCreateResultSchema.parse(
      (await api.post('/api/v1/shipments/bulk', { shipments: items.slice(0, 20) })).body,
    );
    expect(first.created).toBe(20);
    // The retry carries all 30 (the client never saw the first answer, then added more).
    const retry = BulkCreateResultSchema.parse(
      (await api.post('/api/v1/shipments/bulk', { shipments: items })).body,
    );
    expect(retry.results.filter((r) => r.result === 'replayed')).toHaveLength(20);
    expect(retry.created).toBe(10);
    for (let n = 0; n < 20; n++)
      expect(retry.results[n]!.shipment!.id).toBe(first.results[n]!.shipment!.id);
    expect(await count()).toBe(30);

    const changed = BulkCreateResultSchema.parse(
      (
        await api.post('/api/v1/shipments/bulk', {
          shipments: [item(0, { idempotency_key: 'k-0', parcel_size: 'M' }), item(99)],
        })
      ).body,
    );
    expect(changed.results.map((r) => r.result)).toEqual(['conflict', 'created']);
    expect(changed.results[0]!.errors![0]).toMatchObject({
      field: 'idempotency_key',
      code: 'idempotency_conflict',
    });
    // The same key in the single-create header is the same shipment.
    const single = await api.post('/api/v1/shipments', item(1), { 'Idempotency-Key': 'k-1' });
    expect(single.body.id).toBe(first.results[1]!.shipment!.id);
    expect(single.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses an empty call, more than 100 items and a body of another shape, creating nothing', async () => {
    const { api, item, count } = await merchant();
    for (const [body, field, code] of [
      [{ shipments: [] }, 'shipments', 'too_small'],
      [{ shipments: Array.from({ length: 101 }, (_, n) => item(n)) }, 'shipments', 'too_big'],
      [[item(1)], '(body)', 'invalid_type'],
      [{ items: [item(1)] }, 'shipments', 'required'],
    ] as const) {
      const answer = await api.post('/api/v1/shipments/bulk', body);
      expect(answer.status, field).toBe(422);
      expect(answer.body.errors[0]).toMatchObject({ field, code });
    }
    expect(await count()).toBe(0);
    expect((await client(stack.url).post('/api/v1/shipments/bulk', { shipments: [] })).status).toBe(
      401,
    );
  });
});
