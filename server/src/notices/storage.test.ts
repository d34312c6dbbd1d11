import { describe, expect, it } from 'vitest';
import { AdminError, createStation } from '../admin/commands';
import { useTestServer, waitFor } from '../../test/harness';
import { sendStorageNotices } from './storage';

// The server's own sweep stays out of the way: each test runs it when it means to.
const stack = useTestServer({ sweepIntervalMs: 3_600_000 });

/** As if deposited `hours` ago. */
const depositedAgo = (id: string, hours: number) =>
  stack.sql`update shipments set deposited_at = now() - make_interval(hours => ${hours}) where id = ${id}`;

const smsTo = (phone: string) => stack.sentSms().filter((m) => m.to === phone);

describe('recipient notices and their merchant events', () => {
  it('sends the recipient a receipt in their language when the parcel is collected', async () => {
    const scene = await stack.scene('1:S');
    const shipment = await scene.collected({ language: 'tr', name: 'Elif Yılmaz' });
    const receipt = await waitFor(() =>
      smsTo(shipment.recipient_phone).find((m) => m.text.includes('teslim alındı')),
    );
    expect(receipt).toEqual({
      to: shipment.recipient_phone,
      language: 'tr',
      text: `Merhaba Elif, ${shipment.tracking_number} numaralı kargonuz Test Station kargo dolabından teslim alındı. Teşekkürler!`,
    });
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.collected',
    ]);
  });

  it('reminds before free storage ends and before expiry, once each, then reports the expiry; the code still works', async () => {
    const scene = await stack.scene('1:S', {
      freeStorageHours: 48,
      maxStorageHours: 96,
      freeStorageReminderHours: 24,
      expiryReminderHours: 12,
    });
    const { shipment, code } = await scene.deposit({ language: 'sq', name: 'Drita Gashi' });
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(0);

    await depositedAgo(shipment.id, 25);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(0);
    await waitFor(() => (smsTo(shipment.recipient_phone).length === 2 ? true : undefined));
    expect(smsTo(shipment.recipient_phone)[1]!.text).toBe(
      `Përshëndetje Drita, ruajtja falas e pakos suaj ${shipment.tracking_number} në stacionin e pakove Test Station përfundon pas 23 orësh. Ju lutemi tërhiqeni me kodin që ju dërguam. Keni nevojë për më shumë kohë? Hapni lidhjen në SMS-në me kodin që ta mbajmë 48 orë më gjatë (një herë).`,
    );

    await depositedAgo(shipment.id, 85);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    await waitFor(() => (smsTo(shipment.recipient_phone).length === 3 ? true : undefined));
    expect(smsTo(shipment.recipient_phone)[2]!.text).toContain('i kthehet dërguesit pas 11 orësh');

    await depositedAgo(shipment.id, 97);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(1);
    expect(await sendStorageNotices(stack.sql, shipment.id)).toBe(0);
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.free_storage_ending',
      'shipment.expiring',
      'shipment.expired',
    ]);
    // Expiry sends the recipient nothing more; until a courier takes it, the code works.
    expect(smsTo(shipment.recipient_phone)).toHaveLength(3);
    const picked = await scene.terminal.api.post('/terminal/v1/pickup', { code });
    expect(picked.status).toBe(200);
  });

  it('never sends a reminder late, and none for a station without reminders', async () => {
    const late = await stack.scene('1:S', { freeStorageHours: 48, maxStorageHours: 96 });
    const parcel = (await late.deposit()).shipment;
    await depositedAgo(parcel.id, 50); // free storage already over: no "ends in …"
    expect(await sendStorageNotices(stack.sql, parcel.id)).toBe(0);

    const quiet = await stack.scene('1:S', { freeStorageHours: 24, maxStorageHours: 24 });
    const other = (await quiet.deposit()).shipment;
    await depositedAgo(other.id, 23);
    expect(await sendStorageNotices(stack.sql, other.id)).toBe(0);
  });

  it('the station settings: 24 h before each deadline by default, inside the window or refused', async () => {
    const defaults = await createStation(stack.sql, {
      code: `R-${Date.now()}`,
      name: 'Defaults',
      doors: '1:S',
    });
    const [row] = await stack.sql`
      select free_storage_reminder_hours, expiry_reminder_hours from stations where id = ${defaults.id}`;
    expect(row).toEqual({ free_storage_reminder_hours: 24, expiry_reminder_hours: 24 });
    await expect(
      createStation(stack.sql, {
        code: `R2-${Date.now()}`,
        name: 'Too early',
        doors: '1:S',
        freeStorageHours: 12,
        freeStorageReminderHours: 12,
      }),
    ).rejects.toThrow(AdminError);
  });
});
