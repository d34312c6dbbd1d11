import { DepositAlternativesResponseSchema, DepositRerouteResponseSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { setStationPlace } from '../admin/placeCommands';
import { client, untilWaitingForStationLock, useTestServer, waitFor } from '../../test/harness';

const stack = useTestServer();

/**
 * A full station (one S door, taken) with a terminal and a courier, and three stations
 * around it: Near (400 m, room), Far (2 km, room) and Fuller (100 m, no free door).
 */
let scenes = 0;

async function overflowScene() {
  // Each scene tens of kilometres east of the last: one scene's stations are never
  // another's nearest (the file shares one database).
  const east = (21 + 0.5 * scenes++).toFixed(4);
  const at = (latitude: string) => `${latitude},${east}`;
  const s = await stack.scene('1:S', { name: 'Prishtina Center' });
  await setStationPlace(stack.sql, s.station.code, {
    coordinates: at('42.6629'),
    address: 'Rruga Agim Ramadani 15',
  });
  const near = await stack.station('1:S,2:M', { name: 'Near Locker' });
  await setStationPlace(stack.sql, near.code, {
    coordinates: at('42.6665'),
    address: 'Rruga UÇK 40',
  });
  const far = await stack.station('1:L', { name: 'Far Locker' });
  await setStationPlace(stack.sql, far.code, { coordinates: at('42.6809') });
  const fuller = await stack.station('1:S', { name: 'Fuller Locker' });
  await setStationPlace(stack.sql, fuller.code, { coordinates: at('42.6638') });
  const fullerTerminal = await stack.terminal(fuller.code);
  const filler = await stack.shipment(s.org.id, fuller.id);
  await fullerTerminal.api.post('/terminal/v1/deposit', {
    courierNo: s.courier.number,
    trackingNumber: filler.tracking_number,
  });
  // This station's one door holds a parcel: the next one finds it full.
  await s.deposit();
  const parcel = await stack.shipment(s.org.id, s.station.id, { language: 'sq' });
  await stack.subscribeWebhooks(s.org.id);
  const api = client(stack.url, s.org.apiKey);
  const reroute = (stationCode: string, trackingNumber = parcel.tracking_number) =>
    s.terminal.api.post('/terminal/v1/deposit/reroute', {
      courierNo: s.courier.number,
      trackingNumber,
      stationCode,
    });
  return { ...s, near, far, fuller, parcel, api, reroute };
}

/** What a reroute may change, to show a refusal changed none of it. */
async function snapshot(shipmentId: string) {
  const [row] = await stack.sql<{ d: string }[]>`
    select concat_ws('|',
      (select sh::text from shipments sh where sh.id = ${shipmentId}),
      (select string_agg(r::text, ',' order by r.door_id) from door_reservations r),
      (select count(*) from tracking_events where shipment_id = ${shipmentId}),
      (select count(*) from outbox where shipment_id = ${shipmentId}),
      (select count(*) from events where shipment_id = ${shipmentId})) as d`;
  return row!.d;
}

/** The SMS queued for a shipment, not counting set-aside ones. */
async function smsOf(shipmentId: string) {
  return stack.sql<{ text: string; carriesCode: boolean }[]>`
    select payload->>'text' as text, (payload->>'carriesCode')::boolean as "carriesCode"
      from outbox where channel = 'sms' and shipment_id = ${shipmentId} order by id`;
}

describe('deposit alternatives', () => {
  it('lists the nearest stations with a door the parcel fits, nearest first, not the full ones', async () => {
    const s = await overflowScene();
    const full = await s.terminal.api.post('/terminal/v1/deposit', {
      courierNo: s.courier.number,
      trackingNumber: s.parcel.tracking_number,
    });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('cabinet_full');
    const answer = await s.terminal.api.post('/terminal/v1/deposit/alternatives', {
      courierNo: s.courier.number,
      trackingNumber: s.parcel.tracking_number,
    });
    expect(answer.status).toBe(200);
    const body = DepositAlternativesResponseSchema.parse(answer.body);
    expect(body.parcel_size).toBe('S');
    expect(body.stations.map((st) => st.name)).toEqual(['Near Locker', 'Far Locker']);
    expect(body.stations[0]).toMatchObject({ code: s.near.code, address: 'Rruga UÇK 40' });
    expect(body.stations[0]!.distance_m).toBeGreaterThan(350);
    expect(body.stations[0]!.distance_m).toBeLessThan(450);
  });

  it('refuses an unknown courier (403) and a parcel not booked here (404)', async () => {
    const s = await overflowScene();
    const stranger = await s.terminal.api.post('/terminal/v1/deposit/alternatives', {
      courierNo: 'nobody',
      trackingNumber: s.parcel.tracking_number,
    });
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe('courier_not_verified');
    const elsewhere = await stack.shipment(s.org.id, s.near.id);
    const notHere = await s.terminal.api.post('/terminal/v1/deposit/alternatives', {
      courierNo: s.courier.number,
      trackingNumber: elsewhere.tracking_number,
    });
    expect(notHere.status).toBe(404);
  });
});

describe('deposit reroute', () => {
  it('moves the booking, holds a door there, tells the recipient once and the merchant once', async () => {
    const s = await overflowScene();
    const answer = await s.reroute(s.near.code);
    expect(answer.status).toBe(200);
    const body = DepositRerouteResponseSchema.parse(answer.body);
    expect(body.station).toMatchObject({
      code: s.near.code,
      name: 'Near Locker',
      address: 'Rruga UÇK 40',
    });
    expect(body.recipient_notified).toBe(true);

    // The merchant's view names the new station and a held door there.
    const shipment = (await s.api.get(`/api/v1/shipments/${s.parcel.id}`)).body;
    expect(shipment.destination_station_code).toBe(s.near.code);
    expect(shipment.status).toBe('booked');
    expect(shipment.reservation).toEqual({ status: 'held', held_until: body.held_until });
    const [held] = await stack.sql<{ station_id: string; position: number }[]>`
      select r.station_id, d.position from door_reservations r join doors d on d.id = r.door_id
       where r.shipment_id = ${s.parcel.id}`;
    expect(held).toEqual({ station_id: s.near.id, position: 1 });

    // Tracking shows both stations.
    const tracking = (await s.api.get(`/api/v1/track/${s.parcel.tracking_number}`)).body;
    expect(tracking.events.at(-1)).toMatchObject({
      status: 'booked',
      station_code: s.near.code,
      rerouted_from_station_code: s.station.code,
    });

    // One SMS, in the recipient's language, with the new address and no code.
    const sms = await smsOf(s.parcel.id);
    expect(sms).toHaveLength(1);
    expect(sms[0]!.carriesCode).toBe(false);
    expect(sms[0]!.text).toContain('Near Locker (Rruga UÇK 40)');
    expect(sms[0]!.text).toContain('Prishtina Center');
    expect(sms[0]!.text).toContain('stacionin e pakove');
    expect(sms[0]!.text).not.toMatch(/\b\d{8}\b/);

    // One webhook event, naming both stations.
    expect(await stack.webhookTypesOf(s.parcel.id)).toEqual(['shipment.rerouted']);
    const [event] = await stack.sql<{ body: string }[]>`
      select body from events where shipment_id = ${s.parcel.id}`;
    const data = JSON.parse(event!.body).data;
    expect(data.shipment.destination_station_code).toBe(s.near.code);
    expect(data.rerouted_from).toEqual({ station_id: s.station.id, station_code: s.station.code });

    // The retry answers the same and records and sends nothing more.
    const before = await snapshot(s.parcel.id);
    const again = await s.reroute(s.near.code);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answer.body);
    expect(await snapshot(s.parcel.id)).toBe(before);

    // At the new station, the parcel's deposit uses the held door and draws its one code.
    const nearTerminal = await stack.terminal(s.near.code);
    const deposited = await nearTerminal.api.post('/terminal/v1/deposit', {
      courierNo: s.courier.number,
      trackingNumber: s.parcel.tracking_number,
    });
    expect(deposited.status).toBe(200);
    expect(deposited.body.door).toBe(1);
    await waitFor(async () => ((await smsOf(s.parcel.id)).length === 2 ? true : undefined));
    const codes = (await smsOf(s.parcel.id)).filter((m) => m.carriesCode);
    expect(codes).toHaveLength(1);
    expect(codes[0]!.text).toContain('Near Locker');
  });

  it('refuses a station with no room any more (typed 409) and changes nothing', async () => {
    const s = await overflowScene();
    const before = await snapshot(s.parcel.id);
    const refused = await s.reroute(s.fuller.code);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('station_full');
    expect(refused.body.parcel_size).toBe('S');
    expect(refused.body.nearest_stations_with_room.map((st: { code: string }) => st.code)).toEqual([
      s.near.code,
      s.far.code,
    ]);
    expect(await snapshot(s.parcel.id)).toBe(before);
  });

  it('refuses an unknown courier, an unknown or the same station, a parcel not booked here, and changes nothing', async () => {
    const s = await overflowScene();
    const before = await snapshot(s.parcel.id);
    const stranger = await s.terminal.api.post('/terminal/v1/deposit/reroute', {
      courierNo: 'nobody',
      trackingNumber: s.parcel.tracking_number,
      stationCode: s.near.code,
    });
    expect(stranger.status).toBe(403);
    expect((await s.reroute('NO-SUCH-STATION')).status).toBe(404);
    expect((await s.reroute(s.station.code)).status).toBe(404);
    expect((await s.reroute(s.near.code, '0000000000000')).status).toBe(404);
    const bad = await s.terminal.api.post('/terminal/v1/deposit/reroute', {
      courierNo: s.courier.number,
      trackingNumber: s.parcel.tracking_number,
    });
    expect(bad.status).toBe(400);
    expect(await snapshot(s.parcel.id)).toBe(before);
  });

  it('serializes a reroute racing a deposit of the same parcel: exactly one wins', async () => {
    const s = await overflowScene();
    // A door frees up, so the deposit could succeed too.
    await stack.sql`delete from door_occupancy where station_id = ${s.station.id}`;
    const [deposit, reroute] = await Promise.all([
      s.terminal.api.post('/terminal/v1/deposit', {
        courierNo: s.courier.number,
        trackingNumber: s.parcel.tracking_number,
      }),
      s.reroute(s.near.code),
    ]);
    expect([deposit.status, reroute.status].sort()).toEqual([200, 404]);
    const [row] = await stack.sql<{ status: string; destination_station_id: string }[]>`
      select status, destination_station_id from shipments where id = ${s.parcel.id}`;
    if (deposit.status === 200) {
      expect(row).toEqual({ status: 'ready_for_pickup', destination_station_id: s.station.id });
      expect(await stack.webhookTypesOf(s.parcel.id)).toEqual(['shipment.ready_for_pickup']);
    } else {
      expect(row).toEqual({ status: 'booked', destination_station_id: s.near.id });
      expect(await stack.webhookTypesOf(s.parcel.id)).toEqual(['shipment.rerouted']);
    }
  });

  it('a deposit that read the parcel before a reroute moved it fills no door here', async () => {
    const s = await overflowScene();
    await stack.sql`delete from door_occupancy where station_id = ${s.station.id}`;
    // The reroute's commit, made while the deposit waits for this station's lock: the
    // deposit's first statement read the parcel as booked here before it got the lock.
    const hold = await stack.sql.reserve();
    try {
      await hold`begin`;
      await hold`select lock_station(${s.station.id})`;
      const deposit = s.terminal.api.post('/terminal/v1/deposit', {
        courierNo: s.courier.number,
        trackingNumber: s.parcel.tracking_number,
      });
      await untilWaitingForStationLock(stack.sql);
      await hold`update shipments set destination_station_id = ${s.near.id}
                  where id = ${s.parcel.id}`;
      await hold`commit`;
      expect((await deposit).status).toBe(404);
    } finally {
      hold.release();
    }
    const [row] = await stack.sql<{ status: string; destination_station_id: string }[]>`
      select status, destination_station_id from shipments where id = ${s.parcel.id}`;
    expect(row).toEqual({ status: 'booked', destination_station_id: s.near.id });
    const [occupied] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from door_occupancy where station_id = ${s.station.id}`;
    expect(occupied!.n).toBe(0);
  });

  it('two reroutes in opposite directions at once do not deadlock', async () => {
    const s = await overflowScene();
    const nearTerminal = await stack.terminal(s.near.code);
    // A parcel at Near bound the other way, with Near's doors all taken.
    await stack.sql`delete from door_occupancy where station_id = ${s.station.id}`;
    const back = await stack.shipment(s.org.id, s.near.id, { size: 'S' });
    const runs = await Promise.all([
      s.reroute(s.near.code),
      nearTerminal.api.post('/terminal/v1/deposit/reroute', {
        courierNo: s.courier.number,
        trackingNumber: back.tracking_number,
        stationCode: s.station.code,
      }),
    ]);
    for (const run of runs) expect([200, 409]).toContain(run.status);
  });
});
