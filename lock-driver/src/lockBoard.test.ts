import { afterEach, describe, expect, it } from 'vitest';
import { LockBoard } from './lockBoard';
import { Command } from './protocol/frame';
import { mockBoard } from '../test/mockBoard';

const open: LockBoard[] = [];
afterEach(async () => {
  for (const board of open.splice(0)) await board.close();
});

async function connect(
  options: Parameters<typeof mockBoard>[0],
  extra: Partial<Parameters<typeof LockBoard.connect>[0]> = {},
) {
  const mock = mockBoard(options);
  const board = await LockBoard.connect({
    transport: mock.transport,
    boards: options.boards,
    pollIntervalMs: 5,
    openTimeoutMs: 300,
    ...extra,
  });
  open.push(board);
  const unlocks = () => mock.written.filter((b) => b[2] === Command.unlock);
  return { ...mock, board, unlocks };
}

describe('LockBoard', () => {
  it('reports a door opened once it is seen open', async () => {
    const { board, cabinet, unlocks } = await connect({ boards: 1, openDelayMs: 20 });
    const result = await board.open(3);
    expect(result.outcome).toBe('opened');
    expect(cabinet.door(3).closed).toBe(false);
    expect(unlocks().map((b) => b[1])).toEqual([0x02]);
  });

  it('reports a jammed door as did_not_open and never resends the unlock', async () => {
    const { board, cabinet, unlocks } = await connect({ boards: 1 });
    cabinet.jam(5);
    const result = await board.open(5);
    expect(result.outcome).toBe('did_not_open');
    expect(result.elapsedMs).toBeGreaterThanOrEqual(300);
    expect(unlocks()).toHaveLength(1);
  });

  it('tells closed with the item, closed empty and left open apart', async () => {
    const { board, cabinet } = await connect({ boards: 1, itemsAt: [1, 2] });
    cabinet.closeAfterOpen(1, 30, true);
    await board.open(1);
    expect((await board.waitClosed(1, 1000, 5)).outcome).toBe('closed_with_item');
    cabinet.closeAfterOpen(2, 30, false);
    await board.open(2);
    expect((await board.waitClosed(2, 1000, 5)).outcome).toBe('closed_empty');
    await board.open(3);
    const left = await board.waitClosed(3, 100, 5);
    expect(left.outcome).toBe('left_open');
    expect(left.elapsedMs).toBeGreaterThanOrEqual(100);
  });

  it('maps positions across boards and through an override table', async () => {
    // A cabinet whose first and last doors were wired to each other's locks.
    const swapped = { 1: { board: 2, lock: 15 }, 48: { board: 0, lock: 0 } };
    const { board, unlocks } = await connect({ boards: 3 }, { overrides: swapped });
    await board.open(20); // board 1, lock index 3
    await board.open(1); // rewired to board 2, lock 16
    expect(unlocks().map((b) => b[1])).toEqual([0x13, 0x2f]);
    const doors = await board.status();
    expect(doors.map((d) => d.position)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    expect(doors.find((d) => d.position === 48)).toMatchObject({ closed: true });
    expect(doors.find((d) => d.position === 1)).toMatchObject({ closed: false });
    expect(doors.find((d) => d.position === 20)).toMatchObject({ closed: false });
    await expect(board.open(0)).rejects.toMatchObject({ code: 'INVALID_POSITION' });
  });

  it('reads normally-closed wiring when told its polarity', async () => {
    const { board, cabinet } = await connect(
      { boards: 1, hookBitMeansClosed: false, itemsAt: [4] },
      { hookBitMeansClosed: false },
    );
    expect(await board.doorState(4)).toEqual({ position: 4, closed: true, itemPresent: true });
    await board.open(4);
    expect(cabinet.door(4).closed).toBe(false);
    expect((await board.doorState(4)).closed).toBe(false);
  });

  it('reads and sets the unlock pulse time', async () => {
    const { board } = await connect({ boards: 2 });
    expect(await board.unlockTime(1)).toBe(550);
    expect(await board.setUnlockTime(1, 1200)).toBe(1200);
    expect(await board.unlockTime(1)).toBe(1200);
    await expect(board.setUnlockTime(1, 5)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('cycles every door, naming the ones that did not open or were left open', async () => {
    const { board, cabinet } = await connect({ boards: 1, autoCloseMs: 10 });
    cabinet.jam(4);
    cabinet.closeAfterOpen(9, 10_000, false);
    const results = await board.cycle(150);
    expect(results).toHaveLength(16);
    expect(results.filter((r) => !r.ok).map((r) => [r.position, r.opened, r.closed])).toEqual([
      [4, 'did_not_open', null],
      [9, 'opened', 'left_open'],
    ]);
    expect(results.find((r) => r.position === 1)).toEqual({
      position: 1,
      opened: 'opened',
      closed: 'closed_empty',
      ok: true,
    });
  });

  it('in demo mode, a door shut after opening holds the parcel if it was empty, and not if it held one', async () => {
    const { board } = await connect({
      boards: 1,
      autoCloseMs: 30,
      autoCloseTogglesItem: true,
      itemsAt: [2],
    });
    await board.open(1);
    expect((await board.waitClosed(1, 1000, 5)).outcome).toBe('closed_with_item');
    await board.open(2);
    expect((await board.waitClosed(2, 1000, 5)).outcome).toBe('closed_empty');
  });

  it('answers a missing board with TIMEOUT rather than hanging', async () => {
    const { board } = await connect({ boards: 1 }, { boards: 2, replyTimeoutMs: 50 });
    await expect(board.status()).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(await board.scan(80)).toEqual([0]);
  });
});
