import { afterEach, describe, expect, it } from 'vitest';
import {
  LockBoard,
  defaultCabinet,
  SimulatedCabinet,
  servePty,
  serveTcp,
  serialTransport,
  tcpTransport,
} from '../src/index';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until<T>(probe: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function overPty(boards = 3) {
  const cabinet = new SimulatedCabinet({ boards, itemsAt: boards > 1 ? [2, 17] : [2] });
  const sim = await servePty(cabinet, { baudRate: 19200 });
  const transport = serialTransport({
    path: sim.path,
    baudRate: 19200,
    initialBackoffMs: 100,
    maxBackoffMs: 400,
  });
  // Generous reply timeout: a loaded machine must not turn a slow reply into a failure.
  const board = await LockBoard.connect({
    transport,
    cabinet: defaultCabinet(boards),
    replyTimeoutMs: 1000,
  });
  cleanups.push(
    () => cabinet.stop(),
    () => sim.close(),
    () => board.close(),
  );
  return { cabinet, sim, board };
}

describe('the driver against the simulator through a pseudo-terminal (real serial code path)', () => {
  it('reads a 48-door cabinet, opens a door and sees it closed on the item', async () => {
    const { board, cabinet } = await overPty();
    const { doors } = await board.readDoors();
    expect(doors).toHaveLength(48);
    expect(doors.filter((d) => d.known && d.itemPresent).map((d) => d.position)).toEqual([2, 17]);
    cabinet.closeAfterOpen(17, 80, true);
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
    const cabinet = new SimulatedCabinet({ boards: 2 });
    const gateway = await serveTcp(cabinet);
    const board = await LockBoard.connect({
      transport: tcpTransport({ host: '127.0.0.1', port: gateway.port, initialBackoffMs: 50 }),
      cabinet: defaultCabinet(2),
      replyTimeoutMs: 1000,
    });
    cleanups.push(
      () => cabinet.stop(),
      () => gateway.close(),
      () => board.close(),
    );
    expect((await board.readDoors()).doors).toHaveLength(32);
    expect((await board.open(20)).outcome).toBe('opened');
    gateway.disconnectAll();
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
