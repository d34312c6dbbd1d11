import { StorageSchema } from '@locker/shared';
import { describe, expect, it } from 'vitest';
import { extendShipmentStorage, setStationBooking } from '../admin/placeCommands';
import { sendStorageNotices } from '../notices/storage';
import { client, useTestServer, waitFor } from '../../test/harness';

// The server's own sweep stays out of the way: each test runs it when it means to.
const stack = useTestServer({ sweepIntervalMs: 3_600_000 });

const HOUR = 3_600_000;
const depositedAgo = (id: string, hours: number) =>
  stack.sql`update shipments set deposited_at = now() - make_interval(hours => ${hours}) where id = ${id}`;

async function scene() {
  const s = await stack.scene('1:S', {
    freeStorageHours: 48,
    maxStorageHours: 96,
    freeStorageReminderHours: 24,
    expiryReminderHours: 12,
    supportPhone: '+383 38 200 200',
  });
  return { ...s, api: client(stack.url, s.org.apiKey) };
}

describe('POST /api/v1/shipments/{id}/extend', () => {
  it('extends free and maximum storage once by the station’s hours, with shipment.storage_extended', async () => {
    const s = await scene();
    const { shipment } = await s.deposit();
    const answer = await s.api.post(`/api/v1/shipments/${shipment.id}/extend`);
    expect(answer.status).toBe(200);
    const storage = StorageSchema.parse(answer.body);
    expect(storage).toMatchObject({ extended_hours: 48, extension_available: false });
    expect(Math.abs(Date.parse(storage.free_until) - Date.now() - 96 * HOUR)).toBeLessThan(60_000);
    expect(Math.abs(Date.parse(storage.expires_at) - Date.now() - 144 * HOUR)).toBeLessThan(60_000);
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.storage_extended',
    ]);
    const again = await s.api.post(`/api/v1/shipments/${shipment.id}/extend`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'not_extendable',
      detail: 'Not extended: its one extension was already taken.',
    });
  });

  it('moves the reminders and the expiry to the new deadlines', async () => {
    const s = await scene();
    const { shipment } = await s.deposit();
    // 95 hours in: it would expire within the hour; extended, free storage now ends at
    // 96 hours and expiry comes at 144: only the free-storage reminder is due.
    await depositedAgo(shipment.id, 95);
    expect((await s.api.post(`/api/v1/shipments/${shipment.id}/extend`)).status).toBe(200);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    expect((await stack.webhookTypesOf(shipment.id)).at(-1)).toBe('shipment.free_storage_ending');
    await depositedAgo(shipment.id, 133);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    expect((await stack.webhookTypesOf(shipment.id)).at(-1)).toBe('shipment.expiring');
    await depositedAgo(shipment.id, 144);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    expect((await stack.webhookTypesOf(shipment.id)).at(-1)).toBe('shipment.expired');
  });

  it('refuses a parcel not yet deposited, a station that grants none, and another organization’s parcel', async () => {
    const s = await scene();
    const booked = await stack.shipment(s.org.id, s.station.id);
    const early = await s.api.post(`/api/v1/shipments/${booked.id}/extend`);
    expect(early.body).toMatchObject({
      code: 'not_extendable',
      detail: expect.stringMatching(/is booked/),
    });
    await setStationBooking(stack.sql, s.station.code, { extensionHours: null });
    const { shipment } = await s.deposit();
    const none = await s.api.post(`/api/v1/shipments/${shipment.id}/extend`);
    expect(none.body.detail).toMatch(/grants no extension/);
    const stranger = client(stack.url, (await stack.org()).apiKey);
    expect((await stranger.post(`/api/v1/shipments/${shipment.id}/extend`)).status).toBe(404);
  });

  it('is granted by an operator too, and the reminder says how until it is taken', async () => {
    const s = await scene();
    const { shipment } = await s.deposit({ language: 'en', name: 'Drita Gashi' });
    await depositedAgo(shipment.id, 25);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    const reminder = await waitFor(() =>
      stack
        .sentSms()
        .find((m) => m.to === shipment.recipient_phone && m.text.includes('free storage')),
    );
    expect(reminder.text).toMatch(
      / Need more time\? Open the link in the SMS with your code to keep it 48 h longer \(once\), or call \+383 38 200 200\.$/,
    );
    const granted = await extendShipmentStorage(stack.sql, shipment.tracking_number);
    expect(granted).toMatchObject({ trackingNumber: shipment.tracking_number, extendedHours: 48 });
    // The reminders are due again against the new deadline, without the offer.
    await depositedAgo(shipment.id, 73);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    const second = await waitFor(() => {
      const texts = stack
        .sentSms()
        .filter((m) => m.to === shipment.recipient_phone && m.text.includes('free storage'));
      return texts.length === 2 ? texts[1] : undefined;
    });
    expect(second.text).not.toMatch(/Need more time/);
    await expect(extendShipmentStorage(stack.sql, shipment.tracking_number)).rejects.toThrow(
      /already taken/,
    );
  });
});
