import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KioskState } from '@locker/kiosk';
import { client, waitFor } from '@locker/server/testing';
import { kioskScene, type KioskScene } from './fixture';
import { queuedReports, restart } from './restart';

// The kiosk core's door supervision against the real server and PostgreSQL, on the
// simulated cabinet with each fault a field technician meets (issue 31): wrong hook
// polarity, a door propped open with or without a parcel, a delayed unlock, a board
// losing power at the pulse, a gateway's slow reply bytes, a board swapped.

let k: KioskScene | undefined;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await k?.stop();
  k = undefined;
  for (const stop of stops.splice(0)) await stop();
});

const state = (): Promise<KioskState> => k!.core.getState();
const drained = () =>
  waitFor(async () => ((await state()).pendingReports === 0 ? true : undefined), 15_000);
const shipmentStatus = async (id: string) =>
  (await client(k!.stack.url, k!.scene.org.apiKey).get(`/api/v1/shipments/${id}`)).body
    .status as string;

interface DoorEventRow {
  kind: string;
  position: number | null;
  item_present: boolean | null;
  visit: string | null;
  cause: string | null;
  tracking_number: string | null;
  board: number | null;
}
/** The door events the service recorded for the scene's station, oldest first. */
const doorEvents = () => k!.stack.sql<DoorEventRow[]>`
  select kind, position, item_present, visit, cause, tracking_number, board
    from door_events where station_id = ${k!.scene.station.id} order by id`;
const eventsOf = (kind: string) =>
  waitFor(async () => {
    const rows = (await doorEvents()).filter((e) => e.kind === kind);
    return rows.length > 0 ? rows : undefined;
  }, 15_000);
const alerts = () => k!.stack.sql<{ kind: string; message: string }[]>`
  select kind, message from alerts where station_id = ${k!.scene.station.id} order by id`;
const doorOutOfService = async (position: number) =>
  (
    await k!.stack.sql`
      select out_of_service from doors
       where station_id = ${k!.scene.station.id} and position = ${position}`
  )[0]?.out_of_service as boolean;

/** Unlock requests that reached a board, counted from now. */
function countUnlocks(scene: KioskScene) {
  const pulses: number[] = [];
  scene.cabinet.on('unlock', (p: number) => pulses.push(p));
  return pulses;
}

/** A short close timeout: a door not seen shut within it is given up on. */
const QUICK = { doorCloseTimeoutSeconds: 1, doorWatchIntervalMs: 100 };

describe('a door already open at the unlock is not "opened"', () => {
  it('propped open with the parcel: nothing sent, found open with the sensor, never confirmed collected', async () => {
    k = await kioskScene('1:S,2:S', {}, QUICK);
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.propOpen(1, true);
    // Propped open with no one at it: the supervision reports it before anyone comes.
    const [propped] = await eventsOf('opened_unseen');
    expect(propped).toMatchObject({ position: 1, item_present: true, visit: null });
    const pulses = countUnlocks(k);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1, foundOpen: true });
    expect(pulses).toEqual([]);
    expect((await state()).session).toMatchObject({ door: 1, foundOpen: { itemPresent: true } });
    const [found] = await eventsOf('found_open');
    expect(found).toMatchObject({
      position: 1,
      item_present: true,
      visit: 'pickup',
      tracking_number: shipment.tracking_number,
    });
    // The customer takes the parcel; the door cannot be shut (propped): after the close
    // timeout the pickup is reported for the service to settle, never as collected.
    k.cabinet.setItem(1, false);
    const ended = await waitFor(async () => {
      const s = (await state()).session;
      return s?.phase === 'unsettled' ? s : undefined;
    });
    expect(ended).toMatchObject({ active: false, cause: 'found_open', itemPresent: false });
    const [unsettled] = await eventsOf('unsettled');
    expect(unsettled).toMatchObject({ cause: 'found_open', item_present: false, visit: 'pickup' });
    await drained();
    expect(await shipmentStatus(shipment.id)).toBe('ready_for_pickup');
    expect((await alerts()).map((a) => a.kind)).toEqual([
      'door_opened_unseen',
      'door_found_open',
      'door_unsettled',
    ]);
    // Never a door confirm: no `collected: true` on a timeout.
    expect(queuedReports(k.core.config.dataDir)).toEqual([]);
  });

  it('propped open and empty: never collected on a timeout, the door still standing open', async () => {
    k = await kioskScene('1:S', {}, QUICK);
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.propOpen(1, false);
    expect(await k.core.pickup(code)).toMatchObject({ kind: 'door_open', foundOpen: true });
    const [found] = await eventsOf('found_open');
    expect(found!.item_present).toBe(false);
    await eventsOf('unsettled');
    await drained();
    expect(k.cabinet.door(1).closed).toBe(false);
    expect(await shipmentStatus(shipment.id)).toBe('ready_for_pickup');
  });

  it('opened on its pulse but never shut: reported for the service to settle, not collected', async () => {
    k = await kioskScene('1:S', {}, QUICK);
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
    k.cabinet.setItem(1, false); // taken, but the door is left standing open
    const [unsettled] = await eventsOf('unsettled');
    expect(unsettled).toMatchObject({ cause: 'never_shut', item_present: false });
    expect((await state()).session).toMatchObject({ phase: 'unsettled', cause: 'never_shut' });
    await drained();
    expect(await shipmentStatus(shipment.id)).toBe('ready_for_pickup');
    // The session left the door open: the supervision does not report it again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await doorEvents()).filter((e) => e.kind === 'opened_unseen')).toEqual([]);
  });

  it('seen opening and then shut empty: collected, on evidence', async () => {
    k = await kioskScene('1:S', {}, QUICK);
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    k.cabinet.closeAfterOpen(1, 300, false);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
    await waitFor(async () => ((await state()).session?.phase === 'reported' ? true : undefined));
    await drained();
    expect(await shipmentStatus(shipment.id)).toBe('collected');
    expect(await doorEvents()).toEqual([]);
  });
});

