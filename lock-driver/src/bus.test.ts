import { afterEach, describe, expect, it } from 'vitest';
import { Bus } from './bus';
import { LockDriverError } from './errors';
import { Reply, address, hex } from './protocol/frame';
import { requests } from './protocol/requests';
import { mockBoard } from '../test/mockBoard';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function openBus(options: Parameters<typeof mockBoard>[0], replyTimeoutMs = 100) {
  const board = mockBoard(options);
  await board.transport.open();
  closers.push(() => board.transport.close());
  const frames: string[] = [];
  const bus = new Bus(board.transport, {
    replyTimeoutMs,
    logger: { frame: (dir, _b, text) => frames.push(`${dir} ${text}`) },
  });
  return { ...board, bus, frames };
}

const statusOf = (board: number) => ({
  bytes: requests.status(board),
  expect: {
    kind: 'one' as const,
    match: (f: { addr: number; cmd: number }) =>
      f.addr === address(board) && f.cmd === Reply.status,
  },
});

describe('Bus over the mock serial binding', () => {
  it('matches a reply delivered in pieces to its request and logs both frames in hex', async () => {
    // The vendor's example board: lock 1 locked with an item in it, the others open.
    const { bus, frames, cabinet } = await openBus({ boards: 2, itemsAt: [1] });
    for (let p = 2; p <= 16; p++) cabinet.openDoor(p);
    const [frame] = await bus.request(statusOf(0));
    expect(hex(frame!.raw)).toBe('02 00 35 01 00 01 00 03 3C');
    expect(frames).toEqual(['tx 02 00 30 03 35', 'rx 02 00 35 01 00 01 00 03 3C']);
  });

  it('keeps one request in flight: the next leaves only after the reply', async () => {
    const { bus, written, frames } = await openBus({ boards: 3 });
    await Promise.all([
      bus.request(statusOf(0)),
      bus.request(statusOf(1)),
      bus.request(statusOf(2)),
    ]);
    expect(written.map((b) => b[1])).toEqual([0x00, 0x10, 0x20]);
    expect(frames.map((f) => f.slice(0, 2))).toEqual(['tx', 'rx', 'tx', 'rx', 'tx', 'rx']);
  });

  it('sends an unlock ahead of status polls already queued', async () => {
    // About queue order only: the board answers even right after the pulse.
    const { bus, written } = await openBus({ boards: 1, busyAfterUnlockMs: 0 });
    const polls = [bus.request(statusOf(0)), bus.request(statusOf(0)), bus.request(statusOf(0))];
    const unlock = bus.request({
      bytes: requests.unlock(0, 4),
      expect: { kind: 'none' },
      urgent: true,
    });
    await Promise.all([...polls, unlock]);
    // The first poll was already on the wire; the unlock overtakes the other two.
    expect(written.map((b) => b[2])).toEqual([0x30, 0x31, 0x30, 0x30]);
  });

  it('times out a reply that never comes, then carries on with the next request', async () => {
    const { bus, cabinet } = await openBus({ boards: 2 }, 60);
    cabinet.setResponsive(1, false);
    const missing = bus.request(statusOf(1));
    const next = bus.request(statusOf(0));
    await expect(missing).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(missing).rejects.toBeInstanceOf(LockDriverError);
    expect((await next)[0]!.board).toBe(0);
  });

  it('collects every board’s answer to a broadcast', async () => {
    const { bus } = await openBus({ boards: 3 });
    const frames = await bus.request({
      bytes: requests.statusAll(),
      expect: { kind: 'many', count: 3, match: (f) => f.cmd === Reply.statusAll },
    });
    expect(frames.map((f) => f.board)).toEqual([0, 1, 2]);
  });

  it('keeps the bus quiet after a flash write before the next request leaves', async () => {
    const { bus } = await openBus({ boards: 1 });
    await bus.request({
      bytes: requests.setUnlockTime(0, 1000),
      expect: { kind: 'one', match: (f) => f.cmd === Reply.unlockTime },
      quietAfterMs: 150,
    });
    const started = Date.now();
    await bus.request(statusOf(0));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});
