import { describe, expect, it } from 'vitest';
import { type TestStack, useTestServer } from '../../test/harness';

// The write paths do their work in a few statements each (docs/decisions.md, "Write
// paths under load"): these are the races and failures such rewrites could get wrong.

const stack = useTestServer({ pickupCodeSecret: 'test-secret' });

const count = async (query: Promise<{ n: number }[]>) => (await query)[0]?.n;

/** Makes every event of the organization fail to record, until the returned undo. */
async function failEventsOf(organizationId: string) {
  const name = `fail_events_${organizationId.replaceAll('-', '')}`;
  await stack.sql.unsafe(`
    create function ${name}() returns trigger language plpgsql as $$
    begin
      if new.organization_id = '${organizationId}' then raise exception 'event refused'; end if;
      return new;
    end $$;
    create trigger ${name} before insert on events for each row execute function ${name}();`);
  return () => stack.sql.unsafe(`drop trigger ${name} on events; drop function ${name}();`);
}

describe('write paths', () => {
  it('deposits a parcel sent three times at once exactly once: one door, one code SMS, one event, then 404', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const second = await stack.terminal(scene.station.code);
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const answers = await Promise.all(
      [scene.terminal, second, scene.terminal].map((t) =>
        t.api.post('/terminal/v1/deposit', {
          courierNo: scene.courier.number,
          trackingNumber: parcel.tracking_number,
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404]);
    expect(
      await count(stack.sql`
        select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`),
    ).toBe(1);
    expect(
      await count(stack.sql`
        select count(*)::int as n from outbox where channel = 'sms' and shipment_id = ${parcel.id}`),
    ).toBe(1);
    expect(await stack.webhookTypesOf(parcel.id)).toEqual(['shipment.ready_for_pickup']);
  });

  it('confirms a collection sent twice at once once: one 200, one 404, one event, one receipt', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment } = await scene.deposit();
    const second = await stack.terminal(scene.station.code);
    const answers = await Promise.all(
      [scene.terminal, second].map((t) =>
        t.api.post('/terminal/v1/door/confirm', { shipmentId: shipment.id, collected: true }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.collected',
    ]);
    expect(
      await count(stack.sql`
        select count(*)::int as n from outbox
         where channel = 'sms' and shipment_id = ${shipment.id} and not (payload->>'carriesCode')::boolean`),
    ).toBe(1);
    expect(
      await count(stack.sql`
        select count(*)::int as n from door_occupancy where station_id = ${scene.station.id}`),
    ).toBe(0);
  });

  it('a deposit whose event cannot be recorded leaves nothing half-written, and its retry succeeds', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const { etag } = await cabinet(scene.terminal.api);
    const undo = await failEventsOf(scene.org.id);
    const deposit = () =>
      scene.terminal.api.post('/terminal/v1/deposit', {
        courierNo: scene.courier.number,
        trackingNumber: parcel.tracking_number,
      });
    try {
      expect((await deposit()).status).toBe(500);
    } finally {
      await undo();
    }
    const [row] = await stack.sql`
      select status, slot_no, pickup_code_hash from shipments where id = ${parcel.id}`;
    expect(row).toEqual({ status: 'booked', slot_no: null, pickup_code_hash: null });
    expect(
      await count(stack.sql`
        select count(*)::int as n from door_occupancy where shipment_id = ${parcel.id}`),
    ).toBe(0);
    expect(
      await count(
        stack.sql`select count(*)::int as n from outbox where shipment_id = ${parcel.id}`,
      ),
    ).toBe(0);
    expect((await cabinet(scene.terminal.api, etag)).status).toBe(304);

    const retried = await deposit();
    expect(retried.status).toBe(200);
    // The acting kiosk's next poll sees the door taken, never a stale 304.
    const after = await cabinet(scene.terminal.api, etag);
    expect(after.status).toBe(200);
    expect(after.body.doors.find((d: any) => d.position === retried.body.door)?.status).toBe(
      'occupied',
    );
  });

  it('a collection whose event cannot be recorded leaves the parcel in its door, code valid', async () => {
    const scene = await stack.scene('1:S');
    const { shipment, code } = await scene.deposit();
    const undo = await failEventsOf(scene.org.id);
    try {
      const answer = await scene.terminal.api.post('/terminal/v1/door/confirm', {
        shipmentId: shipment.id,
        collected: true,
      });
      expect(answer.status).toBe(500);
    } finally {
      await undo();
    }
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    expect(picked.body).toMatchObject({ ok: true, shipmentId: shipment.id });
    expect(
      await count(stack.sql`
        select count(*)::int as n from outbox
         where shipment_id = ${shipment.id} and channel = 'sms'`),
    ).toBe(1);
    expect(await stack.webhookTypesOf(shipment.id)).toEqual(['shipment.ready_for_pickup']);
  });

  it('a return deposit whose event cannot be recorded keeps the door held and the return open', async () => {
    const scene = await stack.scene('1:S,2:S');
    const shipment = await scene.collected();
    const started = await scene.terminal.api.post('/terminal/v1/return', {
      trackingNumber: shipment.tracking_number,
    });
    expect(started.status).toBe(200);
    const undo = await failEventsOf(scene.org.id);
    const confirm = () =>
      scene.terminal.api.post('/terminal/v1/return/confirm', {
        returnId: started.body.returnId,
        deposited: true,
      });
    try {
      expect((await confirm()).status).toBe(500);
    } finally {
      await undo();
    }
    const [held] = await stack.sql`
      select r.status, o.kind, sh.status as shipment_status
        from returns r join door_occupancy o on o.return_id = r.id join shipments sh on sh.id = r.shipment_id
       where r.id = ${started.body.returnId}`;
    expect(held).toEqual({
      status: 'open',
      kind: 'return_hold',
      shipment_status: 'return_started',
    });
    expect((await confirm()).status).toBe(200);
    expect((await confirm()).status).toBe(404);
  });
});

async function cabinet(
  api: Awaited<ReturnType<TestStack['terminal']>>['api'],
  etag?: string,
): Promise<{ status: number; etag: string; body: any }> {
  const answer = await api.get('/terminal/v1/cabinet', etag ? { 'if-none-match': etag } : {});
  return { status: answer.status, etag: answer.headers.get('etag') ?? '', body: answer.body };
}
