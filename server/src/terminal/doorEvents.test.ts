import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/harness';

const stack = useTestServer();

const alertsOf = async (stationId: string) =>
  stack.sql<{ kind: string; message: string }[]>`
    select kind, message from alerts where station_id = ${stationId} order by id`;

describe('POST /terminal/v1/doors/{door}/events (extension)', () => {
  it('records a door found open with its item sensor and the parcel, once per event id, and alerts', async () => {
    const scene = await stack.scene('1:S,2:S');
    const { shipment } = await scene.deposit();
    const event = {
      eventId: randomUUID(),
      kind: 'found_open',
      itemPresent: true,
      visit: 'pickup',
      trackingNumber: shipment.tracking_number,
      shipmentId: shipment.id,
    };
    const post = () => scene.terminal.api.post('/terminal/v1/doors/1/events', event);
    expect((await post()).body).toEqual({ ok: true });
    // A resend (the kiosk's queue after a crash) is recorded once, and alerts once.
    expect((await post()).body).toEqual({ ok: true });
    const rows = await stack.sql`
      select kind, position, item_present, visit, tracking_number from door_events
       where station_id = ${scene.station.id}`;
    expect(rows).toEqual([
      {
        kind: 'found_open',
        position: 1,
        item_present: true,
        visit: 'pickup',
        tracking_number: shipment.tracking_number,
      },
    ]);
    const alerts = await alertsOf(scene.station.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.kind).toBe('door_found_open');
    expect(alerts[0]!.message).toContain('door 1 was found open at a pickup');
    expect(alerts[0]!.message).toContain('something inside');
    // Nothing changes for the parcel: the service settles it.
    const [row] = await stack.sql`select status from shipments where id = ${shipment.id}`;
    expect(row?.status).toBe('ready_for_pickup');
  });

  it('names the parcel the service records in a door that opened after its fault', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    await scene.terminal.api.post('/terminal/v1/doors/1/events', {
      eventId: randomUUID(),
      kind: 'opened_unseen',
      itemPresent: true,
      visit: null,
      cause: 'after_fault',
      trackingNumber: shipment.tracking_number,
    });
    const [alert] = await alertsOf(scene.station.id);
    expect(alert?.kind).toBe('door_opened_unseen');
    expect(alert?.message).toMatch(/reported as not opening, opened later/);
    expect(alert?.message).toContain(`the service records parcel ${shipment.tracking_number}`);
  });

  it('records a silent board after the pulse without an alert, and an unsettled pickup with one', async () => {
    const scene = await stack.scene('1:S');
    const { shipment } = await scene.deposit();
    await scene.terminal.api.post('/terminal/v1/doors/1/events', {
      eventId: randomUUID(),
      kind: 'unlock_unknown',
      itemPresent: null,
      visit: 'pickup',
      shipmentId: shipment.id,
    });
    expect(await alertsOf(scene.station.id)).toEqual([]);
    await scene.terminal.api.post('/terminal/v1/doors/1/events', {
      eventId: randomUUID(),
      kind: 'unsettled',
      itemPresent: false,
      visit: 'pickup',
      cause: 'never_shut',
      shipmentId: shipment.id,
      trackingNumber: shipment.tracking_number,
    });
    const alerts = await alertsOf(scene.station.id);
    expect(alerts.map((a) => a.kind)).toEqual(['door_unsettled']);
    expect(alerts[0]!.message).toMatch(/never seen shut .*empty.*settle it/);
    const [door] = await stack.sql`
      select out_of_service from doors where station_id = ${scene.station.id} and position = 1`;
    expect(door?.out_of_service).toBe(false);
  });

  it('refuses a door the station lacks (404) and a malformed event (400), recording nothing', async () => {
    const scene = await stack.scene('1:S');
    const body = { eventId: randomUUID(), kind: 'opened_unseen', itemPresent: false, visit: null };
    expect((await scene.terminal.api.post('/terminal/v1/doors/7/events', body)).status).toBe(404);
    expect((await scene.terminal.api.post('/terminal/v1/doors/x/events', body)).status).toBe(404);
    const bad = await scene.terminal.api.post('/terminal/v1/doors/1/events', {
      ...body,
      kind: 'exploded',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_request');
    const [{ n }] = (await stack.sql`
      select count(*)::int as n from door_events where station_id = ${scene.station.id}`) as [
      { n: number },
    ];
    expect(n).toBe(0);
  });
});

describe('POST /terminal/v1/cabinet/events (extension)', () => {
  it('a board with a suspect polarity takes its doors out of service, once, with an alert', async () => {
    const scene = await stack.scene('1:S,2:S,3:S');
    const event = { eventId: randomUUID(), kind: 'suspect_polarity', board: 0, positions: [1, 2] };
    expect((await scene.terminal.api.post('/terminal/v1/cabinet/events', event)).body).toEqual({
      ok: true,
    });
    await scene.terminal.api.post('/terminal/v1/cabinet/events', event);
    const doors = await stack.sql`
      select position, out_of_service from doors where station_id = ${scene.station.id} order by position`;
    expect(doors).toEqual([
      { position: 1, out_of_service: true },
      { position: 2, out_of_service: true },
      { position: 3, out_of_service: false },
    ]);
    const [why] = await stack.sql`
      select out_of_service_reason, out_of_service_by from doors
       where station_id = ${scene.station.id} and position = 1`;
    expect(why?.out_of_service_reason).toMatch(/board 0: every door reads open/);
    expect(why?.out_of_service_by).toBe('terminal');
    const alerts = await alertsOf(scene.station.id);
    expect(alerts.map((a) => a.kind)).toEqual(['suspect_polarity']);
    expect(alerts[0]!.message).toMatch(/board 0 \(doors 1, 2\).*polarity/);
  });

  it('a board not as commissioned is an alert naming what differs', async () => {
    const scene = await stack.scene('1:S');
    await scene.terminal.api.post('/terminal/v1/cabinet/events', {
      eventId: randomUUID(),
      kind: 'board_changed',
      board: 0,
      positions: [1],
      differences: ['board 0 pulses 550 ms, commissioned at 800 ms: reset to factory or changed'],
    });
    const [alert] = await alertsOf(scene.station.id);
    expect(alert?.kind).toBe('board_changed');
    expect(alert?.message).toContain('reset to factory');
    const [door] = await stack.sql`
      select out_of_service from doors where station_id = ${scene.station.id}`;
    expect(door?.out_of_service).toBe(false);
  });
});