describe('nothing opens unseen', () => {
  it('a door forced open while idle is reported at once, through the queue when the service is down', async () => {
    k = await kioskScene('1:S,2:S', {}, QUICK);
    k.cabinet.openDoor(2);
    const [forced] = await eventsOf('opened_unseen');
    expect(forced).toMatchObject({ position: 2, item_present: false, visit: null, cause: null });
    expect((await alerts()).map((a) => a.kind)).toEqual(['door_opened_unseen']);
    // Once, until it is seen shut again.
    k.cabinet.closeDoor(2);
    await k.stack.server.close();
    k.cabinet.setItem(1, true);
    k.cabinet.openDoor(1);
    const [queued] = await waitFor(() => {
      const rows = queuedReports(k!.core.config.dataDir);
      return rows.length > 0 ? rows : undefined;
    });
    expect(queued).toMatchObject({
      kind: 'door_event',
      body: { position: 1, kind: 'opened_unseen', itemPresent: true },
    });
    const revived = await restart(k.stack.url, k.stack.databaseUrl);
    stops.push(() => revived.close());
    await drained();
    const rows = await revived.sql<{ kind: string; position: number; occurred_at: Date }[]>`
      select kind, position, occurred_at from door_events
       where station_id = ${k.scene.station.id} order by id`;
    expect(rows.map((r) => [r.kind, r.position])).toEqual([
      ['opened_unseen', 2],
      ['opened_unseen', 1],
    ]);
    expect(rows[1]!.occurred_at.toISOString()).toBe(queued!.occurred_at);
  });

  it('a delayed unlock of 3 s: the fault is filed, and the door opening later is reported with its parcel', async () => {
    k = await kioskScene('1:S', {}, { doorWatchIntervalMs: 100 });
    // The boot check clears what commissioning did not record; the fault comes after it.
    await k.core.supervision.bootChecked;
    expect(k.cabinet.unlockDelayS[0]).toBe(0);
    k.cabinet.setUnlockDelay(0, 3);
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_failed', door: 1 });
    const [late] = await eventsOf('opened_unseen');
    expect(late).toMatchObject({
      position: 1,
      cause: 'after_fault',
      item_present: true,
      tracking_number: shipment.tracking_number,
    });
    const messages = (await alerts()).map((a) => a.message);
    expect(messages.some((m) => /door 1 did not open/.test(m))).toBe(true);
    expect(
      messages.some(
        (m) =>
          m.includes('reported as not opening, opened later') &&
          m.includes(shipment.tracking_number),
      ),
    ).toBe(true);
  });

  it('a delayed unlock left on a board is cleared at boot: the door opens on its pulse', async () => {
    k = await kioskScene(
      '1:S',
      {},
      { lock: { kind: 'simulator', boards: 1, faults: { unlockDelayS: 3 } } },
    );
    await waitFor(() => k!.cabinet.unlockDelayS[0] === 0);
    const { code } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
  });
});

