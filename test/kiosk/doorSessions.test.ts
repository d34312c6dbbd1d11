import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DoorPhaseName, KioskState } from '@locker/kiosk';
import { client, waitFor } from '@locker/server/testing';
import { kioskScene, type KioskScene } from './fixture';
import { restart, queuedReports } from './restart';

// The kiosk core against the real server and PostgreSQL, on the simulated cabinet: what
// happens at a door, without a screen.

let k: KioskScene | undefined;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await k?.stop();
  k = undefined;
  for (const stop of stops.splice(0)) await stop();
});

const state = (): Promise<KioskState> => k!.core.getState();
async function phase(expected: DoorPhaseName) {
  return waitFor(async () => ((await state()).session?.phase === expected ? state() : undefined));
}
const drained = () =>
  waitFor(async () => ((await state()).pendingReports === 0 ? true : undefined), 15_000);

/** Another parcel of size S for this station, and the door the service gives it (or why not). */
async function depositAnother(scene: KioskScene) {
  const parcel = await scene.stack.shipment(scene.scene.org.id, scene.scene.station.id);
  const answer = await scene.scene.terminal.api.post('/terminal/v1/deposit', {
    courierNo: scene.scene.courier.number,
    trackingNumber: parcel.tracking_number,
  });
  return answer.status === 200 ? (answer.body.door as number) : (answer.body.code as string);
}

async function returnOpen(doors = '1:S') {
  k = await kioskScene(doors);
  const parcel = await k.scene.collected();
  expect(await k.core.startReturn(parcel.tracking_number)).toEqual({ kind: 'door_open', door: 1 });
  await phase('open');
  return parcel;
}

const shipmentStatus = async (id: string) =>
  (await client(k!.stack.url, k!.scene.org.apiKey).get(`/api/v1/shipments/${id}`)).body
    .status as string;

describe('return cancel', () => {
  it('with the door open: take it out and close; the hold is released only once seen shut and empty', async () => {
    const parcel = await returnOpen();
    k!.cabinet.setItem(1, true); // the customer had put the parcel in
    expect(await k!.core.cancelReturn()).toEqual({ kind: 'take_out_and_close' });
    await phase('take_out_and_close');
    // The core has looked at the open door three more times (answered reads of its board,
    // whatever the poll interval) and still holds it.
    let reads = 0;
    const counted = () => reads++;
    k!.cabinet.on('answered', counted);
    await waitFor(() => reads >= 3, 15_000);
    k!.cabinet.off('answered', counted);
    // Still held while the door is open: the next courier does not get this door.
    expect(await depositAnother(k!)).toBe('cabinet_full');
    expect(queuedReports(k!.core.config.dataDir)).toEqual([]);

    k!.cabinet.closeDoor(1, false);
    const cancelled = await phase('cancelled');
    expect(cancelled.session).toMatchObject({ door: 1, kind: 'return', active: false });
    await drained();
    expect(await depositAnother(k!)).toBe(1);
    // Not returned: the return stays open for another try.
    expect(await shipmentStatus(parcel.id)).toBe('return_started');
  });

  it('shut with the parcel inside is no cancel: finishing records the return, the door stays the parcel’s', async () => {
    const parcel = await returnOpen();
    await k!.core.cancelReturn();
    k!.cabinet.closeDoor(1, true);
    await phase('closed_with_item_choice');
    expect(await k!.core.finishReturn()).toEqual({ kind: 'finished' });
    expect((await phase('reported')).session).toMatchObject({
      itemPresent: true,
      asExpected: true,
    });
    await drained();
    expect(await shipmentStatus(parcel.id)).toBe('returned_to_locker');
    expect(await depositAnother(k!)).toBe('cabinet_full');
  });

  it('shut with the parcel inside, reopened on request: one more pulse, then released once empty', async () => {
    await returnOpen();
    await k!.core.cancelReturn();
    k!.cabinet.closeDoor(1, true);
    await phase('closed_with_item_choice');
    const open = vi.spyOn(k!.core.hardware.board, 'open');
    expect(await k!.core.reopenReturn()).toEqual({ kind: 'reopened' });
    expect(open).toHaveBeenCalledTimes(1);
    expect(k!.cabinet.door(1).closed).toBe(false);
    await phase('take_out_and_close');
    k!.cabinet.closeDoor(1, false);
    await phase('cancelled');
    await drained();
    expect(await depositAnother(k!)).toBe(1);
  });

  it('is refused once the door is shut, and without a return', async () => {
    k = await kioskScene('1:S');
    expect(await k.core.cancelReturn()).toEqual({ kind: 'not_cancellable' });
    expect(await k.core.finishReturn()).toEqual({ kind: 'no_choice_pending' });
    const parcel = await k.scene.collected();
    await k.core.startReturn(parcel.tracking_number);
    k.cabinet.closeDoor(1, true);
    await phase('reported');
    expect(await k.core.cancelReturn()).toEqual({ kind: 'not_cancellable' });
    await drained();
    expect(await shipmentStatus(parcel.id)).toBe('returned_to_locker');
  });
});

