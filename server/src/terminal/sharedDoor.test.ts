import {
  DoorParcelsResponseSchema,
  OfflinePickupsResponseSchema,
  SharedDepositCheckResponseSchema,
  SharedDepositResponseSchema,
} from '@locker/shared';
import { matchVerifiers, parseVerifier, type ParsedVerifier } from '@locker/shared/verifier';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/harness';
import { samePerson } from './sharedDoor';

const stack = useTestServer();

const PERSON = { name: 'Drita Gashi', phone: '+38344555111' };

/** A scene whose courier deposited a first parcel for PERSON; `next` books the second. */
async function visit(doors = '1:M,2:M', first: { size?: 'S' | 'M' | 'L' } = {}) {
  const scene = await stack.scene(doors);
  // A number of its own: the harness finds a code by the number it was sent to.
  const person = {
    ...PERSON,
    phone: `+3834${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
  };
  const lead = await scene.deposit({ ...person, size: first.size ?? 'S' });
  const next = (options: Parameters<typeof stack.shipment>[2] = {}, orgId = scene.org.id) =>
    stack.shipment(orgId, scene.station.id, { ...person, ...options });
  const share = (trackingNumber: string, door = lead.door, courierNo = scene.courier.number) =>
    scene.terminal.api.post('/terminal/v1/deposit/shared', { courierNo, trackingNumber, door });
  const check = (trackingNumber: string, door = lead.door, courierNo = scene.courier.number) =>
    scene.terminal.api.post('/terminal/v1/deposit/shared/check', {
      courierNo,
      trackingNumber,
      door,
    });
  return { ...scene, person, lead, next, share, check };
}

async function statusOf(id: string) {
  const [row] = await stack.sql<{ status: string; slot_no: number | null }[]>`
    select status, slot_no from shipments where id = ${id}`;
  return row!;
}

async function doorRows(stationId: string) {
  return {
    occupancy:
      await stack.sql`select shipment_id from door_occupancy where station_id = ${stationId}`,
    shares: await stack.sql`select shipment_id from door_shares where station_id = ${stationId}`,
  };
}

describe('several parcels, one door, one code (issue 27)', () => {
  it('judges the same person by number and name, spacing and case aside', () => {
    expect(samePerson(PERSON, { name: ' drita  GASHI ', phone: '+383 44 555 111' })).toBe(true);
    expect(samePerson(PERSON, { name: 'Drita Gashi', phone: '+38344555112' })).toBe(false);
    expect(samePerson(PERSON, { name: 'Dritë Gashi', phone: PERSON.phone })).toBe(false);
  });

  it('a second parcel for the same person joins the door: one code SMS, its own events', async () => {
    const v = await visit();
    // Another shop's parcel for the same person may join too.
    const otherShop = await stack.org();
    const second = await v.next({}, otherShop.id);
    const checked = await v.check(second.tracking_number);
    expect(SharedDepositCheckResponseSchema.parse(checked.body)).toEqual({
      shareable: true,
      door: v.lead.door,
      parcelsInDoor: 1,
    });
    const joined = await v.share(second.tracking_number);
    expect(joined.status).toBe(200);
    expect(SharedDepositResponseSchema.parse(joined.body)).toEqual({
      ok: true,
      door: v.lead.door,
      trackingNumber: second.tracking_number,
      parcelsInDoor: 2,
    });
    expect(await statusOf(second.id)).toEqual({ status: 'ready_for_pickup', slot_no: v.lead.door });
    expect(await stack.webhookTypesOf(second.id)).toContain('shipment.ready_for_pickup');
    // The second parcel's SMS says where it is and never carries the code.
    const texts = await waitForSms(v.person.phone, 2);
    expect(texts.filter((t) => t.includes(v.lead.code))).toHaveLength(1);
    const joinedSms = texts.find((t) => t.includes(second.tracking_number))!;
    expect(joinedSms).toContain(v.lead.shipment.tracking_number);
    expect(joinedSms).not.toMatch(/\b\d{8}\b/);
    // The merchant's view of the second parcel holds no code either.
    const [events] = await stack.sql<{ body: string }[]>`
      select body::text from events where shipment_id = ${second.id}
       and type = 'shipment.ready_for_pickup'`;
    expect(events!.body).not.toContain(v.lead.code);

    // One code: the door opens once for both; each is confirmed on its own.
    const picked = await v.terminal.api.post('/terminal/v1/pickup', { code: v.lead.code });
    expect(picked.body).toMatchObject({ door: v.lead.door, shipmentId: v.lead.shipment.id });
    const inDoor = await v.terminal.api.post('/terminal/v1/pickup/door-parcels', {
      shipmentId: picked.body.shipmentId,
    });
    expect(DoorParcelsResponseSchema.parse(inDoor.body)).toEqual({
      door: v.lead.door,
      parcels: [
        { shipmentId: v.lead.shipment.id, trackingNumber: v.lead.shipment.tracking_number },
        { shipmentId: second.id, trackingNumber: second.tracking_number },
      ],
    });
    const confirm = (shipmentId: string) =>
      v.terminal.api.post('/terminal/v1/door/confirm', { shipmentId, collected: true });
    expect((await confirm(v.lead.shipment.id)).status).toBe(200);
    // Between the two confirms the door still holds the second parcel: never free.
    expect((await doorRows(v.station.id)).occupancy).toEqual([{ shipment_id: second.id }]);
    expect((await doorRows(v.station.id)).shares).toEqual([]);
    const stillThere = await v.terminal.api.post('/terminal/v1/pickup', { code: v.lead.code });
    expect(stillThere.body).toMatchObject({ door: v.lead.door, shipmentId: second.id });
    expect((await confirm(second.id)).status).toBe(200);
    expect((await confirm(second.id)).status).toBe(404);
    for (const id of [v.lead.shipment.id, second.id]) {
      expect((await statusOf(id)).status).toBe('collected');
      expect(await stack.webhookTypesOf(id)).toContain('shipment.collected');
    }
    expect(await doorRows(v.station.id)).toEqual({ occupancy: [], shares: [] });
    expect((await v.terminal.api.post('/terminal/v1/pickup', { code: v.lead.code })).status).toBe(
      401,
    );
  });

  it('collects a joined parcel first as well: the lead keeps the door until its own confirm', async () => {
    const v = await visit();
    const second = await v.next();
    expect((await v.share(second.tracking_number)).status).toBe(200);
    const confirm = (shipmentId: string) =>
      v.terminal.api.post('/terminal/v1/door/confirm', { shipmentId, collected: true });
    expect((await confirm(second.id)).status).toBe(200);
    expect(await doorRows(v.station.id)).toEqual({
      occupancy: [{ shipment_id: v.lead.shipment.id }],
      shares: [],
    });
    expect((await confirm(v.lead.shipment.id)).status).toBe(200);
    expect(await doorRows(v.station.id)).toEqual({ occupancy: [], shares: [] });
  });

  it('refuses another person, a parcel that does not fit, another courier: 409 and nothing changed', async () => {
    const v = await visit('1:S,2:M');
    const otherPhone = await v.next({ phone: '+38344555999' });
    const otherName = await v.next({ name: 'Drita Krasniqi' });
    const tooMuch = await v.next({ size: 'S' });
    const otherCourier = await stack.courier('Besnik Hoxha');
    const cases: [string, string, string?][] = [
      [otherPhone.tracking_number, 'other_recipient'],
      [otherName.tracking_number, 'other_recipient'],
      [tooMuch.tracking_number, 'does_not_fit'],
      [tooMuch.tracking_number, 'not_this_visit', otherCourier.number],
    ];
    const cabinet =
      await stack.sql`select cabinet_version from stations where id = ${v.station.id}`;
    for (const [tracking, reason, courierNo] of cases) {
      const answer = await v.share(tracking, v.lead.door, courierNo);
      expect(answer.status, reason).toBe(409);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body).toMatchObject({ code: 'door_not_shareable', reason });
      expect((await v.check(tracking, v.lead.door, courierNo)).body).toEqual({
        shareable: false,
        reason,
      });
    }
    // A door holding nothing of this visit (the empty door 2).
    expect((await v.share(tooMuch.tracking_number, 2)).body.reason).toBe('not_this_visit');
    for (const s of [otherPhone, otherName, tooMuch])
      expect(await statusOf(s.id)).toEqual({ status: 'booked', slot_no: null });
    expect(
      await stack.sql`select cabinet_version from stations where id = ${v.station.id}`,
    ).toEqual(cabinet);
    expect((await doorRows(v.station.id)).shares).toEqual([]);
    // A parcel not awaiting deposit here, an unknown courier.
    const elsewhere = await stack.scene('1:M');
    const foreign = await stack.shipment(elsewhere.org.id, elsewhere.station.id, PERSON);
    expect((await v.share(foreign.tracking_number)).status).toBe(404);
    expect((await v.share(tooMuch.tracking_number, v.lead.door, 'nobody')).status).toBe(403);
  });

  it('answers a retried join the same, recording it once', async () => {
    const v = await visit();
    const second = await v.next();
    const first = await v.share(second.tracking_number);
    const again = await v.share(second.tracking_number);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(
      (await stack.webhookTypesOf(second.id)).filter((t) => t === 'shipment.ready_for_pickup'),
    ).toHaveLength(1);
    const [sms] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from outbox where shipment_id = ${second.id} and channel = 'sms'`;
    expect(sms!.n).toBe(1);
  });

  it('a concurrent deposit never takes the shared door, and concurrent joins never overfill it', async () => {
    const v = await visit('1:M');
    const [b, c, d] = [await v.next(), await v.next(), await v.next()];
    const answers = await Promise.all([
      v.share(b.tracking_number),
      v.terminal.api.post('/terminal/v1/deposit', {
        courierNo: v.courier.number,
        trackingNumber: d.tracking_number,
      }),
      v.share(c.tracking_number),
    ]);
    // The deposit finds no free door: the shared one is occupied throughout.
    expect(answers[1].status).toBe(409);
    expect(answers[1].body.code).toBe('cabinet_full');
    // An M door holds two S parcels: one of the two joins, the other does not fit.
    expect([answers[0].status, answers[2].status].sort()).toEqual([200, 409]);
    const refused = answers[0].status === 409 ? answers[0] : answers[2];
    expect(refused.body.reason).toBe('does_not_fit');
    expect((await doorRows(v.station.id)).shares).toHaveLength(1);
  });

  it('a parcel that had reserved a door releases it when it joins another', async () => {
    const v = await visit('1:M,2:M');
    const second = await v.next();
    await stack.sql`
      insert into door_reservations (door_id, station_id, shipment_id, until)
      select d.id, d.station_id, ${second.id}, now() + interval '1 day'
        from doors d where d.station_id = ${v.station.id} and d.position = 2`;
    expect((await v.share(second.tracking_number)).status).toBe(200);
    expect(
      await stack.sql`select 1 from door_reservations where shipment_id = ${second.id}`,
    ).toEqual([]);
  });

  it('a door that would not open for the join undoes the joined parcel; it never stays behind', async () => {
    const v = await visit();
    const second = await v.next();
    expect((await v.share(second.tracking_number)).status).toBe(200);
    const fault = await v.terminal.api.post('/terminal/v1/door/fault', { position: v.lead.door });
    expect(fault.status).toBe(200);
    expect(await statusOf(second.id)).toEqual({ status: 'booked', slot_no: null });
    expect(await stack.webhookTypesOf(second.id)).toContain('shipment.deposit_cancelled');
    const [row] = await stack.sql`select joined_door from shipments where id = ${second.id}`;
    expect(row!.joined_door).toBe(false);
    expect((await doorRows(v.station.id)).shares).toEqual([]);
  });

  it('an expired lead taken out by a courier hands the door to the parcel that joined it', async () => {
    const v = await visit();
    const second = await v.next();
    expect((await v.share(second.tracking_number)).status).toBe(200);
    await stack.sql`
      update shipments set deposited_at = now() - interval '30 days'
       where id = ${v.lead.shipment.id}`;
    expect((await v.takeOut(v.lead.shipment.tracking_number)).status).toBe(200);
    expect(await doorRows(v.station.id)).toEqual({
      occupancy: [{ shipment_id: second.id }],
      shares: [],
    });
    // Its code still opens the door for it.
    const picked = await v.terminal.api.post('/terminal/v1/pickup', { code: v.lead.code });
    expect(picked.body).toMatchObject({ door: v.lead.door, shipmentId: second.id });
  });

  it('the offline set holds each parcel of the door: one code verifies both', async () => {
    const v = await visit();
    const second = await v.next();
    expect((await v.share(second.tracking_number)).status).toBe(200);
    const set = OfflinePickupsResponseSchema.parse(
      (await v.terminal.api.get('/terminal/v1/offline/pickups')).body,
    );
    expect(set.pickups.map((p) => [p.shipmentId, p.door]).sort()).toEqual(
      [
        [v.lead.shipment.id, v.lead.door],
        [second.id, v.lead.door],
      ].sort(),
    );
    const verifiers = set.pickups.map((p) => parseVerifier(p.verifier)) as ParsedVerifier[];
    expect(await matchVerifiers(v.lead.code, verifiers)).toEqual([0, 1]);
  });
});

/** The texts sent to `phone`, once `count` of them went out. */
async function waitForSms(phone: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const texts = stack
      .sentSms()
      .filter((m) => m.to === phone)
      .map((m) => m.text);
    if (texts.length >= count || Date.now() > deadline) return texts;
    await new Promise((r) => setTimeout(r, 100));
  }
}
