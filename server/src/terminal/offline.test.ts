import { OfflineDepositsResponseSchema, OfflinePickupsResponseSchema } from '@locker/shared';
import { matchVerifiers, parseVerifier } from '@locker/shared/verifier';
import { describe, expect, it } from 'vitest';
import { client, useTestServer, waitFor, type Client } from '../../test/harness';

const stack = useTestServer();

/**
 * The station's set once it lists `n` parcels: the verifier worker makes each verifier
 * just after its deposit (verifierWorker.ts), so a parcel joins the set a moment later.
 */
const setOf = (terminal: { api: Client }, n: number) =>
  waitFor(async () => {
    const answer = await terminal.api.get('/terminal/v1/offline/pickups');
    return answer.status === 200 && answer.body.pickups.length === n ? answer : undefined;
  });

describe('GET /terminal/v1/offline/pickups', () => {
  it("lists the station's parcels awaiting pickup with a verifier of the code, never the code", async () => {
    const scene = await stack.scene('1:S,2:M,3:L', { maxStorageHours: 100 });
    const first = await scene.deposit();
    const second = await scene.deposit({ size: 'M' });
    // Another station's parcel is not in this station's set.
    const other = await stack.scene('1:S');
    const foreign = await other.deposit();

    const answer = await setOf(scene.terminal, 2);
    const set = OfflinePickupsResponseSchema.parse(answer.body);
    expect(set.pickups.map((p) => [p.shipmentId, p.door])).toEqual([
      [first.shipment.id, first.door],
      [second.shipment.id, second.door],
    ]);
    expect(answer.text).not.toContain(first.code);
    expect(answer.text).not.toContain(second.code);
    expect(answer.text).not.toContain(first.shipment.tracking_number);
    const [row] = await stack.sql<{ deposited_at: Date }[]>`
      select deposited_at from shipments where id = ${first.shipment.id}`;
    expect(Date.parse(set.pickups[0]!.collectUntil)).toBe(
      row!.deposited_at.getTime() + 100 * 3600_000,
    );

    const verifiers = set.pickups.map((p) => parseVerifier(p.verifier)!);
    expect(verifiers.every(Boolean)).toBe(true);
    // The station's key salts every verifier: one derivation checks a code against all.
    expect(new Set(verifiers.map((v) => v.group)).size).toBe(1);
    expect(await matchVerifiers(second.code, verifiers)).toEqual([1]);
    expect(await matchVerifiers(first.code, verifiers)).toEqual([0]);
    expect(await matchVerifiers(foreign.code, verifiers)).toEqual([]);
    // The same code at another station gives another verifier: a set is worthless elsewhere.
    const foreignSet = OfflinePickupsResponseSchema.parse((await setOf(other.terminal, 1)).body);
    expect(parseVerifier(foreignSet.pickups[0]!.verifier)!.group).not.toBe(verifiers[0]!.group);
  });

  it('answers an unchanged set 304 by its ETag, and a changed one anew', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { code } = await scene.deposit();
    const first = await setOf(scene.terminal, 1);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"pickups-/);
    const again = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': etag,
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');

    // Collected: the parcel leaves the set, and its verifier dies with its code.
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const changed = await scene.terminal.api.get('/terminal/v1/offline/pickups', {
      'if-none-match': etag,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.pickups).toEqual([]);
    const [row] = await stack.sql`
      select offline_verifier from shipments where id = ${picked.body.shipmentId}`;
    expect(row?.offline_verifier).toBeNull();
  });

  it('alerts operations when a collection is reported for a parcel the service handled otherwise', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment, door } = await scene.deposit();
    // The door reported jammed just after the deposit: the service undoes the deposit.
    await scene.terminal.api.post('/terminal/v1/door/fault', { position: door });
    const at = new Date(Date.now() - 60_000).toISOString();
    const confirm = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: shipment.id,
      collected: true,
      occurred_at: at,
    });
    expect(confirm.status).toBe(404);
    const alerts = await stack.sql<{ message: string }[]>`
      select message from alerts
       where kind = 'offline_pickup_conflict' and station_id = ${scene.station.id}`;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(shipment.tracking_number);
    expect(alerts[0]!.message).toContain(`collected at ${at.replace(/\.\d+Z$/, '')}`);
    expect(alerts[0]!.message).toContain('the service has it booked');

    // A plain repeat of a confirm that got through is no conflict.
    const again = await scene.deposit();
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code: again.code });
    for (let i = 0; i < 2; i++)
      await scene.terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId: picked.body.shipmentId,
        collected: true,
      });
    const [count] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from alerts where kind = 'offline_pickup_conflict'`;
    expect(count!.n).toBe(1);
  });
});

/** A kiosk's poll of its deposit set, holding `etag`. */
const poll = (terminal: { api: Client }, etag: string) =>
  terminal.api.get('/terminal/v1/offline/deposits', { 'if-none-match': etag });
/** The set's next answer to a kiosk holding `etag` once it is no longer a 304. */
const changedFrom = (terminal: { api: Client }, etag: string) =>
  waitFor(async () => {
    const answer = await poll(terminal, etag);
    return answer.status === 200 ? answer : undefined;
  });
/** The ETag the set settles on: the one a poll is answered 304 with. */
const settled = (terminal: { api: Client }, etag: string) =>
  waitFor(async () => {
    const answer = await poll(terminal, etag);
    if (answer.status === 304) return etag;
    etag = answer.headers.get('etag')!;
    return undefined;
  });
const unchanged = async (terminal: { api: Client }, etag: string) =>
  (await poll(terminal, etag)).status;

describe('GET /terminal/v1/offline/deposits', () => {
  it('lists the doors, the parcels expected (nothing personal) and verifiers of couriers who deposit here', async () => {
    const scene = await stack.scene('1:S,2:M,3:L');
    const { shipment: deposited } = await scene.deposit();
    const expected = await stack.shipment(scene.org.id, scene.station.id, {
      size: 'M',
      name: 'Drita Gashi Berisha',
      phone: '+38344123456',
    });
    // A courier who never deposited here is not in the set.
    const stranger = await stack.courier('Besnik Hoxha');
    const answer = await scene.terminal.api.get('/terminal/v1/offline/deposits');
    expect(answer.status).toBe(200);
    const set = OfflineDepositsResponseSchema.parse(answer.body);
    expect(set.doors).toEqual([
      { position: 1, size: 'S', free: false },
      { position: 2, size: 'M', free: true },
      { position: 3, size: 'L', free: true },
    ]);
    expect(set.expected).toEqual([{ trackingNumber: expected.tracking_number, size: 'M' }]);
    expect(answer.text).not.toMatch(/Drita|Berisha|\+383|Arben|Krasniqi/);
    expect(answer.text).not.toContain(deposited.tracking_number);
    expect(answer.text).not.toContain(scene.courier.number);
    const verifiers = set.couriers.map((v) => parseVerifier(v)!);
    expect(verifiers).toHaveLength(1);
    expect(await matchVerifiers(scene.courier.number, verifiers)).toEqual([0]);
    expect(await matchVerifiers(stranger.number, verifiers)).toEqual([]);

    const etag = answer.headers.get('etag')!;
    const same = await scene.terminal.api.get('/terminal/v1/offline/deposits', {
      'if-none-match': etag,
    });
    expect(same.status).toBe(304);
    await stack.shipment(scene.org.id, scene.station.id);
    // The booking reaches the service's kept set by notification, a moment after its commit.
    const changed = await changedFrom(scene.terminal, etag);
    expect(changed.body.expected).toHaveLength(2);
  });
});

describe('the deposit set kept in memory', () => {
  it('answers an unchanged poll without reading, and reads again after each change of what the set holds', async () => {
    const scene = await stack.scene('1:S,2:S,3:M,4:L');
    const { shipment: deposited } = await scene.deposit();
    const booked = await stack.shipment(scene.org.id, scene.station.id);
    // The booking's notice may arrive after the first read began: that read is not kept;
    // the set is kept once nothing changes.
    let etag = (await scene.terminal.api.get('/terminal/v1/offline/deposits')).headers.get('etag')!;

    // A change no notification announces (nothing in the service makes one: written here
    // to see what a poll reads): the parcel's depositor becomes a courier without a
    // verifier, whom a read would give one. The poll is answered from memory, the courier
    // left without one. (Tried again with another courier should a late notice of the
    // setup above land between: a read answers 200 and makes the verifier.)
    const stranger = await waitFor(async () => {
      etag = await settled(scene.terminal, etag);
      const courier = await stack.courier('Besnik Hoxha');
      await stack.sql`update shipments set deposited_by = ${courier.id} where id = ${deposited.id}`;
      const answer = await poll(scene.terminal, etag);
      const [unread] = await stack.sql<{ offline_verifier: string | null }[]>`
        select offline_verifier from couriers where id = ${courier.id}`;
      if (answer.status === 304 && unread!.offline_verifier === null) return courier;
      etag = answer.headers.get('etag') ?? etag;
      return undefined;
    });

    // Another station's booking leaves this station's set as it was.
    const elsewhere = await stack.scene('1:S');
    await stack.shipment(elsewhere.org.id, elsewhere.station.id);
    expect(await unchanged(scene.terminal, etag)).toBe(304);

    // A booking for this station (announced by its commit): read again, the stranger
    // given a verifier on the way.
    const another = await stack.shipment(scene.org.id, scene.station.id, { size: 'M' });
    let answer = await changedFrom(scene.terminal, etag);
    expect(
      answer.body.expected.map((p: { trackingNumber: string }) => p.trackingNumber).sort(),
    ).toEqual([booked.tracking_number, another.tracking_number].sort());
    const verifiers = answer.body.couriers.map((v: string) => parseVerifier(v)!);
    expect(await matchVerifiers(stranger.number, verifiers)).toEqual([0]);
    // Its answer made the stranger a verifier: the next poll finds the set as it was.
    etag = answer.headers.get('etag')!;
    expect(await unchanged(scene.terminal, etag)).toBe(304);

    // A booking cancelled.
    await stack.sql`update shipments set status = 'cancelled' where id = ${booked.id}`;
    answer = await changedFrom(scene.terminal, etag);
    expect(answer.body.expected).toEqual([{ trackingNumber: another.tracking_number, size: 'M' }]);
    etag = await settled(scene.terminal, answer.headers.get('etag')!);

    // A courier retired.
    await stack.sql`update couriers set active = false where id = ${stranger.id}`;
    answer = await changedFrom(scene.terminal, etag);
    expect(answer.body.couriers).toEqual([]);
    etag = await settled(scene.terminal, answer.headers.get('etag')!);

    // A deposit (no booking notice: the door it fills changes the cabinet version).
    const deposit = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: another.tracking_number,
    });
    expect(deposit.status).toBe(200);
    answer = await changedFrom(scene.terminal, etag);
    expect(answer.body.expected).toEqual([]);
    expect(
      answer.body.doors.find((d: { position: number }) => d.position === deposit.body.door),
    ).toMatchObject({ free: false });
    expect(answer.body.couriers).toHaveLength(1);
  });
});

describe('the deposit set’s couriers', () => {
  it('are those active who deposited here in the last 90 days: not elsewhere, not before, not retired', async () => {
    const scene = await stack.scene('1:S,2:S,3:S,4:S');
    const elsewhere = await stack.scene('1:S');
    const [recent, old, retired, away] = await Promise.all(
      ['Recent', 'Old', 'Retired', 'Away'].map((name) => stack.courier(name)),
    );
    // Parcels at the station (and one at another), each deposited by one courier at a time.
    const deposited = async (courierId: string, stationId: string, daysAgo: number) => {
      const parcel = await stack.shipment(scene.org.id, stationId);
      await stack.sql`
        update shipments set deposited_by = ${courierId},
                             deposited_at = now() - make_interval(days => ${daysAgo})
         where id = ${parcel.id}`;
    };
    await deposited(recent!.id, scene.station.id, 89);
    await deposited(old!.id, scene.station.id, 91);
    await deposited(retired!.id, scene.station.id, 1);
    await deposited(away!.id, elsewhere.station.id, 1);
    await stack.sql`update couriers set active = false where id = ${retired!.id}`;
    const answer = await scene.terminal.api.get('/terminal/v1/offline/deposits');
    expect(answer.status).toBe(200);
    const verifiers = OfflineDepositsResponseSchema.parse(answer.body).couriers.map((v) =>
      parseVerifier(v)!,
    );
    expect(verifiers).toHaveLength(1);
    expect(await matchVerifiers(recent!.number, verifiers)).toEqual([0]);
    for (const courier of [old!, retired!, away!])
      expect(await matchVerifiers(courier.number, verifiers), courier.name).toEqual([]);
  });
});

describe('POST /terminal/v1/offline/deposit', () => {
  const alertsOf = (stationId: string) =>
    stack.sql<{ message: string }[]>`
      select message from alerts where kind = 'offline_deposit_conflict' and station_id = ${stationId}`;

  it('records the deposit in the door the kiosk chose, at its time, and only then sends the code, once', async () => {
    const scene = await stack.scene('1:S,2:S,3:M');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    // Booked before the outage (the kiosk expected it): a time reported before the
    // booking would be clamped to the time of receipt (migration 013).
    await stack.sql`update shipments set status_at = now() - interval '1 hour' where id = ${parcel.id}`;
    await stack.sql`
      update tracking_events set occurred_at = now() - interval '1 hour' where shipment_id = ${parcel.id}`;
    const at = new Date(Date.now() - 30 * 60_000).toISOString();
    const body = {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      door: 3,
      occurred_at: at,
    };
    const answer = await scene.terminal.api.post('/terminal/v1/offline/deposit', body);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, door: 3, trackingNumber: parcel.tracking_number });
    const code = await stack.pickupCodeSentTo(parcel.recipient_phone);
    const [row] = await stack.sql<{ status: string; slot_no: number; deposited_at: Date }[]>`
      select status, slot_no, deposited_at from shipments where id = ${parcel.id}`;
    expect(row).toMatchObject({ status: 'ready_for_pickup', slot_no: 3 });
    expect(row!.deposited_at.toISOString()).toBe(at);
    // The code works, and the parcel is in the kiosk's set of verifiers now.
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    expect(picked.body.door).toBe(3);
    // A resend is a repeat: 404, nothing twice, no alert.
    const again = await scene.terminal.api.post('/terminal/v1/offline/deposit', body);
    expect(again.status).toBe(404);
    const [sms] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from outbox where channel = 'sms' and shipment_id = ${parcel.id}`;
    expect(sms!.n).toBe(1);
    expect(await alertsOf(scene.station.id)).toEqual([]);
  });

  it('alerts both stories and keeps the door from being booked twice when the service has that door taken', async () => {
    const scene = await stack.scene('1:S,2:S');
    const online = await scene.deposit();
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const answer = await scene.terminal.api.post('/terminal/v1/offline/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      door: online.door,
    });
    expect(answer.status).toBe(404);
    const [row] = await stack.sql`select status from shipments where id = ${parcel.id}`;
    expect(row?.status).toBe('booked');
    const alerts = await alertsOf(scene.station.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(
      `the kiosk reports it deposited by courier ${scene.courier.number} into door ${online.door}`,
    );
    expect(alerts[0]!.message).toContain(
      `the service has door ${online.door} holding ${online.shipment.tracking_number}`,
    );
    const [door] = await stack.sql`
      select out_of_service from doors where station_id = ${scene.station.id} and position = ${online.door}`;
    expect(door?.out_of_service).toBe(true);
    expect(stack.sentSms().some((m) => m.to === parcel.recipient_phone)).toBe(false);
  });

  it('frees the door it filled from another booking that reserved it: that parcel gets the rule’s door', async () => {
    const scene = await stack.scene('1:S,2:S');
    const booking = await client(stack.url, scene.org.apiKey).post('/api/v1/shipments', {
      destination_station_id: scene.station.id,
      parcel_size: 'S',
      recipient_name: 'Drita Gashi',
      recipient_phone: '+38344000111',
      recipient_language: 'sq',
      reserve_door: true,
    });
    expect(booking.status).toBe(201);
    const held = async () =>
      (
        await stack.sql<{ position: number }[]>`
          select d.position from door_reservations r join doors d on d.id = r.door_id
           where r.shipment_id = ${booking.body.id}`
      )[0]?.position;
    expect(await held()).toBe(1);
    // The kiosk, on its own, put another parcel in door 1 (it knew no reservation).
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const offline = await scene.terminal.api.post('/terminal/v1/offline/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      door: 1,
    });
    expect(offline.status).toBe(200);
    expect(offline.body.door).toBe(1);
    expect(await held()).toBeUndefined();
    // The booking's parcel, when it comes, goes into the door still free.
    const online = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: booking.body.tracking_number,
    });
    expect(online.status).toBe(200);
    expect(online.body.door).toBe(2);
  });

  it('alerts both stories when the parcel is no longer expected here, and takes its door out of service', async () => {
    const scene = await stack.scene('1:S,2:S');
    const elsewhere = await stack.station('1:S');
    const parcel = await stack.shipment(scene.org.id, elsewhere.id);
    const answer = await scene.terminal.api.post('/terminal/v1/offline/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      door: 2,
    });
    expect(answer.status).toBe(404);
    const alerts = await alertsOf(scene.station.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.message).toContain(
      `the service has the parcel booked for station ${elsewhere.code}`,
    );
    const cabinet = await scene.terminal.api.get('/terminal/v1/cabinet');
    expect(cabinet.body.doors[1]).toMatchObject({ position: 2, status: 'out_of_service' });
    // A second parcel's conflict at the same kiosk is an alert of its own (the lifecycle
    // would otherwise fold it into the first and keep only its story); a resend folds.
    const other = await stack.shipment(scene.org.id, elsewhere.id);
    const second = {
      courierNo: scene.courier.number,
      trackingNumber: other.tracking_number,
      door: 1,
    };
    expect((await scene.terminal.api.post('/terminal/v1/offline/deposit', second)).status).toBe(
      404,
    );
    expect((await scene.terminal.api.post('/terminal/v1/offline/deposit', second)).status).toBe(
      404,
    );
    const both = await alertsOf(scene.station.id);
    expect(both.map((a) => a.message.split(':')[0]).sort()).toEqual(
      [
        `parcel ${parcel.tracking_number} at ${scene.station.code}`,
        `parcel ${other.tracking_number} at ${scene.station.code}`,
      ].sort(),
    );
  });
});
