import { StationFinderResultSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { createSandboxOrganization } from '../admin/sandbox';
import { setStationBooking, setStationPlace } from '../admin/placeCommands';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

// Each test works around a place of its own, a degree of latitude from the others' (over
// 100 km): its stations are the nearest to its own point.
let nextPlace = 0;
function place() {
  nextPlace += 1;
  return { latitude: 40 + nextPlace, longitude: 21 };
}

/** A station `northKm` north of `origin`, with a place. */
async function stationAt(
  origin: { latitude: number; longitude: number },
  northKm: number,
  doors = '1:S,2:S,3:M,4:L,5:XL',
) {
  const station = await stack.station(doors);
  // A degree of latitude is 111.2 km on earthdistance's sphere.
  const latitude = origin.latitude + northKm / 111.19;
  await setStationPlace(stack.sql, station.code, {
    address: `Street ${station.code}`,
    coordinates: `${latitude},${origin.longitude}`,
    hours: 'mo-fr 08:00-20:00; sa 09:00-14:00',
    stepFree: 'yes',
  });
  return station;
}

const near = (p: { latitude: number; longitude: number }) => `${p.latitude},${p.longitude}`;

describe('GET /api/v1/stations?near=', () => {
  it('answers the stations nearest first, with place, distance and free doors per size', async () => {
    const origin = place();
    const far = await stationAt(origin, 9);
    const close = await stationAt(origin, 0.4);
    const middle = await stationAt(origin, 2);
    await stack.station('1:S'); // no place: not findable
    const org = await stack.org();
    const api = client(stack.url, org.apiKey);

    const answer = await api.get(`/api/v1/stations?near=${near(origin)}&limit=3`);
    expect(answer.status).toBe(200);
    const result = StationFinderResultSchema.parse(answer.body);
    expect(result.data.map((s) => s.code)).toEqual([close.code, middle.code, far.code]);
    expect(result.data.map((s) => Math.round(s.distance_m / 100))).toEqual([4, 20, 90]);
    expect(result.data[0]).toMatchObject({
      id: close.id,
      name: 'Test Station',
      address: `Street ${close.code}`,
      opening_hours: [
        { days: ['mo', 'tu', 'we', 'th', 'fr'], opens: '08:00', closes: '20:00' },
        { days: ['sa'], opens: '09:00', closes: '14:00' },
      ],
      step_free: true,
      free_doors: { S: 2, M: 1, L: 1, XL: 1 },
      // No door has a known height yet: none counts as within reach.
      accessible_free_doors: { S: 0, M: 0, L: 0, XL: 0 },
    });
    expect(result.day).toBe(new Date().toISOString().slice(0, 10));
  });

  it('counts a door holding a parcel and a reserved door as taken, and a lapsed reservation as free on a later day', async () => {
    const origin = place();
    const station = await stationAt(origin, 0.1, '1:S,2:M,3:L');
    await setStationBooking(stack.sql, station.code, { reservationHours: 24 });
    const terminal = await stack.terminal(station.code);
    const courier = await stack.courier();
    const org = await stack.org();
    const api = client(stack.url, org.apiKey);
    const parcel = await stack.shipment(org.id, station.id, { size: 'S' });
    const deposited = await terminal.api.post('/terminal/v1/deposit', {
      courierNo: courier.number,
      trackingNumber: parcel.tracking_number,
    });
    expect(deposited.body.door).toBe(1);
    const booked = await api.post('/api/v1/shipments', {
      destination_station_id: station.id,
      parcel_size: 'M',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
      reserve_door: true,
    });
    expect(booked.status).toBe(201);

    const today = await api.get(`/api/v1/stations?near=${near(origin)}&limit=1`);
    expect(today.body.data[0].free_doors).toEqual({ S: 0, M: 0, L: 1, XL: 0 });
    // The reservation lapses within 24 hours: the day after tomorrow its door is free; the
    // parcel in door 1 still counts (nobody knows when it will be collected).
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const then = await api.get(`/api/v1/stations?near=${near(origin)}&limit=1&day=${later}`);
    expect(then.body).toMatchObject({ day: later });
    expect(then.body.data[0].free_doors).toEqual({ S: 0, M: 1, L: 1, XL: 0 });
  });

  it('with size (and accessible) lists only stations with such a door free', async () => {
    const origin = place();
    const small = await stationAt(origin, 0.2, '1:S,2:M');
    const large = await stationAt(origin, 1, '1:S,2:L');
    const reachable = await stationAt(origin, 3, '1:M,2:XL');
    await stack.sql`
      update doors set handle_height_mm = case position when 1 then 1600 else 900 end
       where station_id in (${small.id}, ${large.id}, ${reachable.id})`;
    const api = client(stack.url, (await stack.org()).apiKey);
    // Only this test's stations lie within 100 km: the next ones found are others'.
    const nearby = async (query: string) =>
      (await api.get(`/api/v1/stations?near=${near(origin)}&limit=4&${query}`)).body.data
        .filter((s: { distance_m: number }) => s.distance_m < 100_000)
        .map((s: { code: string }) => s.code);
    expect(await nearby('size=L')).toEqual([large.code, reachable.code]);
    expect(await nearby('size=M&accessible=true')).toEqual([
      small.code,
      large.code,
      reachable.code,
    ]);
    expect(await nearby('size=XL&accessible=true')).toEqual([reachable.code]);
    const [first] = (await api.get(`/api/v1/stations?near=${near(origin)}&limit=1`)).body.data;
    expect(first.accessible_free_doors).toEqual({ S: 0, M: 1, L: 0, XL: 0 });
  });

  it('pages with next_cursor through the same order one page gives, and refuses a cursor of another near', async () => {
    const origin = place();
    for (const km of [5, 1, 3, 2, 4]) await stationAt(origin, km);
    const api = client(stack.url, (await stack.org()).apiKey);
    const whole = await api.get(`/api/v1/stations?near=${near(origin)}&limit=5`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { code: string }[]; next_cursor: string | null } } =
        await api.get(
          `/api/v1/stations?near=${near(origin)}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
      seen.push(...page.body.data.map((s) => s.code));
      cursor = seen.length < 5 ? page.body.next_cursor : null;
    } while (cursor);
    expect(seen.slice(0, 5)).toEqual(whole.body.data.map((s: { code: string }) => s.code));
    const second = await api.get(`/api/v1/stations?near=${near(origin)}&limit=2`);
    const moved = await api.get(
      `/api/v1/stations?near=${origin.latitude + 0.5},21&limit=2&cursor=${second.body.next_cursor}`,
    );
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toEqual([
      expect.objectContaining({ field: 'cursor', code: 'invalid_cursor' }),
    ]);
  });

  it('shows a sandbox organization only its own stations, and others never a sandbox station', async () => {
    const origin = place();
    const live = await stationAt(origin, 1);
    const sandbox = await createSandboxOrganization(stack.sql, 'Shop (test)');
    const [own] = sandbox.stations;
    await setStationPlace(stack.sql, own!.code, { coordinates: near(origin) });
    const sandboxSees = await client(stack.url, sandbox.apiKey).get(
      `/api/v1/stations?near=${near(origin)}&limit=50`,
    );
    expect(sandboxSees.body.data.map((s: { code: string }) => s.code)).toEqual([own!.code]);
    const liveSees = await client(stack.url, (await stack.org()).apiKey).get(
      `/api/v1/stations?near=${near(origin)}&limit=1`,
    );
    expect(liveSees.body.data.map((s: { code: string }) => s.code)).toEqual([live.code]);
  });

  it('answers 422 naming each bad parameter, and 401 without a key', async () => {
    const api = client(stack.url, (await stack.org()).apiKey);
    const bad = await api.get('/api/v1/stations?near=91,21&size=XXL&limit=0&radius=3');
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'limit',
      'near',
      'radius',
      'size',
    ]);
    const missing = await api.get('/api/v1/stations');
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'near' })]);
    const past = await api.get('/api/v1/stations?near=42,21&day=2020-01-01');
    expect(past.body.errors).toEqual([
      expect.objectContaining({ field: 'day', code: 'invalid_value' }),
    ]);
    expect((await stack.anonymous.get('/api/v1/stations?near=42,21')).status).toBe(401);
  });
});
