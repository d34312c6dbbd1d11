import { describe, expect, it } from 'vitest';
import { BUS_TIMINGS, CabinetSchema, type DoorChange } from '../src/index';
import { afterThisTest, until, wiredCabinet } from './wiredCabinet';

// What the kiosk needs to supervise its doors, against the simulated cabinet with the
// field's faults on, through a TCP gateway and the shared bus timings.

describe('door supervision: what the driver tells the kiosk', () => {
  it('opens a door through a gateway 30 ms between reply bytes, with the shared timings', async () => {
    const { board } = await wiredCabinet(
      'tcp',
      { boards: 1, replyByteGapMs: 30 },
      { replyTimeoutMs: 'shared' },
    );
    expect(board.bus.timings).toEqual(BUS_TIMINGS);
    expect(await board.open(4)).toMatchObject({ outcome: 'opened', pulses: 1 });
    expect((await board.readDoors()).boards).toEqual([{ board: 0, reachable: true }]);
  });

  it('answers unknown when the board loses power at the pulse, and says what the door read before', async () => {
    const { board, cabinet } = await wiredCabinet(
      'tcp',
      { boards: 1, itemsAt: [2] },
      { replyTimeoutMs: 'shared' },
    );
    cabinet.cutPowerOnNextPulse(0, 1200);
    expect(await board.open(2)).toMatchObject({
      outcome: 'unknown',
      pulses: 1,
      before: { closed: true, itemPresent: true },
    });
    expect(cabinet.door(2).closed).toBe(true);
  });

  it('tells a propped-open door with its item apart: no pulse, what the sensor read', async () => {
    const { board, cabinet, unlocksOnWire } = await wiredCabinet('tcp', {
      boards: 1,
      propped: [3, 4],
      itemsAt: [3],
    });
    expect(await board.open(3)).toMatchObject({
      outcome: 'already_open',
      pulses: 0,
      before: { closed: false, itemPresent: true },
    });
    expect(await board.open(4)).toMatchObject({
      outcome: 'already_open',
      before: { closed: false, itemPresent: false },
    });
    cabinet.closeDoor(4);
    expect(cabinet.door(4).closed).toBe(false);
    expect(unlocksOnWire).toEqual([]);
  });

  it('sees a door open with no session: forced while idle, and one its delayed unlock opens late', async () => {
    const { board, cabinet } = await wiredCabinet(
      'tcp',
      { boards: 1, openDelayMs: 0 },
      { replyTimeoutMs: 'shared' },
    );
    const changes: DoorChange[] = [];
    const watch = board.watchDoors({ intervalMs: 50, onChange: (c) => changes.push(c) });
    afterThisTest(() => watch.stop());
    await until(() => Promise.resolve(changes.length >= 16 ? true : undefined));
    expect(changes.every((c) => c.before === undefined && !c.opened)).toBe(true);
    changes.length = 0;
    cabinet.openDoor(9); // forced
    const forced = await until(() => Promise.resolve(changes.find((c) => c.position === 9)));
    expect(forced).toMatchObject({ opened: true, now: { known: true, closed: false } });
    // A delayed unlock of 2 s: the door springs open after open() gave up on it (1.5 s).
    cabinet.setUnlockDelay(0, 2);
    const result = await board.open(5);
    expect(result).toMatchObject({ outcome: 'did_not_open', pulses: 1 });
    const late = await until(() =>
      Promise.resolve(changes.find((c) => c.position === 5 && c.opened)),
    );
    expect(late.at.getTime()).toBeGreaterThan(Date.now() - 2000);
    expect(cabinet.door(5).closed).toBe(false);
  });

  it('names a board whose every door reads open as a suspect polarity', async () => {
    // Normally-closed switches on a cabinet described with the vendor's wiring.
    const { board } = await wiredCabinet(
      'tcp',
      { boards: 2, hookBitMeansClosed: false },
      {
        cabinet: CabinetSchema.parse({ boards: [0, 1], hookBitMeansClosed: true }),
      },
    );
    const reading = await board.readDoors();
    expect(reading.doors.every((d) => d.known && !d.closed)).toBe(true);
    expect(reading.suspectPolarity).toEqual([0, 1]);
  });

  it('counts only the doors the cabinet maps: a board with 8 doors wired, all shut, is not suspect; all open is', async () => {
    const absent = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i + 9, null]));
    const cabinetFile = CabinetSchema.parse({ boards: [0], positionOverrides: absent });
    const { board, cabinet } = await wiredCabinet(
      'tcp',
      { boards: 1, doorsWired: 8 },
      { cabinet: cabinetFile },
    );
    expect((await board.readDoors()).suspectPolarity).toEqual([]);
    for (let p = 1; p <= 8; p++) cabinet.openDoor(p);
    expect((await board.readDoors()).suspectPolarity).toEqual([0]);
  });

  it('compares each board’s firmware and unlock time with what commissioning recorded', async () => {
    const cabinetFile = CabinetSchema.parse({
      boards: [0, 1],
      boardSettings: {
        0: { software: 1, hardware: 1, unlockTimeMs: 550 },
        1: { software: 1, hardware: 1, unlockTimeMs: 1000 },
      },
    });
    const { board, cabinet } = await wiredCabinet('tcp', { boards: 2 }, { cabinet: cabinetFile });
    cabinet.setVersion(1, 4, 1);
    expect(await board.checkBoards()).toEqual([
      { board: 0, reachable: true, software: 1, hardware: 1, unlockTimeMs: 550, differences: [] },
      {
        board: 1,
        reachable: true,
        software: 4,
        hardware: 1,
        unlockTimeMs: 550,
        differences: [
          'board 1 runs software 4, commissioned with 1: swapped or re-flashed',
          'board 1 pulses 550 ms, commissioned at 1000 ms: reset to factory or changed',
        ],
      },
    ]);
  });
});
