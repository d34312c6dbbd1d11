import { DepositResponseSchema } from '@locker/shared';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deactivateCourier, setDoorService } from '../admin/commands';
import {
  client,
  type TestStack,
  untilWaitingForLock,
  untilWaitingForStationLock,
  useTestServer,
  waitFor,
  whileStationLocked,
} from '../../test/harness';

const stack = useTestServer({ pickupCodeSecret: 'test-secret' });

type Scene = Awaited<ReturnType<TestStack['scene']>>;
type Holder = Awaited<ReturnType<TestStack['sql']['reserve']>>;

/**
 * A deposit sent while the station's lock is held by hand: `meanwhile` runs in the
 * holder's transaction once the deposit waits at the lock, which is then committed.
 */
async function depositWhileStationLocked(
  scene: Scene,
  trackingNumber: string,
  meanwhile: (holder: Holder) => Promise<void>,
) {
  const [answer] = await whileStationLocked(
    stack.sql,
    scene.station.id,
    [
      () =>
        scene.terminal.api.post('/terminal/v1/deposit', {
          courierNo: scene.courier.number,
          trackingNumber,
        }),
    ],
    meanwhile,
  );
  return answer!;
}

describe('POST /courier/verify', () => {
  it('greets an active courier by name and answers ok false with no reason otherwise', async () => {
    const { terminal, courier } = await stack.scene('1:S');
    const known = await terminal.api.post('/terminal/v1/courier/verify', {
      courierNo: courier.number,
    });
    expect(known.body).toEqual({ ok: true, courierName: courier.name });
    const unknown = await terminal.api.post('/terminal/v1/courier/verify', { courierNo: 'nobody' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ ok: false, courierName: null });
    await deactivateCourier(stack.sql, courier.number);
    const deactivated = await terminal.api.post('/terminal/v1/courier/verify', {
      courierNo: courier.number,
    });
    expect(deactivated.text).toBe(unknown.text);
  });

  it('answers 400 for an empty courier number', async () => {
    const { terminal } = await stack.scene('1:S');
    expect((await terminal.api.post('/terminal/v1/courier/verify', { courierNo: '' })).status).toBe(
      400,
    );
  });
});

