import { ReturnResponseSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { client, useTestServer, whileStationLocked, type HttpAnswer } from '../../test/harness';

const stack = useTestServer();

type Scene = Awaited<ReturnType<typeof stack.scene>>;

/** Returns sent while the station's lock is held by hand, each read made (`whileStationLocked`). */
const returnsWhileStationLocked = (
  scene: Scene,
  sends: (() => Promise<HttpAnswer>)[],
  meanwhile?: Parameters<typeof whileStationLocked>[3],
) => whileStationLocked(stack.sql, scene.station.id, sends, meanwhile);

/** The kiosk's grid as its poll gets it with `etag`: the status, the new ETag, the body. */
async function gridOf(scene: Scene, etag: string) {
  const answer = await scene.terminal.api.get('/terminal/v1/cabinet', { 'if-none-match': etag });
  return { status: answer.status, etag: answer.headers.get('etag') ?? '', body: answer.body };
}

async function statusOf(id: string) {
  const [row] = await stack.sql`select status from shipments where id = ${id}`;
  return row?.status as string;
}

describe('POST /return', () => {
  it('holds the smallest free door for a collected parcel without recording the return', async () => {
    const scene = await stack.scene('1:S,2:S,3:M');
    const parcel = await scene.collected();
    const answer = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    expect(answer.status).toBe(200);
    const body = ReturnResponseSchema.parse(answer.body);
    expect(body).toMatchObject({ ok: true, door: 1, trackingNumber: parcel.tracking_number });
    const [ret] =
      await stack.sql`select status, deposited_at from returns where id = ${body.returnId}`;
    expect(ret).toEqual({ status: 'open', deposited_at: null });
    expect(await statusOf(parcel.id)).toBe('return_started');
  });

  it('resumes an open return with the same door and returnId', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const first = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    const again = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    expect(again.body).toEqual(first.body);
    const [held] =
      await stack.sql`select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(held?.n).toBe(1);
  });

  it('shows its held door on the kiosk’s grid at once; resumed with the door held, changes nothing there', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const grid = (etag: string) => gridOf(scene, etag);
    const before = await grid('"none"');
    const start = () =>
      scene.terminal.api.post('/terminal/v1/return', { trackingNumber: parcel.tracking_number });
    const started = await start();
    expect(started.status).toBe(200);
    // The version the return's commit made, read inside it, is the one the grid answers to:
    // the kiosk's old ETag brings the held door, the new one a 304.
    const after = await grid(before.etag);
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(before.etag);
    expect(
      after.body.doors.find((d: { position: number }) => d.position === started.body.door),
    ).toMatchObject({
      status: 'occupied',
    });
    expect((await grid(after.etag)).status).toBe(304);
    expect((await start()).body).toEqual(started.body);
    expect((await grid(after.etag)).status).toBe(304);
  });

  it('answers 409 cabinet_full and keeps the same returnId for the retry once a door is free', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const blocker = await scene.deposit();
    const blocker2 = await scene.deposit();
    const full = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('cabinet_full');
    expect(full.body.parcel_size).toBe(parcel.parcel_size);
    const [open] = await stack.sql`select id from returns where shipment_id = ${parcel.id}`;
    expect(open).toBeDefined();

    await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: blocker.shipment.id,
      collected: true,
    });
    const retry = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    expect(retry.status).toBe(200);
    expect(retry.body.returnId).toBe(open!.id);
    expect(retry.body.door).toBe(blocker.door);
    // Started once: the retry resumed it and recorded nothing more for the merchant.
    expect(await stack.webhookTypesOf(parcel.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.collected',
      'return.started',
    ]);
    void blocker2;
  });

  it("records return.started by the statement holding the door: the shipment as the merchant reads it, in JSON.stringify's bytes", async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    await stack.subscribeWebhooks(scene.org.id);
    const api = client(stack.url, scene.org.apiKey);
    // Names holding the very text the statement writes its door and time into.
    const names = ['Drita "slot_no":-134217727 Gashi', 'Ana {"updated_at":"1970-01-01"} Berisha'];
    for (const name of names) {
      const parcel = await scene.collected({ name });
      const answer = await scene.terminal.api.post('/terminal/v1/return', {
        trackingNumber: parcel.tracking_number,
      });
      expect(answer.status).toBe(200);
      const [event, ...more] = await stack.sql<{ body: string }[]>`
        select body from events where shipment_id = ${parcel.id} and type = 'return.started'`;
      expect(more).toEqual([]);
      expect(event!.body).toBe(JSON.stringify(JSON.parse(event!.body)));
      const parsed = JSON.parse(event!.body) as { data: { shipment: Record<string, unknown> } };
      const read = await api.get(`/api/v1/shipments/${parcel.id}`);
      expect(parsed.data.shipment).toEqual(read.body);
      expect(parsed.data.shipment).toMatchObject({
        recipient_name: name,
        status: 'return_started',
      });
      const [queued] = await stack.sql<{ n: number }[]>`
        select count(*)::int as n from outbox
         where channel = 'webhook' and shipment_id = ${parcel.id}
           and payload->>'type' = 'return.started'`;
      expect(queued!.n).toBe(1);
    }
  });

  it('answers 404 for a parcel not collected, of another station, unknown, or past the return window', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const other = await stack.scene('1:S');
    const notCollected = await scene.deposit();
    const foreign = await other.collected();
    const old = await scene.collected();
    await stack.sql`update shipments set collected_at = now() - interval '15 days' where id = ${old.id}`;
    for (const trackingNumber of [
      notCollected.shipment.tracking_number,
      foreign.tracking_number,
      '1234567890123',
      old.tracking_number,
    ]) {
      const answer = await scene.terminal.api.post('/terminal/v1/return', { trackingNumber });
      expect(answer.status, trackingNumber).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
    const ids = [notCollected.shipment.id, foreign.id, old.id];
    const [n] =
      await stack.sql`select count(*)::int as n from returns where shipment_id in ${stack.sql(ids)}`;
    expect(n?.n).toBe(0);
  });

  it('starts a return sent three times at once, each read before the lock, once: one return, one door, one event', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const second = await stack.terminal(scene.station.code);
    const parcel = await scene.collected();
    const answers = await returnsWhileStationLocked(
      scene,
      [scene.terminal, second, scene.terminal].map(
        (t) => () => t.api.post('/terminal/v1/return', { trackingNumber: parcel.tracking_number }),
      ),
    );
    // Each read found no return; the first to write started it, the others found the
    // parcel changed, read again and answered the door it holds, writing nothing.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(answers[2]!.body).toEqual(answers[0]!.body);
    const [held] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(held!.n).toBe(1);
    const [started] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from returns where shipment_id = ${parcel.id}`;
    expect(started!.n).toBe(1);
    expect(await stack.webhookTypesOf(parcel.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.collected',
      'return.started',
    ]);
  });

  it('reads again when the parcel changed between its read and its write: past its window now, 404 and nothing started', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const [answer] = await returnsWhileStationLocked(
      scene,
      [
        () =>
          scene.terminal.api.post('/terminal/v1/return', {
            trackingNumber: parcel.tracking_number,
          }),
      ],
      async (holder) => {
        await holder`update shipments set collected_at = now() - interval '15 days' where id = ${parcel.id}`;
      },
    );
    expect(answer!.status).toBe(404);
    expect(await statusOf(parcel.id)).toBe('collected');
    const [rows] = await stack.sql<{ returns: number; held: number }[]>`
      select (select count(*)::int from returns where shipment_id = ${parcel.id}) as returns,
             (select count(*)::int from door_occupancy where station_id = ${scene.station.id}) as held`;
    expect(rows).toEqual({ returns: 0, held: 0 });
    expect(await stack.webhookTypesOf(parcel.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.collected',
    ]);
  });

  it('resumes a return whose door was held by a resume beside it between its read and its write', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const parcel = await scene.collected();
    const start = () =>
      scene.terminal.api.post('/terminal/v1/return', { trackingNumber: parcel.tracking_number });
    const first = await start();
    // The customer walked away: the door released, the return left open for a retry.
    await scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: first.body.returnId,
      deposited: false,
    });
    const answers = await returnsWhileStationLocked(scene, [start, start]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    expect(answers[0]!.body.returnId).toBe(first.body.returnId);
    const [held] = await stack.sql<{ n: number }[]>`
      select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(held!.n).toBe(1);
  });

  it('limits a terminal to 20 return attempts a minute', async () => {
    const { terminal } = await stack.scene('1:S');
    const statuses = [];
    for (let i = 0; i < 21; i++)
      statuses.push(
        (await terminal.api.post('/terminal/v1/return', { trackingNumber: '1' })).status,
      );
    expect(statuses.slice(0, 20).every((s) => s === 404)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it('counts a malformed attempt against the limit too; past it even a valid return is refused and starts nothing', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await scene.collected();
    const statuses = [];
    for (let i = 0; i < 21; i++)
      statuses.push(
        (await scene.terminal.api.post('/terminal/v1/return', { trackingNumber: '' })).status,
      );
    expect(statuses.slice(0, 20).every((s) => s === 400)).toBe(true);
    expect(statuses[20]).toBe(429);
    const valid = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    expect(valid.status).toBe(429);
    expect(await statusOf(parcel.id)).toBe('collected');
    const [rows] = await stack.sql<{ returns: number; held: number }[]>`
      select (select count(*)::int from returns where shipment_id = ${parcel.id}) as returns,
             (select count(*)::int from door_occupancy where station_id = ${scene.station.id}) as held`;
    expect(rows).toEqual({ returns: 0, held: 0 });
  });

  it('counts the attempts of a terminal whose station is gone: 500 each, then 429', async () => {
    const scene = await stack.scene('1:S');
    const orphan = await stack.terminal(scene.station.code);
    await stack.sql`update terminals set station_id = null where id = ${orphan.id}`;
    const statuses = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await orphan.api.post('/terminal/v1/return', { trackingNumber: '1' })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(500));
    expect(statuses[20]).toBe(429);
  });
});

describe('POST /return/confirm', () => {
  it('records a deposited return once: the door holds a return parcel and a repeat is 404', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    // The return started an hour ago; the door shut on it ten minutes ago, reported now.
    await stack.sql`update shipments set status_at = now() - interval '1 hour' where id = ${parcel.id}`;
    const at = new Date(Date.now() - 600_000).toISOString();
    const confirm = { returnId: started.body.returnId, deposited: true, occurred_at: at };
    expect((await scene.terminal.api.post('/terminal/v1/return/confirm', confirm)).body).toEqual({
      ok: true,
    });
    expect(await statusOf(parcel.id)).toBe('returned_to_locker');
    const [occupancy] =
      await stack.sql`select kind from door_occupancy where shipment_id = ${parcel.id}`;
    expect(occupancy?.kind).toBe('return');
    const [event] =
      await stack.sql`select occurred_at from tracking_events where shipment_id = ${parcel.id} and status = 'returned_to_locker'`;
    expect(event?.occurred_at.toISOString()).toBe(at);

    expect((await scene.terminal.api.post('/terminal/v1/return/confirm', confirm)).status).toBe(
      404,
    );
    // A recorded return is not started again.
    expect(
      (
        await scene.terminal.api.post('/terminal/v1/return', {
          trackingNumber: parcel.tracking_number,
        })
      ).status,
    ).toBe(404);
  });

  it('records a return confirmed twice at once, both read before the lock, once; its event shows the parcel as it is then', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    const second = await stack.terminal(scene.station.code);
    const confirm = { returnId: started.body.returnId, deposited: true };
    const answers = await returnsWhileStationLocked(
      scene,
      [scene.terminal, second].map((t) => () => t.api.post('/terminal/v1/return/confirm', confirm)),
      // Written after both reads: the deposit that records must write what is now.
      (holder) => holder`
        update shipments set recipient_name = 'Zofia Nowicka' where id = ${parcel.id}`,
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    const events = await stack.sql<{ body: string }[]>`
      select body from events where shipment_id = ${parcel.id} and type = 'return.deposited'`;
    expect(events).toHaveLength(1);
    const body = JSON.parse(events[0]!.body) as { data: { shipment: Record<string, unknown> } };
    expect(body.data.shipment).toMatchObject({
      recipient_name: 'Zofia Nowicka',
      status: 'returned_to_locker',
    });
    const [occupancy] = await stack.sql<{ kind: string; n: number }[]>`
      select min(kind) as kind, count(*)::int as n from door_occupancy
       where station_id = ${scene.station.id}`;
    expect(occupancy).toEqual({ kind: 'return', n: 1 });
  });

  it('releases the door on deposited false and lets the customer retry the same return', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    const cancel = await scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: false,
    });
    expect(cancel.body).toEqual({ ok: true });
    const [held] =
      await stack.sql`select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`;
    expect(held?.n).toBe(0);
    expect(await statusOf(parcel.id)).toBe('return_started');
    const retry = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    expect(retry.body.returnId).toBe(started.body.returnId);
  });

  it('shows a released door available on the kiosk’s grid at once: its ETag before the release brings it, the new one a 304', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await scene.collected();
    const grid = (etag: string) => gridOf(scene, etag);
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    const held = await grid('"none"');
    const door = (g: typeof held) =>
      g.body.doors.find((d: { position: number }) => d.position === started.body.door);
    expect(door(held)).toMatchObject({ status: 'occupied' });
    const release = await scene.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: false,
    });
    expect(release.status).toBe(200);
    // The version the release's commit made, read in its transaction, is the one the grid
    // answers to.
    const after = await grid(held.etag);
    expect(after.status).toBe(200);
    expect(door(after)).toMatchObject({ status: 'available' });
    expect((await grid(after.etag)).status).toBe(304);
  });

  it('answers 404 to a return of another station and 400 to a malformed one', async () => {
    const scene = await stack.scene('1:S');
    const other = await stack.scene('1:S');
    const parcel = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: parcel.tracking_number,
    });
    const foreign = await other.terminal.api.post('/terminal/v1/return/confirm', {
      returnId: started.body.returnId,
      deposited: true,
    });
    expect(foreign.status).toBe(404);
    expect(
      (
        await scene.terminal.api.post('/terminal/v1/return/confirm', {
          returnId: 'x',
          deposited: true,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await scene.terminal.api.post('/terminal/v1/return/confirm', {
          returnId: started.body.returnId,
          deposited: 'yes',
        })
      ).status,
    ).toBe(400);
    expect(await statusOf(parcel.id)).toBe('return_started');
  });
});
