import { describe, expect, it } from 'vitest';
import { useTestServer, waitFor } from '../../test/harness';

const stack = useTestServer();

describe('POST /terminal/v1/door/fault (extension)', () => {
  it('takes the door out of service and undoes the deposit just made into it, so a retry gets another door', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const deposit = () =>
      scene.terminal.api.post('/terminal/v1/deposit', {
        courierNo: scene.courier.number,
        trackingNumber: parcel.tracking_number,
      });
    expect((await deposit()).body.door).toBe(1);
    const fault = await scene.terminal.api.post('/terminal/v1/door/fault', { position: 1 });
    expect(fault.body).toEqual({ ok: true });
    const cabinet = await waitFor(async () => {
      const c = await scene.terminal.api.get('/terminal/v1/cabinet');
      return c.body.doors[0].status === 'out_of_service' ? c : undefined;
    }, 2000);
    expect(cabinet.body.doors[0]).toMatchObject({ status: 'out_of_service', parcel: null });
    const [row] =
      await stack.sql`select status, pickup_code_hash from shipments where id = ${parcel.id}`;
    expect(row).toEqual({ status: 'booked', pickup_code_hash: null });
    expect((await deposit()).body.door).toBe(2);
    const [alert] = await stack.sql`select kind from alerts where station_id = ${scene.station.id}`;
    expect(alert?.kind).toBe('door_fault');
  });

  it('keeps a parcel just deposited behind a door that will not close (it is inside), and says which problem', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment } = await scene.deposit();
    const fault = await scene.terminal.api.post('/terminal/v1/door/fault', {
      position: 1,
      problem: 'will_not_close',
    });
    expect(fault.body).toEqual({ ok: true });
    const [row] = await stack.sql`select status from shipments where id = ${shipment.id}`;
    expect(row?.status).toBe('ready_for_pickup');
    const [door] = await stack.sql`
      select d.out_of_service, o.shipment_id from doors d
        left join door_occupancy o on o.door_id = d.id
       where d.station_id = ${scene.station.id} and d.position = 1`;
    expect(door).toEqual({ out_of_service: true, shipment_id: shipment.id });
    const alerts =
      await stack.sql`select message from alerts where station_id = ${scene.station.id}`;
    expect(alerts.map((a) => a.message)).toEqual(['door 1 will not close; taken out of service']);
    const unknown = await scene.terminal.api.post('/terminal/v1/door/fault', {
      position: 2,
      problem: 'on_fire',
    });
    expect(unknown.status).toBe(400);
  });

  it('keeps an older parcel recorded in its door (it is physically inside) and 404s an unknown door', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    await stack.sql`update door_occupancy set since = now() - interval '1 hour' where shipment_id = ${shipment.id}`;
    expect((await scene.terminal.api.post('/terminal/v1/door/fault', { position: 1 })).status).toBe(
      200,
    );
    const [row] = await stack.sql`select status from shipments where id = ${shipment.id}`;
    expect(row?.status).toBe('ready_for_pickup');
    expect((await scene.terminal.api.post('/terminal/v1/door/fault', { position: 9 })).status).toBe(
      404,
    );
    expect(
      (await scene.terminal.api.post('/terminal/v1/door/fault', { position: 'one' })).status,
    ).toBe(400);
  });

  it('takes a fault reported late from when the door failed (occurred_at), within the 7-day range', async () => {
    const scene = await stack.scene('1:S,2:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
    });
    // Deposited two minutes ago, the door failing a minute later, reported now.
    await stack.sql`update shipments set status_at = now() - interval '2 minutes' where id = ${parcel.id}`;
    const failedAt = new Date(Date.now() - 60_000).toISOString();
    const late = await scene.terminal.api.post('/terminal/v1/door/fault', {
      position: 1,
      occurred_at: failedAt,
    });
    expect(late.body).toEqual({ ok: true });
    const events = await stack.sql<{ status: string; occurred_at: Date }[]>`
      select status, occurred_at from tracking_events where shipment_id = ${parcel.id} order by id`;
    expect(events.at(-1)?.status).toBe('booked');
    expect(events.at(-1)?.occurred_at.toISOString()).toBe(failedAt);
    const tooOld = await scene.terminal.api.post('/terminal/v1/door/fault', {
      position: 2,
      occurred_at: new Date(Date.now() - 8 * 24 * 3600_000).toISOString(),
    });
    expect(tooOld.status).toBe(400);
  });
});
