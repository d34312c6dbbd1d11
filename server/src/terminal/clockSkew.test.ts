import { describe, expect, it } from 'vitest';
import { client, useTestServer } from '../../test/harness';

const stack = useTestServer();

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe("a parcel's history never runs backwards", () => {
  it('lists events in the order they happened, at the times reported; flags the clock; counts no negative storage time', async () => {
    const scene = await stack.scene('1:S');
    const parcel = await stack.shipment(scene.org.id, scene.station.id);
    // A kiosk whose clock is six days behind: deposited "6 days ago", collected "6.9 days ago".
    const deposited = await scene.terminal.api.post('/terminal/v1/deposit', {
      courierNo: scene.courier.number,
      trackingNumber: parcel.tracking_number,
      occurred_at: daysAgo(6),
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
    expect(tracking.body.events.map((e: { status: string }) => e.status)).toEqual([
      'booked',
      'ready_for_pickup',
      'collected',
    ]);
    expect(tracking.body.events[2].occurred_at).toBe(collectedAt);

    const [row] = await stack.sql<{ collected_late: boolean }[]>`
      select collected_late from shipments where id = ${parcel.id}`;
    expect(row?.collected_late).toBe(false);
    // Two skews from one terminal within the hour: one alert.
    const alerts = await stack.sql<{ kind: string; terminal_id: string }[]>`
      select kind, terminal_id from alerts where station_id = ${scene.station.id}`;
    expect(alerts).toEqual([{ kind: 'terminal_clock_skew', terminal_id: scene.terminal.id }]);
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