describe('a door that fails', () => {
  it('an open that throws becomes a state, never a hanging screen or a second pulse', async () => {
    k = await kioskScene('1:S');
    const { code, shipment } = await k.scene.deposit();
    const open = vi
      .spyOn(k.core.hardware.board, 'open')
      .mockRejectedValue(new Error('port went away'));
    expect(await k.core.pickup(code)).toEqual({ kind: 'unavailable' });
    expect(open).toHaveBeenCalledTimes(1);
    expect((await state()).session).toMatchObject({ phase: 'did_not_open', active: false });
    await drained();
    // The parcel stays recorded in its door: the code still works once the door does.
    open.mockRestore();
    k.cabinet.setItem(1, true);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
    k.cabinet.closeDoor(1, false);
    await phase('reported');
    await drained();
    expect(await shipmentStatus(shipment.id)).toBe('collected');
  });

  it('a controller silent after the pulse: unknown, watched until it answers, never pulsed again', async () => {
    k = await kioskScene('1:S');
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    let pulses = 0;
    k.cabinet.on('unlock', () => {
      pulses++;
      k!.cabinet.setResponsive(0, false); // the board goes quiet the moment it pulses
    });
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_unknown', door: 1 });
    expect((await state()).session).toMatchObject({ phase: 'unknown', active: true });
    // The customer took the parcel and shut the door; then the board answers again.
    k.cabinet.closeDoor(1, false);
    k.cabinet.setResponsive(0, true);
    expect((await phase('reported')).session).toMatchObject({
      itemPresent: false,
      asExpected: true,
    });
    expect(pulses).toBe(1);
    await drained();
    expect(await shipmentStatus(shipment.id)).toBe('collected');
  });

  it('a watcher that throws ends the session, logged, and the kiosk goes on', async () => {
    k = await kioskScene('1:S');
    const { code } = await k.scene.deposit();
    vi.spyOn(k.core.hardware.board, 'watchClosed').mockRejectedValue(new Error('bus wedged'));
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
    await waitFor(async () => ((await state()).session?.active === false ? true : undefined));
    expect((await state()).session?.phase).toBe('open');
    expect(await k.core.readSensors()).toMatchObject({ kind: 'sensors' });
  });

  it('a fault found while the service drops is queued with its time and delivered when it is back', async () => {
    k = await kioskScene('1:S,2:S');
    k.cabinet.jam(1);
    const parcel = await k.stack.shipment(k.scene.org.id, k.scene.station.id);
    const board = k.core.hardware.board;
    const realOpen = board.open.bind(board);
    // The network drops the moment the door fails to open.
    vi.spyOn(board, 'open').mockImplementation(async (position) => {
      const result = await realOpen(position);
      await k!.stack.server.close();
      return result;
    });
    const before = Date.now();
    const answer = await k.core.deposit(k.scene.courier.number, parcel.tracking_number);
    expect(answer).toEqual({ kind: 'door_failed', door: 1 });
    const [fault] = queuedReports(k.core.config.dataDir);
    expect(fault).toMatchObject({ kind: 'door_fault', body: { position: 1 } });
    const failedAt = Date.parse(fault!.occurred_at);
    expect(failedAt).toBeGreaterThanOrEqual(before);
    expect(failedAt).toBeLessThanOrEqual(Date.now());

    const revived = await restart(k.stack.url, k.stack.databaseUrl);
    stops.push(() => revived.close());
    await drained();
    const [door] = await revived.sql`
      select out_of_service from doors d join stations s on s.id = d.station_id
       where s.id = ${k.scene.station.id} and d.position = 1`;
    expect(door?.out_of_service).toBe(true);
    const events = await revived.sql<{ status: string; occurred_at: Date }[]>`
      select status, occurred_at from tracking_events where shipment_id = ${parcel.id} order by id`;
    // The deposit into the jammed door was undone, as of when the door failed.
    expect(events.at(-1)?.status).toBe('booked');
    expect(events.at(-1)?.occurred_at.toISOString()).toBe(fault!.occurred_at);
  });
});
