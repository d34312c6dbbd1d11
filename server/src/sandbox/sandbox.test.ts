import { ShipmentSchema, WebhookEventSchema } from '@locker/shared';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createTerminal } from '../admin/commands';
import { client, useTestServer, waitFor } from '../../test/harness';
import { useWebhookReceiver } from '../../test/receiver';
import { createSandboxOrganization } from '../admin/sandbox';

const stack = useTestServer();
const hook = useWebhookReceiver();

async function sandbox() {
  const org = await createSandboxOrganization(stack.sql, `Sandbox shop ${Math.random()}`);
  const api = client(stack.url, org.apiKey);
  const { secret } = (await api.post('/api/v1/webhooks', { url: hook.url })).body;
  const station = org.stations[0]!;
  const ship = async (phone = '+38344123456') => {
    const answer = await api.post('/api/v1/shipments', {
      destination_station_id: station.id,
      parcel_size: 'M',
      recipient_name: 'Test Recipient',
      recipient_phone: phone,
      recipient_language: 'en',
    });
    expect(answer.status).toBe(201);
    return ShipmentSchema.parse(answer.body);
  };
  const step = (id: string, action: string) =>
    api.post(`/api/v1/sandbox/shipments/${id}/advance`, { action });
  /** The webhooks received for a shipment, verified, in event order. */
  const received = (id: string, count: number) =>
    waitFor(() => {
      const mine = hook.eventsOf(id);
      if (mine.length < count) return undefined;
      return mine
        .map((d) => WebhookEventSchema.parse(new Webhook(secret).verify(d.raw, d.headers)))
        .sort((a, b) => a.created_at.localeCompare(b.created_at));
    });
  return { org, api, station, ship, step, received };
}

describe('sandbox', () => {
  it('drives a shipment through every status with the same events and webhooks as the kiosk journey', async () => {
    const box = await sandbox();
    const parcel = await box.ship();
    const statuses = [];
    for (const action of [
      'deposit',
      'collect',
      'start_return',
      'deposit_return',
      'courier_collect',
    ]) {
      const answer = await box.step(parcel.id, action);
      expect(answer.status, action).toBe(200);
      statuses.push(ShipmentSchema.parse(answer.body).status);
    }
    expect(statuses).toEqual([
      'ready_for_pickup',
      'collected',
      'return_started',
      'returned_to_locker',
      'return_collected',
    ]);
    const sandboxEvents = await box.received(parcel.id, 5);

    // The same journey at a real station, driven by its kiosk's calls.
    const scene = await stack.scene('1:M,2:M');
    await client(stack.url, scene.org.apiKey).post('/api/v1/webhooks', { url: hook.url });
    const { shipment: real } = await scene.returned();
    await scene.takeOut(real.tracking_number);
    const kioskEvents = await waitFor(() => {
      const mine = hook.eventsOf(real.id).map((d) => d.event);
      return mine.length === 5
        ? mine.sort((a, b) => a.created_at.localeCompare(b.created_at))
        : undefined;
    });
    const story = (events: { type: string; data: { shipment: { status: string } } }[]) =>
      events.map((e) => `${e.type}:${e.data.shipment.status}`);
    expect(story(sandboxEvents)).toEqual(story(kioskEvents));
    expect(sandboxEvents[0]!.data.shipment.destination.slot_no).toBeGreaterThan(0);
  });

  it('reminds, expires and sends back an uncollected parcel, cancels a deposit, and texts nobody', async () => {
    const box = await sandbox();
    const late = await box.ship('+38344000001');
    for (const action of ['deposit', 'remind_free_storage_end', 'remind_expiry', 'expire']) {
      expect((await box.step(late.id, action)).status, action).toBe(200);
    }
    const again = await box.step(late.id, 'expire');
    expect(again.status).toBe(422);
    expect(again.body.errors[0]).toMatchObject({ field: 'action', code: 'not_allowed' });
    expect((await box.step(late.id, 'courier_collect')).body.status).toBe('return_collected');
    expect((await box.received(late.id, 5)).map((e) => e.type)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.free_storage_ending',
      'shipment.expiring',
      'shipment.expired',
      'shipment.return_collected',
    ]);

    const cancelled = await box.ship('+38344000002');
    await box.step(cancelled.id, 'deposit');
    const back = await box.step(cancelled.id, 'cancel_deposit');
    expect(back.body).toMatchObject({ status: 'booked', destination: { slot_no: null } });
    expect((await box.received(cancelled.id, 2)).map((e) => e.type)).toEqual([
      'shipment.ready_for_pickup',
      'shipment.deposit_cancelled',
    ]);

    // Pickup codes, reminders: queued like any other, and set aside unsent.
    const sms = await stack.sql<{ failed: boolean; last_error: string; attempts: number }[]>`
      select failed_at is not null as failed, last_error, attempts from outbox
       where channel = 'sms' and shipment_id in ${stack.sql([late.id, cancelled.id])}`;
    expect(sms.length).toBeGreaterThanOrEqual(4);
    for (const row of sms)
      expect(row).toEqual({ failed: true, last_error: 'sandbox: never sent', attempts: 0 });
    expect(stack.sentSms().filter((m) => m.to.startsWith('+38344000'))).toEqual([]);
  });

  it('keeps sandbox and live apart: no crossing destinations, no live parcel moved, no terminal, no step out of order', async () => {
    const box = await sandbox();
    const live = await stack.scene('1:M');
    const liveApi = client(stack.url, live.org.apiKey);
    const body = (station: string) => ({
      destination_station_id: station,
      parcel_size: 'S',
      recipient_name: 'X Y',
      recipient_phone: '+38344123456',
      recipient_language: 'sq',
    });
    const toSandbox = await liveApi.post('/api/v1/shipments', body(box.station.id));
    expect(toSandbox.status).toBe(422);
    expect(toSandbox.body.errors[0]).toMatchObject({
      field: 'destination_station_id',
      code: 'not_found',
    });
    const toLive = await box.api.post('/api/v1/shipments', body(live.station.id));
    expect(toLive.body.errors[0].code).toBe('not_found');

    const liveParcel = (await liveApi.post('/api/v1/shipments', body(live.station.id))).body;
    expect(
      (
        await liveApi.post(`/api/v1/sandbox/shipments/${liveParcel.id}/advance`, {
          action: 'deposit',
        })
      ).status,
    ).toBe(404);
    expect((await box.step(liveParcel.id, 'deposit')).status).toBe(404);
    await expect(createTerminal(stack.sql, box.station.code)).rejects.toThrow(/sandbox station/);
    expect((await liveApi.get('/api/v1/sandbox/stations')).body.data).toEqual([]);
    expect((await box.api.get('/api/v1/sandbox/stations')).body.data).toEqual([
      expect.objectContaining({ id: box.station.id, code: box.station.code }),
    ]);

    const parcel = await box.ship();
    const early = await box.step(parcel.id, 'collect');
    expect(early.status).toBe(422);
    expect(early.body.errors[0].message).toContain('a booked shipment cannot collect');
    const unknown = await box.step(parcel.id, 'teleport');
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].field).toBe('action');
    const [row] = await stack.sql`select status from shipments where id = ${parcel.id}`;
    expect(row?.status).toBe('booked');
  });
});
