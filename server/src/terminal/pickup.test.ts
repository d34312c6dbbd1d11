import { PickupResponseSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { useTestServer, waitFor, whileStationLocked } from '../../test/harness';

const stack = useTestServer();

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
const HOUR = 3_600_000;

type Scene = Awaited<ReturnType<typeof stack.scene>>;

/**
 * The parcel's collection confirmed while the station's lock is held by hand, its read
 * made (`whileStationLocked`); `meanwhile` changes something before the write.
 */
async function collectedWhileStationLocked(
  scene: Scene,
  shipmentId: string,
  meanwhile: Parameters<typeof whileStationLocked>[3],
) {
  const [answer] = await whileStationLocked(
    stack.sql,
    scene.station.id,
    [() => scene.terminal.api.post('/terminal/v1/door/confirm', { shipmentId, collected: true })],
    meanwhile,
  );
  return answer!;
}

/** The verifier worker's one write to a parcel's row after its deposit, waited for. */
const verifierWritten = (shipmentId: string) =>
  waitFor(async () => {
    const [row] = await stack.sql<{ made: boolean }[]>`
      select offline_verifier is not null as made from shipments where id = ${shipmentId}`;
    return row!.made;
  });

async function shipmentRow(id: string) {
  const [row] = await stack.sql`select * from shipments where id = ${id}`;
  return row!;
}

describe('POST /pickup', () => {
  it('names the door of a valid code and changes nothing', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment, door, code } = await scene.deposit();
    const answer = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    expect(answer.status).toBe(200);
    expect(PickupResponseSchema.parse(answer.body)).toEqual({
      ok: true,
      door,
      trackingNumber: shipment.tracking_number,
      shipmentId: shipment.id,
    });
    expect((await shipmentRow(shipment.id)).status).toBe('ready_for_pickup');
    expect((await scene.terminal.api.post('/terminal/v1/pickup', { code })).status).toBe(200);
  });

  it('answers wrong, foreign-station and already-collected codes with byte-identical 401s', async () => {
    const scene = await stack.scene('1:S,2:S');
    const other = await stack.scene('1:S');
    const collected = await scene.deposit();
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code: collected.code });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: picked.body.shipmentId,
      collected: true,
    });
    const foreign = await other.deposit();
    const wrong = collected.code === '00000000' ? '00000001' : '00000000';

    const headers = { 'X-Correlation-ID': 'same-id-for-all-three' };
    const answers = [];
    for (const code of [wrong, foreign.code, collected.code]) {
      const a = await scene.terminal.api.post('/terminal/v1/pickup', { code }, headers);
      answers.push({
        status: a.status,
        headers: [...a.headers].filter(([n]) => n !== 'date'),
        text: a.text,
      });
    }
    expect(answers[0]?.status).toBe(401);
    expect(JSON.parse(answers[0]!.text)).toMatchObject({
      code: 'invalid_code',
      correlation_id: 'same-id-for-all-three',
    });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('answers 400 for invalid JSON, a missing, empty or too long code, and unknown fields', async () => {
    const { terminal } = await stack.scene('1:S');
    const cases: [unknown, string][] = [
      ['{"code":', 'invalid_json'],
      [{}, 'invalid_request'],
      [{ code: '' }, 'invalid_request'],
      [{ code: '12345678901' }, 'invalid_request'],
      [{ code: 12345678 }, 'invalid_request'],
      [{ code: '12345678', door: 3 }, 'invalid_request'],
    ];
    for (const [body, code] of cases) {
      const answer = await terminal.api.post('/terminal/v1/pickup', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.code).toBe(code);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
    const tooLong = await terminal.api.post('/terminal/v1/pickup', { code: '12345678901' });
    expect(tooLong.body.errors).toEqual([
      expect.objectContaining({ field: 'code', code: 'too_big' }),
    ]);
  });

  it('limits a terminal to 10 attempts a minute, counts refused ones and sends Retry-After', async () => {
    const { terminal } = await stack.scene('1:S');
    const neighbour = await stack.terminal((await stack.station('1:S')).code);
    const statuses = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await terminal.api.post('/terminal/v1/pickup', { code: '99999999' })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    const limited = await terminal.api.post('/terminal/v1/pickup', { code: '99999999' });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The window keeps the last limit + 1 attempt times, however many were made.
    const [state] = await stack.sql<{ n: number }[]>`
      select cardinality(attempts) as n from rate_limit_windows
       where subject = ${terminal.id} and bucket = 'pickup'`;
    expect(state?.n).toBe(11);
    // The limit is per terminal: another terminal is not affected.
    expect((await neighbour.api.post('/terminal/v1/pickup', { code: '99999999' })).status).toBe(
      401,
    );
  });

  it('refuses even a valid code past the limit, and counts malformed attempts toward it', async () => {
    const scene = await stack.scene('1:S');
    const { code } = await scene.deposit();
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await scene.terminal.api.post('/terminal/v1/pickup', { code: 5 })).status);
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await scene.terminal.api.post('/terminal/v1/pickup', { code: '99999999' })).status,
      );
    expect(statuses).toEqual([...Array(5).fill(400), ...Array(5).fill(401)]);
    const refused = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    expect(refused.status).toBe(429);
    expect((await scene.terminal.api.post('/terminal/v1/pickup', { code: 5 })).status).toBe(429);
  });

  it('lets attempts through again once the oldest ones leave the sliding window', async () => {
    const { terminal } = await stack.scene('1:S');
    // Ten attempts made 50 s ago: the window holds 11 with the next one.
    await stack.sql`
      insert into rate_limit_windows (subject, bucket, attempts)
      select ${terminal.id}, 'pickup', array_agg(now() - interval '50 seconds')
        from generate_series(1, 10)`;
    const refused = await terminal.api.post('/terminal/v1/pickup', { code: '99999999' });
    expect(refused.status).toBe(429);
    // Nine of the 10 old attempts leave the window 10 s from now; then one more fits.
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(9);
    expect(wait).toBeLessThanOrEqual(11);
    await stack.sql`
      update rate_limit_windows
         set attempts = array(select t - interval '11 seconds' from unnest(attempts) t)
       where subject = ${terminal.id}`;
    expect((await terminal.api.post('/terminal/v1/pickup', { code: '99999999' })).status).toBe(401);
  });
});

