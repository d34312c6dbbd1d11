import { ShipmentSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { setStationPlace } from '../admin/placeCommands';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

const HOUR = 3_600_000;

/** A station with a terminal, a courier, and a merchant's client. */
async function scene(doors = '1:S,2:M') {
  const s = await stack.scene(doors);
  const api = client(stack.url, s.org.apiKey);
  const book = (extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    api.post(
      '/api/v1/shipments',
      {
        destination_station_id: s.station.id,
        parcel_size: 'S',
        recipient_name: 'Drita Gashi',
        recipient_phone: `+38344${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
        recipient_language: 'sq',
        ...extra,
      },
      headers,
    );
  const deposit = (trackingNumber: string) =>
    s.terminal.api.post('/terminal/v1/deposit', { courierNo: s.courier.number, trackingNumber });
  return { ...s, api, book, deposit };
}

/** The door a booking holds, by position; undefined when it holds none. */
async function heldDoor(shipmentId: string): Promise<number | undefined> {
  const [row] = await stack.sql<{ position: number }[]>`
    select d.position from door_reservations r join doors d on d.id = r.door_id
     where r.shipment_id = ${shipmentId} and r.until > now()`;
  return row?.position;
}

describe('reserve_door at booking', () => {
  it('holds the smallest free door that fits until the deposit, which uses it', async () => {
    const { book, deposit, api } = await scene('1:M,2:S,3:L');
    const booked = await book({ parcel_size: 'S', reserve_door: true });
    expect(booked.status).toBe(201);
    const shipment = ShipmentSchema.parse(booked.body);
    expect(shipment.reservation?.status).toBe('held');
    // The station's default: 72 hours.
    const until = Date.parse(shipment.reservation!.held_until);
    expect(Math.abs(until - Date.now() - 72 * HOUR)).toBeLessThan(60_000);
    expect(await heldDoor(shipment.id)).toBe(2);

    const deposited = await deposit(shipment.tracking_number);
    expect(deposited.body.door).toBe(2);
    expect(await heldDoor(shipment.id)).toBeUndefined();
    const read = await api.get(`/api/v1/shipments/${shipment.id}`);
    expect(read.body.reservation).toEqual({
      status: 'used',
      held_until: shipment.reservation!.held_until,
    });
  });

  it('keeps a reserved door from parcels that did not reserve and from returns, while the cabinet still shows it available', async () => {
    const s = await scene('1:S,2:S');
    const reserving = await s.book({ reserve_door: true });
    expect(await heldDoor(reserving.body.id)).toBe(1);
    // A parcel that did not reserve takes the other door; the next one finds no door.
    const first = await s.book();
    expect((await s.deposit(first.body.tracking_number)).body.door).toBe(2);
    const second = await s.book();
    const full = await s.deposit(second.body.tracking_number);
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('cabinet_full');
    // The kiosk's grid is what is in the doors: the reserved door reads available.
    const cabinet = await s.terminal.api.get('/terminal/v1/cabinet');
    expect(cabinet.body.doors.map((d: { status: string }) => d.status)).toEqual([
      'available',
      'occupied',
    ]);
    // A customer's return does not get the reserved door either.
    const code = await stack.pickupCodeSentTo(first.body.recipient_phone);
    const picked = await s.terminal.api.post('/terminal/v1/pickup', { code });
    await s.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const other = await s.book();
    expect((await s.deposit(other.body.tracking_number)).body.door).toBe(2);
    const returned = await s.terminal.api.post('/terminal/v1/return', {
      trackingNumber: first.body.tracking_number,
    });
    expect(returned.status).toBe(409);
    // The reserving parcel still gets its door.
    expect((await s.deposit(reserving.body.tracking_number)).body.door).toBe(1);
  });

  it('answers 409 station_full with the nearest stations that have room, and books nothing', async () => {
    const s = await scene('1:S,2:M');
    await setStationPlace(stack.sql, s.station.code, { coordinates: '30.0,20.0' });
    const near = await stack.station('1:M', { name: 'Near' });
    await setStationPlace(stack.sql, near.code, { coordinates: '30.01,20.0', address: 'Near 1' });
    const smallOnly = await stack.station('1:S');
    await setStationPlace(stack.sql, smallOnly.code, { coordinates: '30.005,20.0' });
    const farther = await stack.station('1:L');
    await setStationPlace(stack.sql, farther.code, { coordinates: '30.05,20.0' });
    expect((await s.book({ parcel_size: 'M', reserve_door: true })).status).toBe(201);
    const before = await stack.sql`select count(*)::int as n from shipments`;

    const full = await s.book({ parcel_size: 'M', reserve_door: true });
    expect(full.status).toBe(409);
    expect(full.headers.get('content-type')).toContain('application/problem+json');
    expect(full.body).toMatchObject({
      code: 'station_full',
      status: 409,
      parcel_size: 'M',
      accessible_door: false,
    });
    // Nearest first, only stations with a door an M fits (not the S-only one), at most 3.
    const listed = full.body.nearest_stations_with_room as { code: string; distance_m: number }[];
    expect(listed.slice(0, 2).map((x) => x.code)).toEqual([near.code, farther.code]);
    expect(listed[0]).toMatchObject({ address: 'Near 1', free_doors: { S: 0, M: 1, L: 0, XL: 0 } });
    expect(Math.round(listed[0]!.distance_m / 100)).toBe(11);
    expect(await stack.sql`select count(*)::int as n from shipments`).toEqual(before);
    // An S still fits the S door.
    expect((await s.book({ parcel_size: 'S', reserve_door: true })).status).toBe(201);
  });

  it('leaves a booking without reserve_door exactly as before: no reservation field, no door held', async () => {
    const s = await scene('1:S');
    const plain = await s.book();
    expect(plain.status).toBe(201);
    expect(plain.body).not.toHaveProperty('reservation');
    expect(plain.body).not.toHaveProperty('accessible_door');
    expect(await heldDoor(plain.body.id)).toBeUndefined();
    const explicit = await s.book({ reserve_door: false });
    expect(explicit.status).toBe(201);
    expect(explicit.body).not.toHaveProperty('reservation');
  });

  it('lets a lapsed reservation go: its door is promised again, and its own parcel then needs a free door', async () => {
    const s = await scene('1:S');
    const early = await s.book({ reserve_door: true });
    await stack.sql`update door_reservations set until = now() - interval '1 second' where shipment_id = ${early.body.id}`;
    await stack.sql`update shipments set reserved_until = now() - interval '1 second' where id = ${early.body.id}`;
    expect((await s.api.get(`/api/v1/shipments/${early.body.id}`)).body.reservation.status).toBe(
      'lapsed',
    );
    const late = await s.book({ reserve_door: true });
    expect(late.status).toBe(201);
    expect(await heldDoor(late.body.id)).toBe(1);
    expect((await s.deposit(early.body.tracking_number)).body.code).toBe('cabinet_full');
  });

  it('holds a door again when a deposit is undone (the courier shut it empty)', async () => {
    const s = await scene('1:S,2:S');
    const booked = await s.book({ reserve_door: true });
    expect((await s.deposit(booked.body.tracking_number)).body.door).toBe(1);
    const undone = await s.terminal.api.post('/terminal/v1/deposit/undo', {
      courierNo: s.courier.number,
      trackingNumber: booked.body.tracking_number,
    });
    expect(undone.status).toBe(200);
    expect(await heldDoor(booked.body.id)).toBe(1);
    expect((await s.api.get(`/api/v1/shipments/${booked.body.id}`)).body.reservation.status).toBe(
      'held',
    );
  });

  it('replays an idempotent reserving booking without holding a second door', async () => {
    const s = await scene('1:S,2:S');
    const headers = { 'Idempotency-Key': `order-${Math.random()}` };
    const body = {
      reserve_door: true,
      recipient_phone: '+38344123456',
    };
    const first = await s.book(body, headers);
    const again = await s.book(body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const [held] = await stack.sql`
      select count(*)::int as n from door_reservations where station_id = ${s.station.id}`;
    expect(held!.n).toBe(1);
  });

  it('judges each reserving item of a bulk call on its own: station_full fails only that item', async () => {
    const s = await scene('1:S');
    const item = {
      destination_station_id: s.station.id,
      parcel_size: 'S',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      reserve_door: true,
    };
    const answer = await s.api.post('/api/v1/shipments/bulk', {
      shipments: [item, { ...item, idempotency_key: `k-${Math.random()}` }],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.created).toBe(1);
    const refused = answer.body.results.find((r: { result: string }) => r.result !== 'created');
    expect(refused.errors).toEqual([
      expect.objectContaining({ field: 'reserve_door', code: 'station_full' }),
    ]);
  });
});

describe('accessible_door', () => {
  it('reserves and deposits only into doors whose handle lies within 380-1,220 mm', async () => {
    const s = await scene('1:S,2:S,3:M,4:M');
    await stack.sql`
      update doors set handle_height_mm = case position when 1 then 1700 when 2 then 300
                                                        when 3 then 1100 else 1900 end
       where station_id = ${s.station.id}`;
    const reserving = await s.book({ reserve_door: true, accessible_door: true });
    expect(reserving.body.accessible_door).toBe(true);
    expect(await heldDoor(reserving.body.id)).toBe(3);
    const refused = await s.book({ reserve_door: true, accessible_door: true });
    expect(refused.body).toMatchObject({ code: 'station_full', accessible_door: true });
    // Without a reservation, the deposit honours it too: no door within reach is left.
    const plain = await s.book({ accessible_door: true });
    expect((await s.deposit(plain.body.tracking_number)).body.code).toBe('cabinet_full');
    const anyDoor = await s.book();
    expect((await s.deposit(anyDoor.body.tracking_number)).body.door).toBe(1);
  });
});

describe('POST /api/v1/shipments/{id}/cancel', () => {
  it('cancels a booking: its door released, shipment.cancelled once, tracked; a repeat answers it again', async () => {
    const s = await scene('1:S');
    await stack.subscribeWebhooks(s.org.id);
    const booked = await s.book({ reserve_door: true });
    expect((await s.book({ reserve_door: true })).status).toBe(409);
    const cancelled = await s.api.post(`/api/v1/shipments/${booked.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: 'cancelled',
      reservation: { status: 'released' },
    });
    expect(await heldDoor(booked.body.id)).toBeUndefined();
    expect((await s.book({ reserve_door: true })).status).toBe(201);
    const repeat = await s.api.post(`/api/v1/shipments/${booked.body.id}/cancel`);
    expect(repeat.status).toBe(200);
    expect(await stack.webhookTypesOf(booked.body.id)).toEqual(['shipment.cancelled']);
    const [delivery] = await stack.sql`
      select count(*)::int as n from outbox where channel = 'webhook' and shipment_id = ${booked.body.id}`;
    expect(delivery!.n).toBe(1);
    const tracking = await s.api.get(`/api/v1/track/${booked.body.tracking_number}`);
    expect(tracking.body.events.map((e: { status: string }) => e.status)).toEqual([
      'booked',
      'cancelled',
    ]);
    // A courier can no longer deposit it.
    expect((await s.deposit(booked.body.tracking_number)).status).toBe(404);
  });

  it('refuses once deposited (409 not_cancellable), and another organization’s shipment is 404', async () => {
    const s = await scene('1:S');
    const booked = await s.book();
    await s.deposit(booked.body.tracking_number);
    const late = await s.api.post(`/api/v1/shipments/${booked.body.id}/cancel`);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('not_cancellable');
    const stranger = client(stack.url, (await stack.org()).apiKey);
    expect((await stranger.post(`/api/v1/shipments/${booked.body.id}/cancel`)).status).toBe(404);
    expect((await stranger.post('/api/v1/shipments/not-a-uuid/cancel')).status).toBe(404);
  });

  it('races a deposit of the same parcel: exactly one wins, and the door holds the parcel only if the deposit did', async () => {
    const s = await scene('1:S');
    for (let i = 0; i < 10; i++) {
      const booked = await s.book({ reserve_door: true });
      const [cancel, deposit] = await Promise.all([
        s.api.post(`/api/v1/shipments/${booked.body.id}/cancel`),
        s.deposit(booked.body.tracking_number),
      ]);
      const [row] = await stack.sql<{ status: string; doors: number; held: number }[]>`
        select sh.status,
               (select count(*)::int from door_occupancy o where o.shipment_id = sh.id) as doors,
               (select count(*)::int from door_reservations r where r.shipment_id = sh.id) as held
          from shipments sh where sh.id = ${booked.body.id}`;
      if (deposit.status === 200) {
        expect(cancel.status).toBe(409);
        expect(row).toEqual({ status: 'ready_for_pickup', doors: 1, held: 0 });
        await stack.sql`delete from door_occupancy where shipment_id = ${booked.body.id}`;
      } else {
        expect([cancel.status, deposit.status]).toEqual([200, 404]);
        expect(row).toEqual({ status: 'cancelled', doors: 0, held: 0 });
      }
    }
  });
});
