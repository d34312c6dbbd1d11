import { describe, expect, it } from 'vitest';
import { client, useTestServer, waitFor } from '../../test/harness';

const stack = useTestServer();

describe('undoing a deposit whose door was shut empty (extension)', () => {
  it('puts the parcel back to booked, frees the door, voids the code and tells the recipient to disregard it', async () => {
    const scene = await stack.scene('1:S,2:S');
    await stack.subscribeWebhooks(scene.org.id);
    const { shipment, door, code } = await scene.deposit({ language: 'sq' });
    const undo = {
      courierNo: scene.courier.number,
      trackingNumber: shipment.tracking_number,
    };
    expect((await scene.terminal.api.post('/terminal/v1/deposit/undo', undo)).body).toEqual({
      ok: true,
    });
    expect((await scene.terminal.api.post('/terminal/v1/deposit/undo', undo)).status).toBe(404);

    expect((await scene.terminal.api.post('/terminal/v1/pickup', { code })).status).toBe(401);
    const cabinet = await scene.terminal.api.get('/terminal/v1/cabinet');
    expect(cabinet.body.doors.map((d: { status: string }) => d.status)).toEqual([
      'available',
      'available',
    ]);
    const tracking = (
      await client(stack.url, scene.org.apiKey).get(`/api/v1/track/${shipment.tracking_number}`)
    ).body;
    expect(tracking.status).toBe('booked');
    expect(tracking.events.map((e: { status: string }) => e.status)).toEqual([
      'booked',
      'ready_for_pickup',
      'booked',
    ]);
    const notice = await waitFor(() =>
      stack.sentSms().find((m) => m.to === shipment.recipient_phone && !/\b\d{8}\b/.test(m.text)),
    );
    expect(notice.text).toContain('mos e merrni parasysh kodin');
    expect(notice.text).toContain(shipment.tracking_number);
    expect(await stack.webhookTypesOf(shipment.id)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.deposit_cancelled',
    ]);

    // Deposited again, properly this time: a new code, which opens the door.
    const again = await scene.terminal.api.post('/terminal/v1/deposit', undo);
    expect(again.body.door).toBe(door);
    const newCode = await waitFor(() => {
      const codes = stack
        .sentSms()
        .filter((m) => m.to === shipment.recipient_phone)
        .map((m) => /\b(\d{8})\b/.exec(m.text)?.[1])
        .filter(Boolean);
      return codes.length === 2 ? codes[1] : undefined;
    });
    expect(
      (await scene.terminal.api.post('/terminal/v1/pickup', { code: newCode })).body.door,
    ).toBe(door);
  });

  it('cancels a code SMS not yet tried, sending no notice', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    // As if the outbox had not reached it yet. The delivery that brought the code may still
    // be marking its row: let it finish first, or it would overwrite what follows.
    await stack.server.deliverNow();
    await stack.sql`
      update outbox set delivered_at = null, attempts = 0, next_attempt_at = now() + interval '1 hour'
       where shipment_id = ${shipment.id} and channel = 'sms'`;
    const sentBefore = stack.sentSms().filter((m) => m.to === shipment.recipient_phone).length;
    const answer = await scene.terminal.api.post('/terminal/v1/deposit/undo', {
      courierNo: scene.courier.number,
      trackingNumber: shipment.tracking_number,
    });
    expect(answer.status).toBe(200);
    const sms = await stack.sql`
      select failed_at is not null as cancelled, last_error from outbox
       where shipment_id = ${shipment.id} and channel = 'sms'`;
    // The only SMS of this parcel is the cancelled code: no notice was queued...
    expect(sms).toEqual([
      { cancelled: true, last_error: 'cancelled: the courier shut the door empty' },
    ]);
    // ...and, once the outbox has run, nothing more reached the recipient.
    await stack.server.deliverNow();
    expect(stack.sentSms().filter((m) => m.to === shipment.recipient_phone)).toHaveLength(
      sentBefore,
    );
  });

  it('undoes only the courier’s own parcel still awaiting pickup here', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment, code } = await scene.deposit();
    const other = await stack.courier('Besa Hoxha');
    const undo = (courierNo: string, trackingNumber = shipment.tracking_number) =>
      scene.terminal.api.post('/terminal/v1/deposit/undo', { courierNo, trackingNumber });
    expect((await undo('nobody')).body.code).toBe('courier_not_verified');
    expect((await undo(other.number)).status).toBe(404);
    expect((await undo(scene.courier.number, '0000000000000')).status).toBe(404);
    expect(
      (await scene.terminal.api.post('/terminal/v1/deposit/undo', { courierNo: 'x' })).body.code,
    ).toBe('invalid_request');
    const elsewhere = await stack.scene('1:S');
    expect(
      (
        await elsewhere.terminal.api.post('/terminal/v1/deposit/undo', {
          courierNo: scene.courier.number,
          trackingNumber: shipment.tracking_number,
        })
      ).status,
    ).toBe(404);
    // Nothing changed: the recipient's code still opens the door.
    expect((await scene.terminal.api.post('/terminal/v1/pickup', { code })).status).toBe(200);
  });
});
