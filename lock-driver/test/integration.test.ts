import { describe, expect, it } from 'vitest';
import { LockBoard, defaultCabinet, serialTransport } from '../src/index';
import { until, wiredCabinet } from './wiredCabinet';

async function overPty(boards = 3) {
  const wired = await wiredCabinet('pty', { boards, itemsAt: boards > 1 ? [2, 17] : [2] });
  return { ...wired, sim: wired.pty! };
}

describe('the driver against the simulator through a pseudo-terminal (real serial code path)', () => {
  it('reads a 48-door cabinet, opens a door and sees it closed on the item', async () => {
    const { board, cabinet } = await overPty();
    const { doors } = await board.readDoors();
    expect(doors).toHaveLength(48);
    expect(doors.filter((d) => d.known && d.itemPresent).map((d) => d.position)).toEqual([2, 17]);
    // Shut a second after it opened: long enough that the driver's read after its pulse
    // sees it open on a loaded machine (at 80 ms a CI run on Node 24 saw it shut again).
    cabinet.closeAfterOpen(17, 1000, true);
    expect((await board.open(17)).outcome).toBe('opened');
    const closed = await board.watchClosed(17, { leftOpenAfterMs: 5000, pollIntervalMs: 20 });
    expect(closed.outcome).toBe('closed_with_item');
  });

  it('reports a jammed door', async () => {
    const { board, cabinet } = await overPty(1);
    cabinet.jam(9);
    const unlocks: number[] = [];
    cabinet.on('unlock', (p: number) => unlocks.push(p));
    expect((await board.open(9)).outcome).toBe('did_not_open');
    expect(unlocks).toEqual([9]);
  });

  it('fails fast while the USB adapter is unplugged and reconnects by itself when it is back', async () => {
    const { board, sim, cabinet } = await overPty(1);
    const unlocks: number[] = [];
    cabinet.on('unlock', (p: number) => unlocks.push(p));
    expect((await board.readDoors()).doors).toHaveLength(16);
    await sim.unplug();
    await until(async () =>
      (await board.readDoors().catch((e: { code: string }) => e.code)) === 'DISCONNECTED'
        ? true
        : undefined,
    );
    await expect(board.open(1)).rejects.toMatchObject({ code: 'DISCONNECTED' });
    await sim.replug();
    expect(await until(async () => (await board.readDoors()).doors.length)).toBe(16);
    // The door command refused while unplugged did not fire once the port came back.
    expect(unlocks).toEqual([]);
  });

  it('marks a board that stops answering unreachable and reads it again when it answers', async () => {
    const { board, cabinet } = await overPty(2);
    cabinet.setResponsive(1, false);
    const silent = await board.readDoors();
    expect(silent.boards).toEqual([
      { board: 0, reachable: true },
      { board: 1, reachable: false },
    ]);
    expect(await board.scan(300)).toEqual([0]);
    cabinet.setResponsive(1, true);
    expect((await board.readDoors()).doors.every((d) => d.known)).toBe(true);
  });
});

describe('the driver against the simulator over TCP (bus gateway)', () => {
  it('works the same and reconnects after the gateway drops the connection', async () => {
    const { board, gateway } = await wiredCabinet('tcp', { boards: 2 });
    expect((await board.readDoors()).doors).toHaveLength(32);
    expect((await board.open(20)).outcome).toBe('opened');
    gateway!.disconnectAll();
    expect(
      await until(async () => {
        const door = await board.readDoor(20);
        return door.known && !door.closed ? true : undefined;
      }),
    ).toBe(true);
  });

  it('says clearly when a port does not exist', async () => {
    await expect(
      LockBoard.connect({
        transport: serialTransport({ path: '/dev/ttyNOPE9' }),
        cabinet: defaultCabinet(1),
      }),
    ).rejects.toMatchObject({
      code: 'PORT_NOT_FOUND',
      message: expect.stringContaining('/dev/ttyNOPE9 does not exist'),
    });
  });
});
