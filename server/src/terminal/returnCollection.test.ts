import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, type TestStack } from '../../test/harness';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestServer();
});
afterAll(() => stack.close());

describe('courier collection of returns (extension)', () => {
  it('lists deposited returns, frees the door when one is taken, and the merchant sees return_collected', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    await scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: true,
    });

    const list = await scene.terminal.api.post('/terminal/v1/courier/returns', {
      courierNo: scene.courier.number,
    });
    expect(list.body).toEqual({
      ok: true,
      parcels: [{ door: started.body.door, trackingNumber: parcel.tracking_number }],
    });

    const taken = { courierNo: scene.courier.number, trackingNumber: parcel.tracking_number };
    expect(
      (await scene.terminal.api.post('/terminal/v1/courier/returns/collected', taken)).body,
    ).toEqual({ ok: true });
    expect(
      (await scene.terminal.api.post('/terminal/v1/courier/returns/collected', taken)).status,
    ).toBe(404);
    expect(
      (
        await scene.terminal.api.post('/terminal/v1/courier/returns', {
          courierNo: scene.courier.number,
        })
      ).body.parcels,
    ).toEqual([]);

    const tracking = (
      await client(stack.url, scene.org.apiKey).get(`/api/v1/track/${parcel.tracking_number}`)
    ).body;
    expect(tracking.status).toBe('return_collected');
    expect(tracking.events.at(-1)).toMatchObject({
      status: 'return_collected',
      station_code: scene.station.code,
    });
    const [door] =
      await stack.sql`select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(door?.n).toBe(0);
  });

  it('refuses an unknown courier with 403 and answers a door holding no return with 404', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    expect(
      (await scene.terminal.api.post('/terminal/v1/courier/returns', { courierNo: 'nobody' })).body
        .code,
    ).toBe('courier_not_verified');
    // A delivery awaiting its recipient is not a return: a courier cannot take it this way.
    const wrong = await scene.terminal.api.post('/terminal/v1/courier/returns/collected', {
      courierNo: scene.courier.number,
      trackingNumber: shipment.tracking_number,
    });
    expect(wrong.status).toBe(404);
    const [row] = await stack.sql`select status from shipments where id = ${shipment.id}`;
    expect(row?.status).toBe('ready_for_pickup');
  });
});
