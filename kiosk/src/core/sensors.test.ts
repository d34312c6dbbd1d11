import type { LockBoard } from '@locker/lock-driver';
import type { Door } from '@locker/shared';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { KioskConfigSchema } from './config';
import { KioskStateStore } from './kioskState';
import { connectCabinet, type CabinetHardware } from './lock';
import { mismatchOf, readController } from './sensors';

const silentLog = pino({ level: 'silent' });
const parcel = { trackingNumber: 'T1', recipientFirstName: 'Ana', kind: 'delivery' as const };
const door = (position: number, status: Door['status'], withParcel = false): Door => ({
  position,
  code: null,
  size: 'S',
  status,
  parcel: withParcel ? parcel : null,
});

describe('where the service and the sensors disagree', () => {
  it('an item in a door the service counts as free', () => {
    expect(mismatchOf(door(1, 'available'), { closed: true, itemPresent: true })).toBe(
      'item_in_free_door',
    );
    expect(mismatchOf(door(1, 'available'), { closed: false, itemPresent: true })).toBe(
      'item_in_free_door',
    );
    expect(mismatchOf(door(1, 'available'), { closed: true, itemPresent: false })).toBeNull();
  });

  it('a shut door reading empty where the service expects a parcel', () => {
    expect(mismatchOf(door(2, 'occupied', true), { closed: true, itemPresent: false })).toBe(
      'empty_where_parcel_expected',
    );
    // Open: the parcel may be in someone's hands right now.
    expect(mismatchOf(door(2, 'occupied', true), { closed: false, itemPresent: false })).toBeNull();
    expect(mismatchOf(door(2, 'occupied', true), { closed: true, itemPresent: true })).toBeNull();
    // Out of service and empty, nothing expected: agreed.
    expect(mismatchOf(door(3, 'out_of_service'), { closed: true, itemPresent: false })).toBeNull();
  });

  it('no disagreement for a door the service does not list', () => {
    expect(mismatchOf(undefined, { closed: true, itemPresent: true })).toBeNull();
  });
});

describe('the controller reading the screen is given', () => {
  const open: CabinetHardware[] = [];
  afterEach(async () => {
    for (const hardware of open.splice(0)) await hardware.close();
  });

  it('carries the core’s judgement of each door against the service’s grid', async () => {
    const hardware = await connectCabinet(
      KioskConfigSchema.parse({
        serverUrl: 'http://127.0.0.1:1',
        deviceToken: 'tdev_0123456789abcdef0123',
        dataDir: '/tmp',
        lock: { kind: 'simulator', boards: 1 },
      }),
    );
    open.push(hardware);
    const store = new KioskStateStore(silentLog, { backInService: () => {} });
    store.update({
      cabinet: {
        station: { code: 'ST1', name: 'Station' },
        doors: [door(1, 'occupied', true), door(2, 'available'), door(3, 'available')],
      },
    });
    hardware.simulator!.cabinet.setItem(2, true);
    const reading = await readController(hardware.board, store, silentLog);
    if (reading.kind !== 'sensors') throw new Error(`read ${reading.kind}`);
    expect(reading.doors.slice(0, 4)).toEqual([
      {
        position: 1,
        known: true,
        closed: true,
        itemPresent: false,
        mismatch: 'empty_where_parcel_expected',
      },
      { position: 2, known: true, closed: true, itemPresent: true, mismatch: 'item_in_free_door' },
      { position: 3, known: true, closed: true, itemPresent: false, mismatch: null },
      // Not in the grid the core holds: nothing to disagree with.
      { position: 4, known: true, closed: true, itemPresent: false, mismatch: null },
    ]);

    // A silent board reads as such; judging it is the door watch's (one writer, in bus
    // order: test/kiosk/outOfService.test.ts), so the condition is not this read's.
    hardware.simulator!.cabinet.setResponsive(0, false);
    expect(await readController(hardware.board, store, silentLog)).toEqual({
      kind: 'board_unreachable',
    });
    expect(store.state.condition).toBe('ok');
  });

  it('judges a bus that cannot be read at all (an adapter unplugged) out of service', async () => {
    const store = new KioskStateStore(silentLog, { backInService: () => {} });
    const unplugged = {
      readDoors: () => Promise.reject(new Error('the serial adapter is gone')),
    } as unknown as LockBoard;
    expect(await readController(unplugged, store, silentLog)).toEqual({
      kind: 'board_unreachable',
    });
    expect(store.state.condition).toBe('controller_unreachable');
  });
});