describe('POST /pickup of a terminal whose station is gone', () => {
  it('counts its attempts: 500 each, then 429', async () => {
    const scene = await stack.scene('1:S');
    const orphan = await stack.terminal(scene.station.code);
    await stack.sql`update terminals set station_id = null where id = ${orphan.id}`;
    const statuses = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await orphan.api.post('/terminal/v1/pickup', { code: '123456' })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(500));
    expect(statuses[10]).toBe(429);
  });
});

describe('POST /door/confirm', () => {
  it('records the collection, frees the door and answers 404 to a repeat', async () => {
    const scene = await stack.scene('1:S');
    const { shipment, code } = await scene.deposit();
    const confirm = { shipmentId: shipment.id, collected: true };
    expect((await scene.terminal.api.post('/terminal/v1/door/confirm', confirm)).body).toEqual({
      ok: true,
    });
    const row = await shipmentRow(shipment.id);
    expect(row.status).toBe('collected');
    expect(row.pickup_code_hash).toBeNull();
    expect(row.collected_late).toBe(false);
    const [door] =
      await stack.sql`select count(*)::int as n from door_occupancy where shipment_id = ${shipment.id}`;
    expect(door?.n).toBe(0);

    const repeat = await scene.terminal.api.post('/terminal/v1/door/confirm', confirm);
    expect(repeat.status).toBe(404);
    expect(repeat.body.code).toBe('not_found');
    expect((await scene.terminal.api.post('/terminal/v1/pickup', { code })).status).toBe(401);
    const events =
      await stack.sql`select status from tracking_events where shipment_id = ${shipment.id} order by id`;
    expect(events.map((e) => e.status)).toEqual(['booked', 'ready_for_pickup', 'collected']);
  });

  it('collects a parcel confirmed twice at once, both read before the lock, once: one 200, one 404, one event, one receipt', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment } = await scene.deposit();
    const second = await stack.terminal(scene.station.code);
    const answers = await whileStationLocked(
      stack.sql,
      scene.station.id,
      [scene.terminal, second].map(
        (t) => () =>
          t.api.post('/terminal/v1/door/confirm', { shipmentId: shipment.id, collected: true }),
      ),
    );
    // Both read the parcel awaiting collection; the second to write found it changed,
    // read again and found it collected.
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.collected',
    ]);
    const [sent] = await stack.sql<{ receipts: number; doors: number }[]>`
      select (select count(*)::int from outbox
               where channel = 'sms' and shipment_id = ${shipment.id}
                 and not (payload->>'carriesCode')::boolean) as receipts,
             (select count(*)::int from door_occupancy where station_id = ${scene.station.id}) as doors`;
    expect(sent).toEqual({ receipts: 1, doors: 0 });
  });

  it("tells the merchant and the recipient of the parcel as it is at its collection, though it changed after the confirm's read", async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    const answer = await collectedWhileStationLocked(
      scene,
      shipment.id,
      (holder) => holder`
        update shipments set recipient_name = 'Zofia Nowicka' where id = ${shipment.id}`,
    );
    expect(answer.status).toBe(200);
    const [event] = await stack.sql<{ body: string }[]>`
      select body from events where shipment_id = ${shipment.id} and type = 'shipment.collected'`;
    const body = JSON.parse(event!.body) as { data: { shipment: Record<string, unknown> } };
    expect(body.data.shipment).toMatchObject({
      recipient_name: 'Zofia Nowicka',
      status: 'collected',
    });
    const [receipt] = await stack.sql<{ text: string }[]>`
      select payload->>'text' as text from outbox
       where channel = 'sms' and shipment_id = ${shipment.id}
         and not (payload->>'carriesCode')::boolean`;
    expect(receipt!.text).toContain('Zofia');
  });

  it("names the station as it is at the collection in the receipt, though it was renamed after the confirm's read", async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    // The verifier worker writes the parcel's row once after its deposit: done before the
    // confirm's read, so the rename is the only change between the read and the write.
    await verifierWritten(shipment.id);
    const answer = await collectedWhileStationLocked(
      scene,
      shipment.id,
      (holder) => holder`
        update stations set name = 'Paczkomat Rynek Główny' where id = ${scene.station.id}`,
    );
    expect(answer.status).toBe(200);
    const [receipt] = await stack.sql<{ text: string }[]>`
      select payload->>'text' as text from outbox
       where channel = 'sms' and shipment_id = ${shipment.id}
         and not (payload->>'carriesCode')::boolean`;
    expect(receipt!.text).toContain('Paczkomat Rynek Główny');
  });

  it("tells the merchant the station's code and cabinet as they are at the collection, though changed after the confirm's read", async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    // As above: the verifier worker's write to the parcel done before the confirm's read.
    await verifierWritten(shipment.id);
    const code = `${scene.station.code}-B`;
    const answer = await collectedWhileStationLocked(
      scene,
      shipment.id,
      (holder) => holder`
        update stations set code = ${code}, cabinet_sn = 'CAB-REPLACED'
         where id = ${scene.station.id}`,
    );
    expect(answer.status).toBe(200);
    const [event] = await stack.sql<{ body: string }[]>`
      select body from events where shipment_id = ${shipment.id} and type = 'shipment.collected'`;
    const body = JSON.parse(event!.body) as { data: { shipment: Record<string, unknown> } };
    expect(body.data.shipment).toMatchObject({
      destination_station_code: code,
      destination: { cabinet_sn: 'CAB-REPLACED', slot_no: 1 },
      status: 'collected',
    });
  });

  it('changes nothing when the parcel was not collected', async () => {
    const scene = await stack.scene('1:S');
    const { shipment, code } = await scene.deposit();
    const answer = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: shipment.id,
      collected: false,
    });
    expect(answer.body).toEqual({ ok: true });
    expect((await shipmentRow(shipment.id)).status).toBe('ready_for_pickup');
    expect((await scene.terminal.api.post('/terminal/v1/pickup', { code })).status).toBe(200);
  });

  it('answers 404 for a parcel of another station or an unknown id', async () => {
    const a = await stack.scene('1:S');
    const b = await stack.scene('1:S');
    const { shipment } = await a.deposit();
    for (const shipmentId of [shipment.id, '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d']) {
      const answer = await b.terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId,
        collected: true,
      });
      expect(answer.status).toBe(404);
    }
    expect((await shipmentRow(shipment.id)).status).toBe('ready_for_pickup');
  });

  it('records occurred_at as the collection time and judges the free-storage window on it', async () => {
    const scene = await stack.scene('1:S,2:S', { freeStorageHours: 24 });
    const onTime = await scene.deposit();
    const late = await scene.deposit();
    // Both booked 40 h and deposited 30 h ago; one collected 20 h ago (inside 24 h), one
    // just now (late).
    await stack.sql`update shipments set created_at = now() - interval '40 hours', deposited_at = now() - interval '30 hours', status_at = now() - interval '30 hours' where id in ${stack.sql([onTime.shipment.id, late.shipment.id])}`;
    const at = iso(20 * HOUR);
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: onTime.shipment.id,
      collected: true,
      occurred_at: at,
    });
    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: late.shipment.id,
      collected: true,
    });
    const a = await shipmentRow(onTime.shipment.id);
    expect(a.collected_at.toISOString()).toBe(at);
    expect(a.collected_late).toBe(false);
    expect((await shipmentRow(late.shipment.id)).collected_late).toBe(true);
    const [event] =
      await stack.sql`select occurred_at from tracking_events where shipment_id = ${onTime.shipment.id} and status = 'collected'`;
    expect(event?.occurred_at.toISOString()).toBe(at);
  });

  it('refuses occurred_at in the future, older than 7 days or without an offset, and changes nothing', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    const cases: [string, string][] = [
      [new Date(Date.now() + HOUR).toISOString(), 'occurred_at_out_of_range'],
      [iso(7 * 24 * HOUR + 60_000), 'occurred_at_out_of_range'],
      ['2026-11-20T10:00:00', 'invalid_request'],
      ['yesterday', 'invalid_request'],
    ];
    for (const [occurred_at, code] of cases) {
      const answer = await scene.terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId: shipment.id,
        collected: true,
        occurred_at,
      });
      expect(answer.status, occurred_at).toBe(400);
      expect(answer.body.code).toBe(code);
    }
    expect((await shipmentRow(shipment.id)).status).toBe('ready_for_pickup');
    const withOffset = new Date(Date.now() - HOUR).toISOString().replace('Z', '+00:00');
    const ok = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: shipment.id,
      collected: true,
      occurred_at: withOffset,
    });
    expect(ok.status).toBe(200);
  });

  it('answers 400 for a shipmentId that is not a UUID or a missing collected flag', async () => {
    const { terminal } = await stack.scene('1:S');
    expect(
      (await terminal.api.post('/terminal/v1/door/confirm', { shipmentId: 'abc', collected: true }))
        .status,
    ).toBe(400);
    expect(
      (
        await terminal.api.post('/terminal/v1/door/confirm', {
          shipmentId: '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d',
        })
      ).status,
    ).toBe(400);
  });
});
