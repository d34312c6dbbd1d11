import { describe, expect, it } from 'vitest';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

describe('courier collection of returns (extension)', () => {
  it('lists deposited returns, frees the door when one is taken, and the merchant sees return_collected', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment: parcel, door } = await scene.returned();

    const list = await scene.terminal.api.post('/terminal/v1/courier/returns', {
      courierNo: scene.courier.number,
    });
    expect(list.body).toEqual({
      ok: true,
      parcels: [{ door, trackingNumber: parcel.tracking_number, kind: 'return' }],
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
    const [held] =
      await stack.sql`select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(held?.n).toBe(0);
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

  it('lets a courier take out a delivery left past the maximum storage time, and no other', async () => {
    const scene = await stack.scene('1:S,2:S,3:S', { freeStorageHours: 24, maxStorageHours: 48 });
    await stack.subscribeWebhooks(scene.org.id);
    const expired = await scene.deposit();
    const fresh = await scene.deposit();
    // As if booked and deposited `hours` earlier: the whole history moves back.
    const ageBy = async (hours: number, id: string) => {
      const earlier = stack.sql`- make_interval(hours => ${hours})`;
      await stack.sql`update shipments set deposited_at = deposited_at ${earlier} where id = ${id}`;
      await stack.sql`update tracking_events set occurred_at = occurred_at ${earlier} where shipment_id = ${id}`;
    };
    await ageBy(49, expired.shipment.id);
    await ageBy(47, fresh.shipment.id); // late, but not yet expired: still the recipient's

    const list = await scene.terminal.api.post('/terminal/v1/courier/returns', {
      courierNo: scene.courier.number,
    });
    expect(list.body.parcels).toEqual([
      { door: expired.door, trackingNumber: expired.shipment.tracking_number, kind: 'expired' },
    ]);
    const take = (trackingNumber: string) =>
      scene.terminal.api.post('/terminal/v1/courier/returns/collected', {
        courierNo: scene.courier.number,
        trackingNumber,
        occurred_at: new Date(Date.now() - 60_000).toISOString(),
      });
    expect((await take(fresh.shipment.tracking_number)).status).toBe(404);
    expect((await take(expired.shipment.tracking_number)).body).toEqual({ ok: true });
    expect((await take(expired.shipment.tracking_number)).status).toBe(404);

    // The code the recipient got no longer opens anything; the other parcel's still does.
    const refused = await scene.terminal.api.post('/terminal/v1/pickup', { code: expired.code });
    expect(refused.status).toBe(401);
    const open = await scene.terminal.api.post('/terminal/v1/pickup', { code: fresh.code });
    expect(open.body.door).toBe(fresh.door);

    const tracking = (
      await client(stack.url, scene.org.apiKey).get(
        `/api/v1/track/${expired.shipment.tracking_number}`,
      )
    ).body;
    expect(tracking.events.map((e: { status: string }) => e.status)).toEqual([
      'booked',
      'ready_for_pickup',
      'return_collected',
    ]);
    const cabinet = await scene.terminal.api.get('/terminal/v1/cabinet');
    expect(
      cabinet.body.doors.find((d: { position: number }) => d.position === expired.door).status,
    ).toBe('available');
    // Taken out before the storage sweep noticed: the merchant still hears it expired first.
    expect(await stack.webhookTypesOf(expired.shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.expired',
      'shipment.return_collected',
    ]);
  });
});