describe('POST /deposit', () => {
  it('assigns the smallest free door the parcel fits, ties to the lowest position', async () => {
    const scene = await stack.scene('1:XL,2:L,3:M,4:M,5:-,6:S,7:M');
    await setDoorService(stack.sql, scene.station.code, 3, 'out');
    const doors = [];
    for (const size of ['M', 'M', 'M', 'S', 'S'] as const)
      doors.push((await scene.deposit({ size })).door);
    // M: 3 is out of service, so 4 then 7 then L (2); S: 6, then the next smallest free, XL (1).
    expect(doors).toEqual([4, 7, 2, 6, 1]);
  });

  it('answers 409 cabinet_full naming the size when every door large enough is occupied', async () => {
    const scene = await stack.scene('1:S,2:M,3:S');
    await scene.deposit({ size: 'M' });
    const parcel = await stack.shipment(scene.org.id, scene.station.id, { size: 'M' });
    const answer = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
    });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('cabinet_full');
    expect(answer.body.detail).toContain('M');
    expect(answer.body.parcel_size).toBe('M');
    const [row] = await stack.sql`select status from shipments where id = ${parcel.id}`;
    expect(row?.status).toBe('booked');
  });

  it('answers 403 courier_not_verified for an unknown or deactivated courier and deposits nothing', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const unknown = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: 'X-404',
      trackingNumber: parcel.tracking_number,
    });
    expect(unknown.status).toBe(403);
    expect(unknown.body.code).toBe('courier_not_verified');
    await deactivateCourier(stack.sql, scene.courier.number);
    const deactivated = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
    });
    expect(deactivated.status).toBe(403);
    const [row] = await stack.sql`select status from shipments where id = ${parcel.id}`;
    expect(row?.status).toBe('booked');
  });

  it('answers 404 for an unknown parcel, one bound for another station, and a repeat', async () => {
    const scene = await stack.scene('1:S,2:S');
    const elsewhere = await stack.station('1:S');
    const foreign = await stack.shipment(scene.org.id, elsewhere.id);
    const deposit = (trackingNumber: string) =>
      scene.terminal.api.post('/terminal/v1/deposit', {
        courierNo: scene.courier.number,
        trackingNumber,
      });
    expect((await deposit('0000000000000')).status).toBe(404);
    expect((await deposit(foreign.tracking_number)).status).toBe(404);
    const { shipment } = await scene.deposit();
    const repeat = await deposit(shipment.tracking_number);
    expect(repeat.status).toBe(404);
    expect(repeat.body.code).toBe('not_found');
    const [occupied] =
      await stack.sql`select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(occupied?.n).toBe(1);
  });

  it('sends the recipient an eight-digit code by SMS in their language and keeps only its keyed hash', async () => {
    const scene = await stack.scene('1:S,2:S,3:S,4:S');
    const texts: Record<string, RegExp> = {
      sq: /Përshëndetje Drita, pakoja \d{13} ju pret .* Kodi: \d{8}\..*72 orëve\. Kodi QR: http:\/\/localhost:\d+\/p\/[A-Za-z0-9]{16}$/,
      sr: /Zdravo Drita, paket \d{13} Vas čeka .* Kod: \d{8}\..*72 sata\. QR kod: http:\/\/localhost:\d+\/p\/[A-Za-z0-9]{16}$/,
      tr: /Merhaba Drita, \d{13} numaralı kargonuz .* Kod: \d{8}\..*72 saat içinde.* QR kod: http:\/\/localhost:\d+\/p\/[A-Za-z0-9]{16}$/,
      en: /Hello Drita, your parcel \d{13} is waiting .* pickup code is \d{8}\..*72 hours\..* http:\/\/localhost:\d+\/p\/[A-Za-z0-9]{16}$/,
    };
    for (const language of ['sq', 'sr', 'tr', 'en'] as const) {
      const { shipment, code } = await scene.deposit({ language });
      expect(code).toMatch(/^\d{8}$/);
      const sms = stack.sentSms().find((m) => m.to === shipment.recipient_phone);
      expect(sms?.language).toBe(language);
      expect(sms?.text).toMatch(texts[language]!);
      const [row] =
        await stack.sql`select pickup_code_hash from shipments where id = ${shipment.id}`;
      // HMAC-SHA256 of the code under the server's secret, computed here rather than by
      // the server's own function: a change to what is stored cannot pass unnoticed.
      const expected = createHmac('sha256', 'test-secret').update(code, 'utf8').digest();
      expect(Buffer.from(row!.pickup_code_hash).toString('hex')).toBe(expected.toString('hex'));
      // Once sent, the outbox keeps the text without the code.
      const outbox = await waitFor(async () => {
        const [o] = await stack.sql`
          select payload, delivered_at from outbox where channel = 'sms' and shipment_id = ${shipment.id}`;
        return o?.delivered_at ? o : undefined;
      });
      expect(outbox.payload.text).not.toContain(code);
      expect(outbox.payload.text).toContain('********');
    }
  });

  it('answers the documented shape and records occurred_at as the deposit time', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    // Booked a day ago (a deposit reported before its booking would be clamped: clockSkew.test.ts).
    await stack.sql`update shipments set created_at = now() - interval '1 day', status_at = now() - interval '1 day' where id = ${parcel.id}`;
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const answer = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      occurred_at: at,
    });
    expect(DepositResponseSchema.parse(answer.body)).toEqual({
      ok: true,
      door: 1,
      trackingNumber: parcel.tracking_number,
    });
    const [row] =
      await stack.sql`select deposited_at, slot_no from shipments where id = ${parcel.id}`;
    expect(row?.deposited_at.toISOString()).toBe(at);
    expect(row?.slot_no).toBe(1);
  });

  it('never sends two couriers to one door when many deposit at once', async () => {
    const doors = Array.from({ length: 20 }, (_, i) => `${i + 1}:S`).join(',');
    const scene = await stack.scene(doors);
    const second = await stack.terminal(scene.station.code);
    const parcels = await Promise.all(
      Array.from({ length: 30 }, () => stack.shipment(scene.org.id, scene.station.id)),
    );
    const answers = await Promise.all(
      parcels.map((p, i) =>
        (i % 2 ? second : scene.terminal).api.post('/terminal/v1/deposit', {
          courierNo: scene.courier.number,
          trackingNumber: p.tracking_number,
        }),
      ),
    );
    const ok = answers.filter((a) => a.status === 200);
    const full = answers.filter((a) => a.status === 409);
    expect(ok).toHaveLength(20);
    expect(full).toHaveLength(10);
    const assigned = ok.map((a) => a.body.door as number);
    expect(new Set(assigned).size).toBe(20);
    const [rows] =
      await stack.sql`select count(distinct door_id)::int as doors, count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(rows).toEqual({ doors: 20, n: 20 });
    // Parcel by parcel, as stored: each answered door holds that parcel and no other, each
    // deposit made one event and one code SMS, and the parcels turned away are untouched.
    const stored = await stack.sql<
      { id: string; status: string; slot_no: number | null; door: number | null; sms: number }[]
    >`
      select sh.id, sh.status, sh.slot_no, d.position as door,
             (select count(*)::int from outbox m
               where m.shipment_id = sh.id and m.channel = 'sms') as sms
        from shipments sh
        left join door_occupancy o on o.shipment_id = sh.id
        left join doors d on d.id = o.door_id
       where sh.id = any(${parcels.map((p) => p.id)}::uuid[])`;
    expect(stored).toHaveLength(30);
    for (const [i, answer] of answers.entries()) {
      const row = stored.find((r) => r.id === parcels[i]!.id)!;
      const events = await stack.webhookTypesOf(row.id);
      if (answer.status === 200) {
        expect(row).toMatchObject({ status: 'ready_for_pickup', door: answer.body.door, sms: 1 });
        expect(row.slot_no).toBe(answer.body.door);
        expect(events).toEqual(['shipment.ready_for_pickup']);
      } else {
        expect(row).toMatchObject({ status: 'booked', door: null, slot_no: null, sms: 0 });
        expect(events).toEqual([]);
      }
    }
  });

  it('chooses its door after the station lock is held: a door filled while it waited is not given', async () => {
    // The deposit sends its door choice with the lock (one write, issue 28); PostgreSQL
    // must run the choice once the lock is granted, so it sees what was committed while
    // it waited. Here the lock is held by hand while door 1 (the rule's choice) fills.
    const scene = await stack.scene('1:S,2:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const answer = await depositWhileStationLocked(
      scene,
      parcel.tracking_number,
      async (holder) => {
        const other = await stack.shipment(scene.org.id, scene.station.id);
        await holder`
        insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
        select d.id, d.station_id, 'delivery', ${other.id}, now()
          from doors d where d.station_id = ${scene.station.id} and d.position = 1`;
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.door).toBe(2);
    const occupied = await stack.sql<{ position: number; shipment_id: string }[]>`
      select d.position, o.shipment_id from door_occupancy o join doors d on d.id = o.door_id
       where o.station_id = ${scene.station.id} order by d.position`;
    expect(occupied.map((o) => o.position)).toEqual([1, 2]);
    expect(occupied[1]!.shipment_id).toBe(parcel.id);
  });
});