describe('polarity and settings checked at boot', () => {
  it('every door reading open (wrong polarity): nothing opened on the board, reported, out of service', async () => {
    // The parcel is in door 1 before the kiosk boots: deposited after, it would race the
    // boot check's report, which takes every door out of service.
    let parcel!: Awaited<ReturnType<KioskScene['scene']['deposit']>>;
    k = await kioskScene(
      '1:S,2:S',
      {},
      {
        ...QUICK,
        lock: { kind: 'simulator', boards: 1, faults: { invertedHook: true } },
      },
      async ({ scene }) => {
        parcel = await scene.deposit();
      },
    );
    const { code, shipment } = parcel;
    const pulses = countUnlocks(k);
    const untrusted = await waitFor(async () => {
      const s = await state();
      return s.condition === 'doors_untrusted' ? s : undefined;
    });
    expect(untrusted.suspectDoors).toHaveLength(16);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_out_of_service', door: 1 });
    expect(pulses).toEqual([]);
    const [event] = await eventsOf('suspect_polarity');
    expect(event).toMatchObject({ board: 0 });
    await waitFor(async () => ((await doorOutOfService(1)) ? true : undefined));
    expect(await doorOutOfService(2)).toBe(true);
    await drained();
    // One report of the board, not one "opened" per door; the parcel stays recorded.
    expect((await doorEvents()).map((e) => e.kind)).toEqual(['suspect_polarity']);
    expect(await shipmentStatus(shipment.id)).toBe('ready_for_pickup');
  });

  it('a board swapped or reset to factory is reported with what differs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cabinet-'));
    const cabinetFile = path.join(dir, 'cabinet.json');
    writeFileSync(
      cabinetFile,
      JSON.stringify({
        boards: [0],
        boardSettings: { '0': { software: 1, hardware: 1, unlockTimeMs: 800, unlockDelayS: 0 } },
      }),
    );
    k = await kioskScene(
      '1:S',
      {},
      {
        cabinetFile,
        lock: { kind: 'simulator', faults: { version: [2, 1] } },
      },
    );
    const [event] = await eventsOf('board_changed');
    expect(event).toMatchObject({ board: 0 });
    const [alert] = (await alerts()).filter((a) => a.kind === 'board_changed');
    expect(alert!.message).toMatch(/software 2, commissioned with 1/);
    expect(alert!.message).toMatch(/pulses 550 ms, commissioned at 800 ms/);
    expect(await doorOutOfService(1)).toBe(false);
  });
});

describe('honest outcomes', () => {
  it('a board losing power at the pulse: unknown reaches the service as unknown, no fault, the door stays in service', async () => {
    k = await kioskScene('1:S', {}, QUICK);
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    k.cabinet.cutPowerOnNextPulse(0, 600);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_unknown', door: 1 });
    const [unknown] = await eventsOf('unlock_unknown');
    expect(unknown).toMatchObject({ position: 1, visit: 'pickup', item_present: null });
    // The board comes back with the door shut on the parcel: not collected, nothing more.
    await waitFor(async () => ((await state()).session?.phase === 'reported' ? true : undefined));
    await drained();
    expect(await doorOutOfService(1)).toBe(false);
    expect((await alerts()).map((a) => a.kind)).toEqual([]);
    expect(await shipmentStatus(shipment.id)).toBe('ready_for_pickup');
    // The healthy door opens for the same code.
    k.cabinet.closeAfterOpen(1, 200, false);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
    await waitFor(async () =>
      (await shipmentStatus(shipment.id)) === 'collected' ? true : undefined,
    );
  });

  it('30 ms between reply bytes (a gateway packing): the kiosk opens the door, one pulse', async () => {
    // Open 1.2 s (within a close timeout of 3 s): a status reply trickling 30 ms a byte
    // takes a few hundred milliseconds, and on a loaded machine a 400 ms opening could
    // end before the kiosk's first reply after the pulse arrived (seen once in CI).
    k = await kioskScene('1:S', {}, { ...QUICK, doorCloseTimeoutSeconds: 3 });
    const { code, shipment } = await k.scene.deposit();
    k.cabinet.setItem(1, true);
    k.cabinet.replyByteGapMs = 30;
    const pulses = countUnlocks(k);
    k.cabinet.closeAfterOpen(1, 1_200, false);
    expect(await k.core.pickup(code)).toEqual({ kind: 'door_open', door: 1 });
    await waitFor(
      async () => ((await shipmentStatus(shipment.id)) === 'collected' ? true : undefined),
      15_000,
    );
    expect(pulses).toEqual([1]);
    expect((await doorEvents()).map((e) => e.kind)).toEqual([]);
  });
});
