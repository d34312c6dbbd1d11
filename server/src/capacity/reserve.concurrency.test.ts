import { SIZES, type Size } from '@locker/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../server';
import { client, useTestServer } from '../../test/harness';

// Two server instances on one database, bookings that reserve and couriers' deposits
// raced through both: capacity never double-counts, and no door is ever promised twice.
const stack = useTestServer();
let second: RunningServer;
beforeAll(async () => {
  second = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: stack.databaseUrl,
    logLevel: 'silent',
    smsTransport: `file:${stack.smsFile}`,
    development: true,
    dbPoolSize: 10,
  });
});
afterAll(async () => {
  await second.close();
});

const DOORS = '1:S,2:S,3:S,4:M,5:M,6:L,7:XL,8:-';
const ROUNDS = 4;
const BOOKINGS = 24;
const DEPOSITS = 6;

const sizeRank = (size: Size) => SIZES.indexOf(size);

describe('reservations on two instances', () => {
  it('never promise a door twice, never exceed the doors, and refuse only when no fitting door is left', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = await stack.scene(DOORS);
      const merchants = [client(stack.url, s.org.apiKey), client(second.url, s.org.apiKey)];
      const kiosks = [s.terminal.api, client(second.url, s.terminal.token)];
      // Parcels that did not reserve, booked first, deposited during the bookings' race.
      const plain = await Promise.all(
        Array.from({ length: DEPOSITS }, (_, i) =>
          stack.shipment(s.org.id, s.station.id, { size: SIZES[i % 2] }),
        ),
      );
      const sizes = Array.from({ length: BOOKINGS }, (_, i) => SIZES[(i * 7 + round) % 4]!);
      const [bookings, deposits] = await Promise.all([
        Promise.all(
          sizes.map((size, i) =>
            merchants[i % 2]!.post('/api/v1/shipments', {
              destination_station_id: s.station.id,
              parcel_size: size,
              recipient_name: 'Drita Gashi',
              recipient_phone: '+38344123456',
              recipient_language: 'sq',
              reserve_door: true,
            }),
          ),
        ),
        Promise.all(
          plain.map((p, i) =>
            kiosks[i % 2]!.post('/terminal/v1/deposit', {
              courierNo: s.courier.number,
              trackingNumber: p.tracking_number,
            }),
          ),
        ),
      ]);

      for (const b of bookings) expect([201, 409]).toContain(b.status);
      for (const d of deposits) expect([200, 409]).toContain(d.status);
      const reserved = bookings.filter((b) => b.status === 201);
      const refused = bookings.filter((b) => b.status === 409);
      for (const r of refused) expect(r.body.code).toBe('station_full');

      const doors = await stack.sql<
        { position: number; size: Size | null; held_by: string | null; holds: string | null }[]
      >`
        select d.position, d.size,
               (select r.shipment_id from door_reservations r
                 where r.door_id = d.id and r.until > now()) as held_by,
               (select o.shipment_id from door_occupancy o where o.door_id = d.id) as holds
          from doors d where d.station_id = ${s.station.id} order by d.position`;
      // No door both reserved and holding a parcel; each booking holds exactly one door.
      for (const door of doors) expect(door.held_by && door.holds).toBeFalsy();
      const heldBy = doors.map((d) => d.held_by).filter(Boolean);
      expect([...heldBy].sort()).toEqual(reserved.map((b) => b.body.id as string).sort());
      // Each deposit's door is one nobody else was promised, and holds that parcel.
      for (const d of deposits.filter((x) => x.status === 200)) {
        const door = doors.find((x) => x.position === d.body.door);
        const parcel = plain.find((p) => p.tracking_number === d.body.trackingNumber)!;
        expect(door?.holds).toBe(parcel.id);
      }
      // Reservations plus parcels never exceed the doors of a known size.
      const sized = doors.filter((d) => d.size !== null);
      expect(reserved.length + deposits.filter((d) => d.status === 200).length).toBeLessThanOrEqual(
        sized.length,
      );
      // A refusal was true when made, and no door is freed here: none fits now either.
      const free = sized.filter((d) => !d.held_by && !d.holds);
      for (const r of refused) {
        const size = r.body.parcel_size as Size;
        expect(free.filter((d) => sizeRank(d.size!) >= sizeRank(size))).toEqual([]);
      }
      for (const d of deposits.filter((x) => x.status === 409)) {
        const size = d.body.parcel_size as Size;
        expect(free.filter((x) => sizeRank(x.size!) >= sizeRank(size))).toEqual([]);
      }
    }
  });
});