/**
 * A deposit in flight at the station, by hand, as the deposit path holds it (migration
 * 025): the station's lock in the deposits' mode, and door `position` filled with another
 * parcel, not committed. `done` commits it, `abandon` rolls it back.
 */
async function depositInFlight(scene: Scene, position: number) {
  const other = await stack.shipment(scene.org.id, scene.station.id);
  const holder = await stack.sql.reserve();
  await holder`begin`;
  await holder`select lock_station_shared(${scene.station.id})`;
  await holder`
    insert into door_occupancy (door_id, station_id, kind, shipment_id, since)
    select d.id, d.station_id, 'delivery', ${other.id}, now()
      from doors d where d.station_id = ${scene.station.id} and d.position = ${position}`;
  const end = (how: 'commit' | 'rollback') => async () => {
    try {
      await (how === 'commit' ? holder`commit` : holder`rollback`);
    } finally {
      holder.release();
    }
  };
  return { other, done: end('commit'), abandon: end('rollback') };
}

/** `promise`, or a failure naming `what` when it has not settled within 5 s. */
function within5s<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: still waiting after 5 s`)), 5000);
    }),
  ]).finally(() => clearTimeout(timer));
}

const cabinetVersion = async (stationId: string) =>
  BigInt(
    (
      await stack.sql<{ v: string }[]>`
        select cabinet_version::text as v from stations where id = ${stationId}`
    )[0]!.v,
  );

describe('deposits side by side at one station (issue 28)', () => {
  it('a deposit beside another in flight there passes over the door that one holds, and commits after it', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const before = await cabinetVersion(scene.station.id);
    const inFlight = await depositInFlight(scene, 1);
    let answer: ReturnType<typeof scene.terminal.api.post> | undefined;
    try {
      answer = scene.terminal.api.post('/terminal/v1/deposit', {
        courierNo: scene.courier.number,
        trackingNumber: parcel.tracking_number,
      });
      // Not held at the station's lock, which deposits share: its door chosen and filled
      // beside the other, it waits for that one's commit only to count its own fill in
      // the cabinet version (migration 028).
      await untilWaitingForLock(stack.sql, {
        // The deposit's statement (deposit.ts, `assignDoor`).
        query: 'with door as (',
        notOn: 'advisory',
      });
    } finally {
      await inFlight.done();
    }
    const answered = await within5s(answer, 'the deposit beside one in flight');
    expect(answered.status).toBe(200);
    expect(answered.body.door).toBe(2);
    const occupied = await stack.sql<{ position: number; shipment_id: string }[]>`
      select d.position, o.shipment_id from door_occupancy o join doors d on d.id = o.door_id
       where o.station_id = ${scene.station.id} order by d.position`;
    expect(occupied).toEqual([
      { position: 1, shipment_id: inFlight.other.id },
      { position: 2, shipment_id: parcel.id },
    ]);
    // Each door's fill counted once in the version.
    expect(await cabinetVersion(scene.station.id)).toBe(before + 2n);
    const doors = await stack.sql<{ position: number; occupied: boolean }[]>`
      select position, occupied from doors where station_id = ${scene.station.id} order by position`;
    expect(doors.map((d) => d.occupied)).toEqual([true, true, false]);
  });

  it('finding no door beside a deposit in flight, asks again alone: the door that one gives up is given', async () => {
    // The only door is held by a deposit that then rolls back (as a retry of a parcel, or
    // a deposit losing a race, gives its door up): "cabinet full" would be untrue.
    const scene = await stack.scene('1:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const inFlight = await depositInFlight(scene, 1);
    let answer;
    try {
      answer = scene.terminal.api.post('/terminal/v1/deposit', {
        courierNo: scene.courier.number,
        trackingNumber: parcel.tracking_number,
      });
      // Asking alone, it waits for the deposit in flight to end.
      await untilWaitingForStationLock(stack.sql);
    } finally {
      await inFlight.abandon();
    }
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(answered.body.door).toBe(1);
    // And with the door really taken, the answer is the documented 409.
    const next = await stack.shipment(scene.org.id, scene.station.id);
    const full = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: next.tracking_number,
    });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('cabinet_full');
  });

  it('a collection at the station waits for a deposit in flight, then runs', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const { shipment } = await scene.deposit();
    const inFlight = await depositInFlight(scene, 2);
    let confirmed: Awaited<ReturnType<typeof scene.terminal.api.post>> | undefined;
    const confirm = scene.terminal.api
      .post('/terminal/v1/door/confirm', { shipmentId: shipment.id, collected: true })
      .then((answer) => (confirmed = answer));
    try {
      await untilWaitingForStationLock(stack.sql);
      expect(confirmed).toBeUndefined();
    } finally {
      await inFlight.done();
    }
    expect((await confirm).status).toBe(200);
    const occupied = await stack.sql<{ position: number }[]>`
      select d.position from door_occupancy o join doors d on d.id = o.door_id
       where o.station_id = ${scene.station.id} order by d.position`;
    expect(occupied.map((o) => o.position)).toEqual([2]);
  });

  it('notes the version each commit made, with deposits beside it: the next poll sees the new grid', async () => {
    const doors = Array.from({ length: 8 }, (_, i) => `${i + 1}:S`).join(',');
    const scene = await stack.scene(doors);
    const second = await stack.terminal(scene.station.code);
    const before = await cabinetVersion(scene.station.id);
    const etag = (await second.api.get('/terminal/v1/cabinet')).headers.get('etag')!;
    const parcels = await Promise.all(
      Array.from({ length: 8 }, () => stack.shipment(scene.org.id, scene.station.id)),
    );
    const answers = await Promise.all(
      parcels.map((p) =>
        scene.terminal.api.post('/terminal/v1/deposit', {
          courierNo: scene.courier.number,
          trackingNumber: p.tracking_number,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const after = await cabinetVersion(scene.station.id);
    expect(after).toBe(before + 8n);
    const poll = await second.api.get('/terminal/v1/cabinet', { 'If-None-Match': etag });
    expect(poll.status).toBe(200);
    expect(poll.headers.get('etag')).toBe(`"${scene.station.id.slice(0, 8)}-${after}"`);
  });
});

describe("the deposit's event, recorded with its door (issue 28)", () => {
  const eventsOf = (shipmentId: string) =>
    stack.sql<{ body: string }[]>`
      select body from events where shipment_id = ${shipmentId} and type = 'shipment.ready_for_pickup'`;

  it('is the shipment as the merchant reads it, in the bytes JSON.stringify writes, whatever the recipient is called', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    await stack.subscribeWebhooks(scene.org.id);
    const api = client(stack.url, scene.org.apiKey);
    // Names holding the very text the statement writes its door and time into.
    const names = [
      'Drita "slot_no":-134217727 Gashi',
      'Ana {"updated_at":"1970-01-01T00:00:00.007Z"} Berisha',
      'Çelik \\"slot_no\\":1 Müller',
    ];
    for (const name of names) {
      const { shipment, door } = await scene.deposit({ name });
      const [event] = await eventsOf(shipment.id);
      expect(event).toBeDefined();
      expect(event!.body).toBe(JSON.stringify(JSON.parse(event!.body)));
      const parsed = JSON.parse(event!.body) as { data: { shipment: Record<string, unknown> } };
      const read = await api.get(`/api/v1/shipments/${shipment.id}`);
      expect(read.status).toBe(200);
      expect(parsed.data.shipment).toEqual(read.body);
      expect(parsed.data.shipment).toMatchObject({
        recipient_name: name,
        status: 'ready_for_pickup',
        destination: { slot_no: door },
      });
      // One delivery queued for the endpoint, of this event.
      const [queued] = await stack.sql<{ n: number }[]>`
        select count(*)::int as n from outbox
         where channel = 'webhook' and shipment_id = ${shipment.id}`;
      expect(queued!.n).toBe(1);
    }
  });

  it('notes the cabinet version its commit made, so the next poll sees the new grid', async () => {
    const scene = await stack.scene('1:S,2:S');
    const before = await scene.terminal.api.get('/terminal/v1/cabinet');
    await scene.deposit();
    const [station] = await stack.sql<{ cabinet_version: string }[]>`
      select cabinet_version::text from stations where id = ${scene.station.id}`;
    const after = await scene.terminal.api.get('/terminal/v1/cabinet', {
      'If-None-Match': before.headers.get('etag')!,
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).toBe(
      `"${scene.station.id.slice(0, 8)}-${station!.cabinet_version}"`,
    );
  });

  it('shows the parcel and its station as they are when the door is chosen, not as first read', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const code = `ST-R${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    // The deposit has read the parcel and waits for the lock; both change meanwhile.
    const answer = await depositWhileStationLocked(
      scene,
      parcel.tracking_number,
      async (holder) => {
        await holder`update shipments set recipient_name = 'Vjosa Renamed' where id = ${parcel.id}`;
        await holder`update stations set code = ${code} where id = ${scene.station.id}`;
      },
    );
    expect(answer.status).toBe(200);
    const events = await eventsOf(parcel.id);
    expect(events).toHaveLength(1);
    const parsed = JSON.parse(events[0]!.body) as { data: { shipment: Record<string, unknown> } };
    expect(parsed.data.shipment).toMatchObject({
      recipient_name: 'Vjosa Renamed',
      destination_station_code: code,
      destination: { slot_no: 1 },
    });
  });
});
