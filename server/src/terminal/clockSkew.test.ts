import { TrackingSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe("a parcel's history never runs backwards", () => {
  it('lists events in order, never before the booking, with the time reported beside; flags the clock', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    // A kiosk whose clock is six days behind: deposited "6 days ago", collected "6.9 days ago".
    const depositedAt = daysAgo(6);
    const deposited = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      occurred_at: depositedAt,
    });
    expect(deposited.status).toBe(200);
    const collectedAt = daysAgo(6.9);
    const confirm = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: parcel.id,
      collected: true,
      occurred_at: collectedAt,
    });
    expect(confirm.status).toBe(200);

    const tracking = await client(stack.url, scene.org.apiKey).get(
      `/api/v1/track/${parcel.tracking_number}`,
    );
    expect(TrackingSchema.parse(tracking.body)).toEqual(tracking.body);
    const events = tracking.body.events as {
      status: string;
      occurred_at: string;
      reported_at?: string;
    }[];
    expect(events.map((e) => e.status)).toEqual(['booked', 'ready_for_pickup', 'collected']);
    // Effective times: in order, none before the booking; the reported ones kept beside.
    const times = events.map((e) => Date.parse(e.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[1]).toBeGreaterThanOrEqual(new Date(parcel.created_at).getTime());
    expect(events[0]!.reported_at).toBeUndefined();
    expect(events[1]!.reported_at).toBe(depositedAt);
    expect(events[2]!.reported_at).toBe(collectedAt);
    // The shipment's own dates are the effective ones.
    const [row] = await stack.sql<
      { deposited_at: Date; collected_at: Date; collected_late: boolean }[]
    >`
      select deposited_at, collected_at, collected_late from shipments where id = ${parcel.id}`;
    expect(row!.deposited_at.toISOString()).toBe(events[1]!.occurred_at);
    expect(row!.collected_at.toISOString()).toBe(events[2]!.occurred_at);
    expect(row!.collected_late).toBe(false);
    // Two skews from one terminal within the hour: one alert.
    const alerts = await stack.sql<{ kind: string; terminal_id: string }[]>`
      select kind, terminal_id from alerts where station_id = ${scene.station.id}`;
    expect(alerts).toEqual([{ kind: 'terminal_clock_skew', terminal_id: scene.terminal.id }]);
  });

  it('judges a collection reported before its deposit on the effective times: late when it is', async () => {
    const scene = await stack.scene('1:S', { freeStorageHours: 24 });
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    const deposited = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
    });
    expect(deposited.status).toBe(200);
    // The parcel really went in 30 hours ago (booked 40 hours ago)...
    await stack.sql`
      update shipments set created_at = now() - interval '40 hours',
             deposited_at = now() - interval '30 hours', status_at = now() - interval '30 hours'
       where id = ${parcel.id}`;
    // ...and the kiosk, its clock now days behind, reports the collection before the deposit.
    const confirm = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: parcel.id,
      collected: true,
      occurred_at: daysAgo(5),
    });
    expect(confirm.status).toBe(200);
    const [row] = await stack.sql<{ collected_late: boolean; collected_at: Date }[]>`
      select collected_late, collected_at from shipments where id = ${parcel.id}`;
    // Collected at receipt, 30 hours after the deposit, past the 24 free hours.
    expect(Date.now() - row!.collected_at.getTime()).toBeLessThan(60_000);
    expect(row!.collected_late).toBe(true);
  });

  it('judges free storage from the booking when a deposit is reported before it', async () => {
    const scene = await stack.scene('1:S', { freeStorageHours: 72 });
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      occurred_at: daysAgo(6),
    });
    // Collected now: six days after the reported deposit, minutes after the booking.
    const confirm = await scene.terminal.api.post('/terminal/v1/door/confirm', {
      shipmentId: parcel.id,
      collected: true,
    });
    expect(confirm.status).toBe(200);
    const [row] = await stack.sql<{ collected_late: boolean }[]>`
      select collected_late from shipments where id = ${parcel.id}`;
    expect(row?.collected_late).toBe(false);
  });
});
